import { Column, DataType, Default, ForeignKey, Model, PrimaryKey, Table } from 'sequelize-typescript';
import type { Role } from '../../identity';
import { Company } from './company';

@Table({ tableName: 'users' })
export class User extends Model {
  @PrimaryKey
  @Default(DataType.UUIDV4)
  @Column(DataType.UUID)
  declare id: string;

  @ForeignKey(() => Company)
  @Column(DataType.UUID)
  declare companyId: string;

  /** Unique across all companies (case-insensitive), since login names no company. */
  @Column(DataType.STRING(150))
  declare username: string;

  @Column(DataType.STRING(254))
  declare email: string | null;

  @Column(DataType.STRING(255))
  declare passwordHash: string;

  @Column(DataType.STRING(16))
  declare role: Role;

  @Column(DataType.BOOLEAN)
  declare isActive: boolean;

  declare readonly createdAt: Date;
  declare readonly updatedAt: Date;
}
