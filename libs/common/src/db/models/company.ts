import { Column, DataType, Default, Model, PrimaryKey, Table } from 'sequelize-typescript';
import type { ScanPolicy } from '../../identity';

@Table({ tableName: 'companies' })
export class Company extends Model {
  @PrimaryKey
  @Default(DataType.UUIDV4)
  @Column(DataType.UUID)
  declare id: string;

  @Column(DataType.STRING(200))
  declare name: string;

  /** What a QR scan may do by default (docs/api/scanning.md). */
  @Column(DataType.STRING(8))
  declare scanPolicy: ScanPolicy;

  /** How long a key minted by a scan lives. */
  @Column(DataType.INTEGER)
  declare scanKeySeconds: number;

  declare readonly createdAt: Date;
  declare readonly updatedAt: Date;
}
