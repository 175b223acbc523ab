import { Column, DataType, Table } from 'sequelize-typescript';
import { CompanyOwnedModel } from './company-owned';

/** Tracking modes; `engine_config.engine_type` must match (docs/api/catalog-and-records.md, "Product models"). */
export const PROFILES = ['STANDARD', 'SERIALIZED', 'BATCH', 'DIMENSIONAL'] as const;
export type Profile = (typeof PROFILES)[number];

export const ENGINE_TYPE_OF: Record<Profile, string> = {
  STANDARD: 'counter',
  SERIALIZED: 'serialized',
  BATCH: 'batch',
  DIMENSIONAL: 'dimensional',
};

@Table({ tableName: 'product_models' })
export class ProductModel extends CompanyOwnedModel {
  @Column(DataType.STRING(100))
  declare sku: string;

  @Column(DataType.STRING(200))
  declare name: string;

  @Column(DataType.TEXT)
  declare description: string | null;

  @Column(DataType.STRING(16))
  declare profile: Profile;

  @Column(DataType.JSONB)
  declare engineConfig: Record<string, unknown>;

  /** Copied from engine_config so SQL can format stock without parsing JSON. */
  @Column(DataType.STRING(16))
  declare unit: string;

  @Column(DataType.SMALLINT)
  declare decimals: number;

  @Column(DataType.BOOLEAN)
  declare isActive: boolean;
}
