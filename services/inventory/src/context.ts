import type { Sequelize } from 'sequelize';
import type { ServiceConfig } from '@pi/common';
import type { BookingMetrics } from './ledger/booking-metrics';

/** What the inventory routes need. */
export interface InventoryContext {
  sequelize: Sequelize;
  config: Pick<ServiceConfig, 'PUBLIC_BASE_URL'>;
  /** The bookings counter, when the service is measured (docs/operations/metrics.md). */
  bookings?: BookingMetrics;
}
