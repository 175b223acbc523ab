import { Column, DataType, Table } from 'sequelize-typescript';
import { CompanyOwnedModel } from './company-owned';
import type { Role } from '../../identity';

@Table({ tableName: 'users' })
export class User extends CompanyOwnedModel {
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
}
