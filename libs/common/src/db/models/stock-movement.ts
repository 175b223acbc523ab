import { Column, DataType, Default, ForeignKey, Model, PrimaryKey, Table } from 'sequelize-typescript';
import { Company } from './company';

export const MOVEMENT_KINDS = ['ADD', 'SUBTRACT', 'MOVE_IN', 'MOVE_OUT', 'TRANSFER', 'ADJUST'] as const;
export type MovementKind = (typeof MOVEMENT_KINDS)[number];

/** One ledger entry. Rows are only ever inserted (a trigger refuses updates and deletes). */
@Table({ tableName: 'stock_movements', updatedAt: false })
export class StockMovement extends Model {
  @PrimaryKey
  @Default(DataType.UUIDV4)
  @Column(DataType.UUID)
  declare id: string;

  /** Server-assigned order of the ledger (bigserial, returned by pg as a string). */
  @Column(DataType.BIGINT)
  declare seq: string;

  @ForeignKey(() => Company)
  @Column(DataType.UUID)
  declare companyId: string;

  @Column(DataType.UUID)
  declare productId: string;

  @Column(DataType.STRING(16))
  declare kind: MovementKind;

  @Column(DataType.UUID)
  declare fromLocationId: string;

  @Column(DataType.UUID)
  declare toLocationId: string;

  @Column(DataType.DECIMAL(20, 6))
  declare quantity: string;

  @Column(DataType.UUID)
  declare batchId: string | null;

  @Column(DataType.ARRAY(DataType.UUID))
  declare itemIds: string[] | null;

  @Column(DataType.STRING(500))
  declare reason: string;

  @Column(DataType.STRING(16))
  declare actorKind: 'user' | 'api_key';

  @Column(DataType.UUID)
  declare actorId: string;

  @Column(DataType.STRING(128))
  declare requestId: string | null;

  declare readonly createdAt: Date;
}
