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

  /** Raised by the database when the password, role or company changes or the user is deactivated: bearer
   *  tokens carry the version they were issued with, so older ones stop working (migration 0010). */
  @Column(DataType.INTEGER)
  declare tokenVersion: number;
}
