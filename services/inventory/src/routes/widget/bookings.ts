import { Router } from 'express';
import type { InventoryContext } from '../../context';

export function widgetBookingsRouter(_ctx: InventoryContext): Router {
  return Router();
}
