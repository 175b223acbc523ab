import { Column, DataType, Default, ForeignKey, Model, PrimaryKey, Table } from 'sequelize-typescript';
import { Company } from './company';
import { Location } from './location';
import { ProductModel } from './product-model';

/** One serialized unit. Active items are the stock of a SERIALIZED product; a subtraction retires them. */
@Table({ tableName: 'physical_items' })
export class PhysicalItem extends Model {
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
  declare serialNumber: string;

  @ForeignKey(() => Location)
  @Column(DataType.UUID)
  declare locationId: string;

  @Column(DataType.BOOLEAN)
  declare isActive: boolean;

  @Column(DataType.DATE)
  declare retiredAt: Date | null;

  declare readonly createdAt: Date;
  declare readonly updatedAt: Date;
}
