import { Column, DataType, Default, ForeignKey, Model, PrimaryKey, Table } from 'sequelize-typescript';
import { Company } from './company';

export const PHYSICAL_LOCATION_TYPES = ['WAREHOUSE', 'STORE', 'SHELF', 'VEHICLE'] as const;
export const LOCATION_TYPES = [...PHYSICAL_LOCATION_TYPES, 'VIRTUAL'] as const;
export type LocationType = (typeof LOCATION_TYPES)[number];
/** The two VIRTUAL locations every company gets: additions come from Inbound, subtractions go to Outbound. */
export type SystemRole = 'INBOUND' | 'OUTBOUND';

@Table({ tableName: 'locations' })
export class Location extends Model {
  @PrimaryKey
  @Default(DataType.UUIDV4)
  @Column(DataType.UUID)
  declare id: string;

  @ForeignKey(() => Company)
  @Column(DataType.UUID)
  declare companyId: string;

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

  declare readonly createdAt: Date;
  declare readonly updatedAt: Date;
}
