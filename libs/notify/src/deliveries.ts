/**
 * The delivery outbox (docs/decisions/0003-delivery-outbox.md): one `notification_deliveries` row per
 * (event, subscribed channel), written in the transaction that opens the event, and the query that finds
 * deliveries due for an attempt. The rows are the truth; the queue only carries their ids, so whatever the
 * queue loses is found again here by the next `check_rules` run.
 */
import { QueryTypes, type Transaction } from 'sequelize';
import type { Sequelize } from 'sequelize-typescript';
import { NotificationChannel, NotificationDelivery, type EventType } from '@pi/common/core';

/** What `createDeliveries` needs of a channel (a `NotificationChannel` instance will do). */
export type DeliveryChannel = Pick<NotificationChannel, 'id' | 'companyId' | 'events' | 'isActive' | 'maxAttempts'>;

export interface NewDeliveries {
  companyId: string;
  /** The event log entry; null for a TEST delivery. */
  eventId: string | null;
  eventType: EventType;
  /** The exact body every attempt sends (`buildEventBody` / `buildTestBody`). */
  body: string;
  /** Candidate channels; only the company's active ones subscribed to `eventType` get a delivery. */
  channels: DeliveryChannel[];
  /** When the first attempt is due (default: now). */
  now?: Date;
}

/** At most 5 attempts per delivery (docs/api/monitoring-and-notifications.md), also a database CHECK. */
export const MAX_DELIVERY_ATTEMPTS = 5;

/** The channels of `channels` that take an event of type `eventType` for `companyId`. */
export function subscribedChannels<C extends DeliveryChannel>(channels: C[], companyId: string, eventType: EventType): C[] {
  const seen = new Set<string>();
  return channels.filter((c) => {
    if (!c.isActive || c.companyId !== companyId || !(c.events ?? []).includes(eventType) || seen.has(c.id)) return false;
    seen.add(c.id);
    return true;
  });
}

/**
 * Creates one PENDING delivery per active channel subscribed to the event type, inside the caller's
 * transaction (enqueue only after it commits). An event already delivered to a channel is left alone
 * (INSERT … ON CONFLICT DO NOTHING on (event_id, channel_id)), so a repeated call creates nothing twice.
 * Answers the rows it created.
 */
export async function createDeliveries(sequelize: Sequelize, transaction: Transaction | null, input: NewDeliveries): Promise<NotificationDelivery[]> {
  const channels = subscribedChannels(input.channels, input.companyId, input.eventType);
  if (channels.length === 0) return [];
  const maxAttempts = channels.map((c) => Math.min(Math.max(Math.trunc(c.maxAttempts || MAX_DELIVERY_ATTEMPTS), 1), MAX_DELIVERY_ATTEMPTS));
  const rows = await sequelize.query(
    `INSERT INTO notification_deliveries
       (company_id, channel_id, event_id, event_type, payload, status, attempts, max_attempts, next_attempt_at)
     SELECT $1, ch.id, $2, $3, $4, 'PENDING', 0, ch.max_attempts, $5
       FROM unnest($6::uuid[], $7::smallint[]) AS ch(id, max_attempts)
     ON CONFLICT (event_id, channel_id) WHERE event_id IS NOT NULL DO NOTHING
     RETURNING *`,
    {
      bind: [input.companyId, input.eventId, input.eventType, input.body, input.now ?? new Date(), channels.map((c) => c.id), maxAttempts],
      type: QueryTypes.SELECT,
      model: NotificationDelivery,
      mapToModel: true,
      transaction: transaction ?? undefined,
    },
  );
  return rows;
}

/**
 * Ids of the deliveries waiting for an attempt (PENDING or RETRYING) that is due at `now`, oldest first; of one
 * company when `companyId` is given (a `check_rules --company` run). A paused channel's deliveries are held
 * (breaker.ts): only its oldest due one is listed, as its probe, once the probe is due.
 */
export async function dueDeliveryIds(sequelize: Sequelize, now: Date, limit = 1000, companyId?: string): Promise<string[]> {
  const rows = await sequelize.query<{ id: string }>(
    `SELECT d.id FROM notification_deliveries d JOIN notification_channels c ON c.id = d.channel_id
      WHERE d.status IN ('PENDING', 'RETRYING') AND d.next_attempt_at <= $1 AND ($3::uuid IS NULL OR d.company_id = $3::uuid)
        AND (c.paused_at IS NULL
             OR (COALESCE(c.next_probe_at, '-infinity') <= $1
                 AND d.id = (SELECT p.id FROM notification_deliveries p
                              WHERE p.channel_id = c.id AND p.status IN ('PENDING', 'RETRYING') AND p.next_attempt_at <= $1
                              ORDER BY p.next_attempt_at, p.id LIMIT 1)))
      ORDER BY d.next_attempt_at, d.id
      LIMIT $2`,
    { bind: [now, limit, companyId ?? null], type: QueryTypes.SELECT },
  );
  return rows.map((r) => r.id);
}

/** How many due deliveries belong to paused channels (held; one per channel may go out as its probe). */
export async function heldDeliveryCount(sequelize: Sequelize, now: Date, companyId?: string): Promise<number> {
  const [row] = await sequelize.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM notification_deliveries d JOIN notification_channels c ON c.id = d.channel_id
      WHERE d.status IN ('PENDING', 'RETRYING') AND d.next_attempt_at <= $1 AND ($2::uuid IS NULL OR d.company_id = $2::uuid)
        AND c.paused_at IS NOT NULL`,
    { bind: [now, companyId ?? null], type: QueryTypes.SELECT },
  );
  return row.n;
}

/** Ids of one channel's due deliveries, oldest first (to queue them at once when an admin resumes it). */
export async function dueDeliveryIdsOfChannel(sequelize: Sequelize, channelId: string, now: Date, limit = 1000): Promise<string[]> {
  const rows = await sequelize.query<{ id: string }>(
    `SELECT id FROM notification_deliveries
      WHERE channel_id = $1 AND status IN ('PENDING', 'RETRYING') AND next_attempt_at <= $2
      ORDER BY next_attempt_at, id
      LIMIT $3`,
    { bind: [channelId, now, limit], type: QueryTypes.SELECT },
  );
  return rows.map((r) => r.id);
}
