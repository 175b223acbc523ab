/**
 * The delivery log (read only): one delivery per (event, channel), with its numbered attempts. A page's
 * attempts are read in one query, never one per delivery.
 */
import type { WhereOptions } from 'sequelize';
import {
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
import { DELIVERY_ORDERING } from './orderings';

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
    order: [['deliveryId', 'ASC'], ['number', 'ASC']],
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
export async function listDeliveries(identity: Identity, filters: DeliveryFilters) {
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

export async function getDelivery(identity: Identity, id: string): Promise<DeliveryView> {
  const delivery = await findOwned(NotificationDelivery, id, identity.companyId, { what: 'Delivery' });
  return (await withAttempts([delivery]))[0];
}
