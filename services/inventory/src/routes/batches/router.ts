import { Router } from 'express';
import type { InventoryContext } from '../../context';

export function batchesRouter(_ctx: InventoryContext): Router {
  return Router();
}
