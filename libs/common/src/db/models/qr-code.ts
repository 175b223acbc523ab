import { Column, DataType, Table } from 'sequelize-typescript';
import { CompanyOwnedModel } from './company-owned';
import type { ScanPolicy } from '../../identity';

export const QR_STATUSES = ['VIRGIN', 'CONFIGURED', 'LOCKED'] as const;
export type QrStatus = (typeof QR_STATUSES)[number];
export const QR_TARGET_TYPES = ['PRODUCT', 'ITEM', 'WORK_ORDER'] as const;
export type QrTargetType = (typeof QR_TARGET_TYPES)[number];

@Table({ tableName: 'qr_codes' })
export class QrCode extends CompanyOwnedModel {
  /** Random, URL-safe, unique across companies: it is all a scan carries. */
  @Column(DataType.STRING(64))
  declare code: string;

  @Column(DataType.STRING(16))
  declare status: QrStatus;

  @Column(DataType.STRING(16))
  declare targetType: QrTargetType | null;

  @Column(DataType.UUID)
  declare targetId: string | null;

  @Column(DataType.UUID)
  declare productModelId: string | null;

  @Column(DataType.DATE)
  declare configuredAt: Date | null;

  @Column(DataType.DATE)
  declare lockedAt: Date | null;

  /** This code's scan policy, overriding the company's (null: the company's). */
  @Column(DataType.STRING(8))
  declare scanPolicy: ScanPolicy | null;
}
