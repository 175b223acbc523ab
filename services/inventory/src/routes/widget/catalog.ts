import { Router } from 'express';
import type { InventoryContext } from '../../context';

export function widgetCatalogRouter(_ctx: InventoryContext): Router {
  return Router();
}
