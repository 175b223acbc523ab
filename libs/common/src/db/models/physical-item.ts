import { Column, DataType, ForeignKey, Table } from 'sequelize-typescript';
import { CompanyOwnedModel } from './company-owned';
import { Location } from './location';
import { ProductModel } from './product-model';

/** One serialized unit. Active items are the stock of a SERIALIZED product; a subtraction retires them. */
@Table({ tableName: 'physical_items' })
export class PhysicalItem extends CompanyOwnedModel {
  @ForeignKey(() => ProductModel)
  @Column(DataType.UUID)
  declare productId: string;

  @Column(DataType.STRING(100))
  declare serialNumber: string;

  @ForeignKey(() => Location)
  @Column(DataType.UUID)
  declare locationId: string;

  @Column(DataType.BOOLEAN)
  declare isActive: boolean;

  @Column(DataType.DATE)
  declare retiredAt: Date | null;
}
