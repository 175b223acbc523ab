import { Column, DataType, Default, ForeignKey, Model, PrimaryKey, Table } from 'sequelize-typescript';
import { Company } from './company';
import { ProductModel } from './product-model';

/** A batch (lot) of a BATCH product. Its remaining stock lives in stock_balances rows naming it. */
@Table({ tableName: 'batches' })
export class Batch extends Model {
  @PrimaryKey
  @Default(DataType.UUIDV4)
  @Column(DataType.UUID)
  declare id: string;

  @ForeignKey(() => Company)
  @Column(DataType.UUID)
  declare companyId: string;

  @ForeignKey(() => ProductModel)
  @Column(DataType.UUID)
  declare productId: string;

  @Column(DataType.STRING(100))
  declare code: string;

  /** A calendar date, `YYYY-MM-DD`. */
  @Column(DataType.DATEONLY)
  declare expirationDate: string | null;

  declare readonly createdAt: Date;
  declare readonly updatedAt: Date;
}
