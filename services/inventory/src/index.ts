export { inventoryRoutes } from './routes';
export { findStockDifferences } from './cli/verify-stock';
