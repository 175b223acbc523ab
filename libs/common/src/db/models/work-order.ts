import { Column, DataType, ForeignKey, Table } from 'sequelize-typescript';
import { CompanyOwnedModel } from './company-owned';
import { ProductModel } from './product-model';

export const WORK_ORDER_STATUSES = ['OPEN', 'IN_PROGRESS', 'DONE', 'CANCELLED'] as const;
export type WorkOrderStatus = (typeof WORK_ORDER_STATUSES)[number];
/** What the widget lists as "open". */
export const OPEN_WORK_ORDER_STATUSES: WorkOrderStatus[] = ['OPEN', 'IN_PROGRESS'];

@Table({ tableName: 'work_orders' })
export class WorkOrder extends CompanyOwnedModel {
  @Column(DataType.STRING(50))
  declare number: string;

  @Column(DataType.STRING(200))
  declare title: string;

  @Column(DataType.STRING(16))
  declare status: WorkOrderStatus;

  @ForeignKey(() => ProductModel)
  @Column(DataType.UUID)
  declare productId: string | null;

  /** NUMERIC: pg returns it as a string. */
  @Column(DataType.DECIMAL(20, 6))
  declare quantity: string | null;

  @Column(DataType.DATEONLY)
  declare dueDate: string | null;
}
