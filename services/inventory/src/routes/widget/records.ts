import { Router } from 'express';
import type { InventoryContext } from '../../context';

export function widgetRecordsRouter(_ctx: InventoryContext): Router {
  return Router();
}
