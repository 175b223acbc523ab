/**
 * Opening the events a run decided on, in bulk: one statement per chunk of a company's events inserts the
 * events and, for each event it actually opened, one PENDING delivery per active channel of the company
 * subscribed to its type, carrying the notification body. The statement is its own transaction, so a
 * chunk's events and their deliveries commit together (or not at all) before anything is dispatched.
 *
 * An event opens exactly once per (rule, product, batch) while one is OPEN or IGNORED: the partial unique
 * index decides (ON CONFLICT DO NOTHING), so an event some other run opened meanwhile gets no second
 * event and no deliveries. The products and channels are key-share-locked as the statement reads them: one
 * deleted since the run evaluated it gets no event or delivery (its delete came first), and a delete that
 * comes now waits for the statement; before, its reference failed the company's whole run.
 *
 * Event ids are made here, so the body each delivery sends (which names the event) is built before the
 * insert; a body whose event did not open is simply not used.
 */
import { randomUUID } from 'node:crypto';
import { QueryTypes } from 'sequelize';
import type { Sequelize } from 'sequelize-typescript';
import { buildEventBody } from '@pi/notify';
import type { EventToOpen, ProductFacts } from './evaluate';

/** Events per statement: bounds the statement's size (a body is about half a kilobyte). */
export const OPEN_CHUNK = 1000;

export interface EventOpening {
  product: ProductFacts;
  event: EventToOpen;
}

export interface OpenedEvents {
  opened: number;
  /** The deliveries created, in the order of the events, to dispatch once committed. */
  deliveryIds: string[];
}

const OPEN_EVENTS_SQL = `
WITH input AS (
  SELECT e.* FROM unnest($2::uuid[], $3::uuid[], $4::text[], $5::uuid[], $6::uuid[], $7::text[], $8::text[], $9::text[], $10::text[], $11::text[])
    WITH ORDINALITY AS e(id, rule_id, rule_source, product_id, batch_id, trigger_type, severity, message, details, body, n)
    JOIN product_models p ON p.id = e.product_id
   FOR KEY SHARE OF p
), opened AS (
  INSERT INTO event_log (id, company_id, rule_id, rule_source, product_id, batch_id, trigger_type, severity, message, details, status, created_at, updated_at)
  SELECT id, $1, rule_id, rule_source, product_id, batch_id, trigger_type, severity, message, details::jsonb, 'OPEN', $12, $12 FROM input ORDER BY n
  ON CONFLICT (rule_id, product_id, batch_id) WHERE status IN ('OPEN', 'IGNORED') DO NOTHING
  RETURNING id, trigger_type
), delivered AS (
  INSERT INTO notification_deliveries (company_id, channel_id, event_id, event_type, payload, status, attempts, max_attempts, next_attempt_at)
  SELECT $1, ch.id, o.id, o.trigger_type, i.body, 'PENDING', 0, ch.max_attempts, $12
    FROM opened o
    JOIN input i ON i.id = o.id
    JOIN notification_channels ch ON ch.company_id = $1 AND ch.is_active AND o.trigger_type = ANY (ch.events)
   ORDER BY i.n, ch.id
     FOR KEY SHARE OF ch
  ON CONFLICT (event_id, channel_id) WHERE event_id IS NOT NULL DO NOTHING
  RETURNING id
)
SELECT (SELECT count(*) FROM opened)::int AS opened, ARRAY(SELECT id FROM delivered) AS delivery_ids`;

async function openChunk(sequelize: Sequelize, companyId: string, chunk: EventOpening[], now: Date): Promise<OpenedEvents> {
  const ids = chunk.map(() => randomUUID());
  const column = <T>(pick: (o: EventOpening, i: number) => T) => chunk.map(pick);
  const bodies = column(({ product, event }, i) =>
    buildEventBody({
      eventId: ids[i],
      type: event.rule.triggerType,
      companyId,
      product: { id: product.id, sku: product.sku, name: product.name },
      message: event.message,
      severity: event.rule.severity,
      ruleId: event.rule.id,
      batchId: event.batchId,
      status: 'OPEN',
      createdAt: now,
    }),
  );
  const [row] = await sequelize.query<{ opened: number; delivery_ids: string[] }>(OPEN_EVENTS_SQL, {
    bind: [
      companyId,
      ids,
      column((o) => o.event.rule.id),
      column((o) => o.event.rule.source),
      column((o) => o.product.id),
      column((o) => o.event.batchId),
      column((o) => o.event.rule.triggerType),
      column((o) => o.event.rule.severity),
      column((o) => o.event.message),
      column((o) => JSON.stringify(o.event.details)),
      bodies,
      now,
    ],
    type: QueryTypes.SELECT,
  });
  return { opened: row.opened, deliveryIds: row.delivery_ids };
}

/** Opens `openings` (one company's) in chunks; answers how many opened and the deliveries created. */
export async function openEvents(sequelize: Sequelize, companyId: string, openings: EventOpening[], now: Date, chunkSize = OPEN_CHUNK): Promise<OpenedEvents> {
  const result: OpenedEvents = { opened: 0, deliveryIds: [] };
  for (let start = 0; start < openings.length; start += chunkSize) {
    const chunk = await openChunk(sequelize, companyId, openings.slice(start, start + chunkSize), now);
    result.opened += chunk.opened;
    result.deliveryIds.push(...chunk.deliveryIds);
  }
  return result;
}
