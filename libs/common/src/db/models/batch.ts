import { Column, DataType, ForeignKey, Table } from 'sequelize-typescript';
import { CompanyOwnedModel } from './company-owned';
import { ProductModel } from './product-model';

/** A batch (lot) of a BATCH product. Its remaining stock lives in stock_balances rows naming it. */
@Table({ tableName: 'batches' })
export class Batch extends CompanyOwnedModel {
  @ForeignKey(() => ProductModel)
  @Column(DataType.UUID)
  declare productId: string;

  @Column(DataType.STRING(100))
  declare code: string;

  /** A calendar date, `YYYY-MM-DD`. */
  @Column(DataType.DATEONLY)
  declare expirationDate: string | null;
}
