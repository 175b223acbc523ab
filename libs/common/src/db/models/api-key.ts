import { Column, DataType, Table } from 'sequelize-typescript';
import { CompanyOwnedModel } from './company-owned';
import type { Permission, ScanPolicy, Tier } from '../../identity';
import type { QrTargetType } from './qr-code';

/** A company API key. Only a SHA-256 hash of the value is stored; `prefix` lets people tell keys apart. */
@Table({ tableName: 'api_keys' })
export class ApiKey extends CompanyOwnedModel {
  @Column(DataType.STRING(100))
  declare name: string;

  @Column(DataType.STRING(16))
  declare prefix: string;

  @Column(DataType.STRING(64))
  declare keyHash: string;

  @Column(DataType.ARRAY(DataType.STRING(16)))
  declare permissions: Permission[];

  @Column(DataType.ARRAY(DataType.STRING(255)))
  declare allowedDomains: string[];

  @Column(DataType.STRING(16))
  declare tier: Tier;

  /** The company's designated widget key (QR scans mint short-lived keys from it). */
  @Column(DataType.BOOLEAN)
  declare isWidgetKey: boolean;

  @Column(DataType.DATE)
  declare expiresAt: Date | null;

  @Column(DataType.DATE)
  declare revokedAt: Date | null;

  @Column(DataType.DATE)
  declare lastUsedAt: Date | null;

  @Column(DataType.BIGINT)
  declare usageCount: string;

  @Column(DataType.UUID)
  declare createdByUserId: string | null;

  /** Set on keys minted for a QR scan: the widget key they inherit permissions and tier from. */
  @Column(DataType.UUID)
  declare parentKeyId: string | null;

  /** The code whose scan minted this key. */
  @Column(DataType.STRING(64))
  declare qrCode: string | null;

  /** Scan keys only (migration 0012): what the scan may do and reach, and who signed in inside the widget. */
  @Column(DataType.STRING(8))
  declare scanPolicy: ScanPolicy | null;

  @Column(DataType.STRING(16))
  declare scanTargetType: QrTargetType | null;

  @Column(DataType.UUID)
  declare scanTargetId: string | null;

  @Column(DataType.UUID)
  declare scanProductId: string | null;

  @Column(DataType.UUID)
  declare scanUserId: string | null;

  /** The signed-in user's token version at the sign-in (migration 0023): the key stops when it moves. */
  @Column(DataType.INTEGER)
  declare scanUserTokenVersion: number | null;
}
