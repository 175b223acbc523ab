import { Column, DataType, Default, ForeignKey, Model, PrimaryKey, Table } from 'sequelize-typescript';
import { Company } from './company';

export const QR_STATUSES = ['VIRGIN', 'CONFIGURED', 'LOCKED'] as const;
export type QrStatus = (typeof QR_STATUSES)[number];
export const QR_TARGET_TYPES = ['PRODUCT', 'ITEM', 'WORK_ORDER'] as const;
export type QrTargetType = (typeof QR_TARGET_TYPES)[number];

@Table({ tableName: 'qr_codes' })
export class QrCode extends Model {
  @PrimaryKey
  @Default(DataType.UUIDV4)
  @Column(DataType.UUID)
  declare id: string;

  @ForeignKey(() => Company)
  @Column(DataType.UUID)
  declare companyId: string;

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

  declare readonly createdAt: Date;
  declare readonly updatedAt: Date;
}
