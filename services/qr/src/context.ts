/** What the QR service's routes and commands share: the database and the QR settings with the public base URL. */
import type { Sequelize } from 'sequelize';
import type { QrConfig } from './config';

export interface QrContext {
  sequelize: Sequelize;
  config: QrConfig;
}
