import type { Sequelize, Transaction } from 'sequelize';
import type { Identity, MovementKind } from '@pi/common';
import type { BookingMetrics } from './booking-metrics';

/** Who books, and where: every ledger command gets one. */
export interface BookingContext {
  sequelize: Sequelize;
  identity: Identity;
  requestId: string;
  /** Where bookings are counted, when the service measures them. */
  metrics?: BookingMetrics;
}

export interface MovementInput {
  productId: string;
  kind: MovementKind;
  fromLocationId: string;
  toLocationId: string;
  quantity: string;
  batchId?: string | null;
  itemIds?: string[] | null;
  reason: string;
}

export type Tx = Transaction;
