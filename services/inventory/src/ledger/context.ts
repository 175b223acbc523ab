import type { Sequelize, Transaction } from 'sequelize';
import type { Identity, MovementKind } from '@pi/common';

/** Who books, and where: every ledger command gets one. */
export interface BookingContext {
  sequelize: Sequelize;
  identity: Identity;
  requestId: string;
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
