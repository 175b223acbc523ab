import type { Sequelize } from 'sequelize';
import type { ServiceConfig } from '@pi/common';

/** What the inventory routes need. */
export interface InventoryContext {
  sequelize: Sequelize;
  config: Pick<ServiceConfig, 'PUBLIC_BASE_URL'>;
}
