/**
 * The event log as users see it. Events are opened by check_rules; users move an OPEN event to RESOLVED
 * (the issue was addressed) or IGNORED (dismissed), and nothing else: every other move is 409
 * `invalid_transition` with the allowed next states. A move is one conditional UPDATE on `status = 'OPEN'`,
 * so of two racing requests exactly one wins.
 */
import { Op, WhereOptions } from 'sequelize';
import {
  EventLogEntry,
  EventStatus,
  Identity,
  InvalidTransitionError,
  OrderTerm,
  PageRequest,
  likePattern,
  sequelizeOrder,
  RuleTriggerType,
  Severity,
  findOwned,
  pageWindow,
} from '@pi/common';
import type { MonitorContext } from '../context';
import { EVENT_ORDERING } from './orderings';

/** Where each status may go by a user's hand. */
export const EVENT_TRANSITIONS: Readonly<Record<EventStatus, readonly EventStatus[]>> = {
  OPEN: ['RESOLVED', 'IGNORED'],
  RESOLVED: [],
  IGNORED: [],
};

export interface EventFilters extends PageRequest {
  status?: EventStatus;
  product_id?: string;
  rule_id?: string;
  trigger_type?: RuleTriggerType;
  severity?: Severity;
  created_after?: Date;
  created_before?: Date;
  search?: string;
  ordering?: OrderTerm[];
}

/** Newest first unless `ordering` says otherwise. */
export async function listEvents(_ctx: MonitorContext, identity: Identity, filters: EventFilters) {
  const where: Record<string | symbol, unknown> = { companyId: identity.companyId };
  if (filters.status) where.status = filters.status;
  if (filters.product_id) where.productId = filters.product_id;
  if (filters.rule_id) where.ruleId = filters.rule_id;
  if (filters.trigger_type) where.triggerType = filters.trigger_type;
  if (filters.severity) where.severity = filters.severity;
  const created: Record<symbol, Date> = {};
  if (filters.created_after) created[Op.gte] = filters.created_after;
  if (filters.created_before) created[Op.lt] = filters.created_before;
  if (Object.getOwnPropertySymbols(created).length) where.createdAt = created;
  if (filters.search) where.message = { [Op.iLike]: likePattern(filters.search) };
  return EventLogEntry.findAndCountAll({
    where: where as WhereOptions<EventLogEntry>,
    order: sequelizeOrder(EVENT_ORDERING, filters.ordering),
    ...pageWindow(filters),
    raw: true,
  });
}

export function getEvent(_ctx: MonitorContext, identity: Identity, id: string) {
  return findOwned(EventLogEntry, id, identity.companyId, { what: 'Event' });
}

/** OPEN → `to`, recording who and when; 403/404 for an event that is not the company's, 409 from any other status. */
export async function moveEvent(ctx: MonitorContext, identity: Identity, id: string, to: 'RESOLVED' | 'IGNORED'): Promise<EventLogEntry> {
  const [count, rows] = await EventLogEntry.update(
    { status: to, statusChangedBy: identity.principal.id, statusChangedAt: new Date() },
    { where: { id, companyId: identity.companyId, status: 'OPEN' }, returning: true },
  );
  if (count === 1) return rows[0];
  const current = await getEvent(ctx, identity, id);
  throw new InvalidTransitionError(`A ${current.status} event cannot become ${to}.`, current.status, EVENT_TRANSITIONS[current.status]);
}
