/** Monitoring rules, the event log, notification channels, deliveries and their attempts (migration 0004). */
import { Column, DataType, Table } from 'sequelize-typescript';
import { CompanyOwnedModel } from './company-owned';

export const RULE_TRIGGER_TYPES = ['THRESHOLD', 'DATE_OFFSET'] as const;
export type RuleTriggerType = (typeof RULE_TRIGGER_TYPES)[number];
export const EVENT_TYPES = ['THRESHOLD', 'DATE_OFFSET', 'TEST'] as const;
export type EventType = (typeof EVENT_TYPES)[number];
export const SEVERITIES = ['INFO', 'WARNING', 'CRITICAL'] as const;
export type Severity = (typeof SEVERITIES)[number];
export const EVENT_STATUSES = ['OPEN', 'RESOLVED', 'IGNORED'] as const;
export type EventStatus = (typeof EVENT_STATUSES)[number];
export const CHANNEL_KINDS = ['WEBHOOK', 'EMAIL'] as const;
export type ChannelKind = (typeof CHANNEL_KINDS)[number];
export const DELIVERY_STATUSES = ['PENDING', 'RETRYING', 'DELIVERED', 'FAILED'] as const;
export type DeliveryStatus = (typeof DELIVERY_STATUSES)[number];
/** STARTED is written before the send and closed after it; INTERRUPTED is a STARTED attempt whose sender died. */
export const ATTEMPT_STATUSES = ['STARTED', 'SUCCEEDED', 'FAILED', 'INTERRUPTED'] as const;
export type AttemptStatus = (typeof ATTEMPT_STATUSES)[number];
/** Where a rule comes from: the rules API, a product's engine_config.monitoring_rules, or min/max attributes. */
export type RuleSource = 'rule' | 'engine_config' | 'attribute';

@Table({ tableName: 'monitoring_rules' })
export class MonitoringRule extends CompanyOwnedModel {
  @Column(DataType.UUID)
  declare productId: string;

  @Column(DataType.STRING(200))
  declare name: string | null;

  @Column(DataType.STRING(16))
  declare triggerType: RuleTriggerType;

  @Column(DataType.JSONB)
  declare conditionConfig: Record<string, unknown>;

  @Column(DataType.STRING(16))
  declare severity: Severity;

  @Column(DataType.BOOLEAN)
  declare isActive: boolean;
}

@Table({ tableName: 'event_log' })
export class EventLogEntry extends CompanyOwnedModel {
  /** A monitoring_rules id, or the stable UUIDv5 of a virtual rule. */
  @Column(DataType.UUID)
  declare ruleId: string;

  @Column(DataType.STRING(16))
  declare ruleSource: RuleSource;

  @Column(DataType.UUID)
  declare productId: string;

  @Column(DataType.UUID)
  declare batchId: string | null;

  @Column(DataType.STRING(16))
  declare triggerType: RuleTriggerType;

  @Column(DataType.STRING(16))
  declare severity: Severity;

  @Column(DataType.STRING(1000))
  declare message: string;

  @Column(DataType.JSONB)
  declare details: Record<string, unknown>;

  @Column(DataType.STRING(16))
  declare status: EventStatus;

  @Column(DataType.UUID)
  declare statusChangedBy: string | null;

  @Column(DataType.DATE)
  declare statusChangedAt: Date | null;
}

@Table({ tableName: 'notification_channels' })
export class NotificationChannel extends CompanyOwnedModel {
  @Column(DataType.STRING(100))
  declare name: string;

  @Column(DataType.STRING(16))
  declare kind: ChannelKind;

  @Column(DataType.STRING(2048))
  declare url: string | null;

  @Column(DataType.ARRAY(DataType.STRING(254)))
  declare recipients: string[] | null;

  @Column(DataType.ARRAY(DataType.STRING(16)))
  declare events: EventType[];

  /** The signing secret, encrypted with SECRET_ENCRYPTION_KEY (notify/secret-box.ts). Never logged. */
  @Column(DataType.TEXT)
  declare secretEncrypted: string;

  @Column(DataType.SMALLINT)
  declare maxAttempts: number;

  @Column(DataType.BOOLEAN)
  declare isActive: boolean;

  /** Failed attempts in a row (any delivery); a success resets it. The circuit breaker pauses at a threshold. */
  @Column(DataType.INTEGER)
  declare consecutiveFailures: number;

  /** Set while the circuit breaker holds the channel's deliveries (migration 0008). */
  @Column(DataType.DATE)
  declare pausedAt: Date | null;

  @Column(DataType.STRING(1000))
  declare pausedReason: string | null;

  /** While paused: when one delivery may be tried as a probe. */
  @Column(DataType.DATE)
  declare nextProbeAt: Date | null;
}

@Table({ tableName: 'notification_deliveries' })
export class NotificationDelivery extends CompanyOwnedModel {
  @Column(DataType.UUID)
  declare channelId: string;

  /** Null for TEST deliveries. */
  @Column(DataType.UUID)
  declare eventId: string | null;

  @Column(DataType.STRING(16))
  declare eventType: EventType;

  /** The exact JSON body every attempt sends (the webhook body of docs/api/monitoring-and-notifications.md), so retries send the same bytes. */
  @Column(DataType.TEXT)
  declare payload: string;

  @Column(DataType.STRING(16))
  declare status: DeliveryStatus;

  @Column(DataType.SMALLINT)
  declare attempts: number;

  @Column(DataType.SMALLINT)
  declare maxAttempts: number;

  @Column(DataType.DATE)
  declare nextAttemptAt: Date;

  @Column(DataType.INTEGER)
  declare lastStatusCode: number | null;

  @Column(DataType.STRING(1000))
  declare lastError: string | null;

  @Column(DataType.DATE)
  declare deliveredAt: Date | null;
}

@Table({ tableName: 'notification_attempts', timestamps: false })
export class NotificationAttempt extends CompanyOwnedModel {
  @Column(DataType.UUID)
  declare deliveryId: string;

  @Column(DataType.SMALLINT)
  declare number: number;

  @Column(DataType.STRING(16))
  declare status: AttemptStatus;

  /** True only for SUCCEEDED. */
  @Column(DataType.BOOLEAN)
  declare ok: boolean;

  @Column(DataType.INTEGER)
  declare statusCode: number | null;

  @Column(DataType.STRING(1000))
  declare error: string | null;

  @Column(DataType.STRING(500))
  declare responseExcerpt: string | null;

  @Column(DataType.INTEGER)
  declare durationMs: number;

  @Column(DataType.DATE)
  declare startedAt: Date;

  /** Null while STARTED. */
  @Column(DataType.DATE)
  declare finishedAt: Date | null;
}
