import { Router } from 'express';
import type { InventoryContext } from '../../context';

export function movementsRouter(_ctx: InventoryContext): Router {
  return Router();
}
