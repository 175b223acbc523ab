import { Router } from 'express';
import type { InventoryContext } from '../../context';

export function itemsRouter(_ctx: InventoryContext): Router {
  return Router();
}
