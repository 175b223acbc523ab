import { Router } from 'express';
import type { InventoryContext } from '../../context';

export function exportRouter(_ctx: InventoryContext): Router {
  return Router();
}
