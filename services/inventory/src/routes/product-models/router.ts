import { Router } from 'express';
import type { InventoryContext } from '../../context';

export function productModelsRouter(_ctx: InventoryContext): Router {
  return Router();
}
