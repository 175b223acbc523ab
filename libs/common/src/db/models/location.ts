import { Column, DataType, Table } from 'sequelize-typescript';
import { CompanyOwnedModel } from './company-owned';

export const PHYSICAL_LOCATION_TYPES = ['WAREHOUSE', 'STORE', 'SHELF', 'VEHICLE'] as const;
export const LOCATION_TYPES = [...PHYSICAL_LOCATION_TYPES, 'VIRTUAL'] as const;
export type LocationType = (typeof LOCATION_TYPES)[number];
/** The two VIRTUAL locations every company gets: additions come from Inbound, subtractions go to Outbound. */
export type SystemRole = 'INBOUND' | 'OUTBOUND';

@Table({ tableName: 'locations' })
export class Location extends CompanyOwnedModel {
  @Column(DataType.STRING(200))
  declare name: string;

  @Column(DataType.STRING(16))
  declare type: LocationType;

  @Column(DataType.UUID)
  declare parentId: string | null;

  @Column(DataType.STRING(16))
  declare systemRole: SystemRole | null;

  @Column(DataType.BOOLEAN)
  declare isActive: boolean;
}
