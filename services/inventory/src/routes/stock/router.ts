import { Router } from 'express';
import type { InventoryContext } from '../../context';

export function stockRouter(_ctx: InventoryContext): Router {
  return Router();
}
