import { Router } from 'express';
import type { InventoryContext } from '../../context';

export function workOrdersRouter(_ctx: InventoryContext): Router {
  return Router();
}
