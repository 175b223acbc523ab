/**
 * The delivery log: one delivery per (event, channel), with its numbered attempts. A page's attempts are read
 * in one query, never one per delivery. An admin may send a FAILED delivery again at once (`retryDelivery`).
 */
import type { WhereOptions } from 'sequelize';
import {
  AuditSnapshot,
  ConflictError,
  NotificationChannel,
  recordAudit,
  DeliveryStatus,
  EventType,
  Identity,
  NotificationAttempt,
  NotificationDelivery,
  PageRequest,
  findOwned,
  pageWindow,
  OrderTerm,
  sequelizeOrder,
} from '@pi/common';
import { dispatchDeliveries } from '@pi/notify';
import { DELIVERY_ORDERING } from './orderings';
import type { MonitorContext } from '../context';

export interface DeliveryFilters extends PageRequest {
  channel_id?: string;
  event_id?: string;
  status?: DeliveryStatus;
  event_type?: EventType;
  ordering?: OrderTerm[];
}

export interface DeliveryView {
  delivery: NotificationDelivery;
  attempts: NotificationAttempt[];
}

/** Each delivery with its attempts (by number), from one query over all of them. */
export async function withAttempts(deliveries: NotificationDelivery[]): Promise<DeliveryView[]> {
  if (deliveries.length === 0) return [];
  const attempts = await NotificationAttempt.findAll({
    where: { deliveryId: deliveries.map((d) => d.id) },
    order: [
      ['deliveryId', 'ASC'],
      ['number', 'ASC'],
    ],
    raw: true,
  });
  const byDelivery = new Map<string, NotificationAttempt[]>();
  for (const attempt of attempts) {
    const list = byDelivery.get(attempt.deliveryId) ?? [];
    list.push(attempt);
    byDelivery.set(attempt.deliveryId, list);
  }
  return deliveries.map((delivery) => ({ delivery, attempts: byDelivery.get(delivery.id) ?? [] }));
}

/** Newest first. Named channels and events are the company's: the route's ownedFilters step checked them. */
export async function listDeliveries(_ctx: MonitorContext, identity: Identity, filters: DeliveryFilters) {
  const where: Record<string, unknown> = { companyId: identity.companyId };
  if (filters.channel_id) where.channelId = filters.channel_id;
  if (filters.event_id) where.eventId = filters.event_id;
  if (filters.status) where.status = filters.status;
  if (filters.event_type) where.eventType = filters.event_type;
  const { rows, count } = await NotificationDelivery.findAndCountAll({
    where: where as WhereOptions<NotificationDelivery>,
    order: sequelizeOrder(DELIVERY_ORDERING, filters.ordering),
    ...pageWindow(filters),
    raw: true,
  });
  return { count, rows: await withAttempts(rows) };
}

export async function getDelivery(_ctx: MonitorContext, identity: Identity, id: string): Promise<DeliveryView> {
  const delivery = await findOwned(NotificationDelivery, id, identity.companyId, { what: 'Delivery' });
  return (await withAttempts([delivery]))[0];
}

/** A delivery's fields as the audit log records them (docs/api/roles-and-audit-log.md); its body is not. */
const auditedDelivery = (d: NotificationDelivery): AuditSnapshot => ({
  status: d.status,
  next_attempt_at: d.nextAttemptAt,
  channel_id: d.channelId,
  event_id: d.eventId,
});

export interface RetriedDelivery {
  /** True when the attempt went to the queue (the notifier makes it); false when it was made in this request. */
  queued: boolean;
  delivery: DeliveryView;
}

/**
 * Sends a FAILED delivery again now (docs/api/monitoring-and-notifications.md "Retrying a failed delivery"):
 * the delivery, locked, becomes RETRYING and due now, with an audit entry, in one transaction; after the commit
 * its attempt is queued (a queue that is down leaves it due for the next check_rules run) or, without a queue,
 * made in this request. Each retry is one more attempt: if it fails once `max_attempts` are spent, the
 * delivery is FAILED again. Any other status answers 409 `delivery_not_failed`; a channel that is inactive or
 * paused answers 409 `channel_inactive` / `channel_paused` (its deliveries would not go out).
 */
export async function retryDelivery(ctx: MonitorContext, identity: Identity, id: string): Promise<RetriedDelivery> {
  const retried = await ctx.sequelize.transaction(async (transaction) => {
    const delivery = await findOwned(NotificationDelivery, id, identity.companyId, { transaction, lock: true, what: 'Delivery' });
    if (delivery.status !== 'FAILED') {
      throw new ConflictError('delivery_not_failed', `Only a FAILED delivery can be retried; this one is ${delivery.status}.`, { status: delivery.status });
    }
    const channel = await NotificationChannel.findOne({ where: { id: delivery.channelId, companyId: identity.companyId }, transaction });
    if (!channel || !channel.isActive) {
      throw new ConflictError('channel_inactive', 'The channel is inactive; activate it (PATCH is_active: true) to retry its deliveries.', {
        is_active: false,
      });
    }
    if (channel.pausedAt) {
      throw new ConflictError('channel_paused', 'The channel is paused after repeated failed attempts; resume it (POST …/resume/) to retry its deliveries.', {
        state: 'paused',
        paused_at: channel.pausedAt.toISOString(),
      });
    }
    const before = auditedDelivery(delivery);
    await delivery.update({ status: 'RETRYING', nextAttemptAt: new Date() }, { transaction });
    await recordAudit(transaction, identity.companyId, identity, {
      action: 'retry',
      resourceType: 'notification_delivery',
      resourceId: delivery.id,
      before,
      after: auditedDelivery(delivery),
    });
    return delivery;
  });
  ctx.logger?.info({ delivery_id: retried.id, user_id: identity.principal.id }, 'failed delivery retried by an admin');
  try {
    await dispatchDeliveries(ctx.sequelize, [retried.id], ctx.config, ctx.queue, { logger: ctx.logger });
  } catch (err) {
    // Only the queue can fail here: the delivery is due in the outbox, and the next check_rules run queues it.
    if (!ctx.queue) throw err;
    ctx.logger?.warn({ delivery_id: retried.id, err: { message: (err as Error).message } }, 'retried delivery not queued; the next check_rules run queues it');
  }
  return { queued: ctx.queue !== undefined, delivery: await getDelivery(ctx, identity, retried.id) };
}
