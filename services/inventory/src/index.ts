export { inventoryRoutes } from './routes';
export { findStockDifferences } from './cli/verify-stock';
export { inventoryApi } from './openapi';
export { movementListStatements } from './commands/ledger-reads';
