import { Column, DataType, Default, Model, PrimaryKey, Table } from 'sequelize-typescript';

/** One administrative change (migration 0015). Inserted only, never updated: see audit/audit-log.ts. */
@Table({ tableName: 'audit_log', updatedAt: false })
export class AuditEntry extends Model {
  @PrimaryKey
  @Default(DataType.UUIDV4)
  @Column(DataType.UUID)
  declare id: string;

  @Column(DataType.UUID)
  declare companyId: string;

  @Column(DataType.STRING(16))
  declare actorType: 'user' | 'api_key' | 'operator';

  @Column(DataType.UUID)
  declare actorId: string | null;

  @Column(DataType.STRING(32))
  declare action: string;

  @Column(DataType.STRING(32))
  declare resourceType: string;

  @Column(DataType.UUID)
  declare resourceId: string;

  @Column(DataType.JSONB)
  declare changes: Record<string, { before: unknown; after: unknown }>;

  declare readonly createdAt: Date;
}
