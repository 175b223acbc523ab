/**
 * One monitor run (`check_rules`): take the advisory lock (two runs never overlap), send or enqueue every
 * due delivery first (the delivery table is the outbox: a queue that lost its data loses nothing), then
 * evaluate each product once, open events with one delivery per subscribed channel (in one transaction
 * each), resolve cleared events, and dispatch the new deliveries after commit.
 *
 * Evaluation never depends on the queue: while Redis is down every company is still evaluated and every event
 * recorded; the deliveries stay due in the outbox and the summary says how many wait (dispatch.ts).
 */
import type { Transaction } from 'sequelize';
import type { Sequelize } from 'sequelize-typescript';
import { DeliverySettings, EventLogEntry, NotificationChannel, createDeliveries, buildEventBody, dueDeliveryIds, heldDeliveryCount } from '@pi/common';
import type { DeliveryQueue } from '@pi/common';
import { DispatchCounts, RunDispatcher, emptyDispatchCounts } from './dispatch';
import { EffectiveRule, effectiveRules } from '../rules/effective-rules';
import { EventToOpen, ProductFacts, evaluateProduct } from './evaluate';
import { companiesToCheck, liveEvents, productFacts } from './facts';
import { RunLock } from './run-lock';


export interface RunOptions {
  companyId?: string;
  now?: Date;
  queue?: DeliveryQueue;
}

export interface RunSummary extends DispatchCounts {
  skipped: boolean;
  companies: number;
  products_evaluated: number;
  events_opened: number;
  events_resolved: number;
  deliveries_created: number;
  /** Deliveries due from earlier runs (retries, and what a queue lost), dispatched first. */
  due_deliveries: number;
  /** Due deliveries of paused channels: held (one per channel may go out as its probe). */
  held: number;
}

function emptySummary(): RunSummary {
  return {
    skipped: false,
    companies: 0,
    products_evaluated: 0,
    events_opened: 0,
    events_resolved: 0,
    deliveries_created: 0,
    due_deliveries: 0,
    held: 0,
    ...emptyDispatchCounts(),
  };
}

async function openEvent(sequelize: Sequelize, companyId: string, product: ProductFacts, e: EventToOpen, channels: NotificationChannel[], now: Date) {
  return sequelize.transaction(async (transaction: Transaction) => {
    // The partial unique index makes a concurrent duplicate a no-op instead of a second event.
    const [rows] = (await sequelize.query(
      `INSERT INTO event_log (company_id, rule_id, rule_source, product_id, batch_id, trigger_type, severity, message, details, status, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9::jsonb, 'OPEN', $10, $10)
       ON CONFLICT (rule_id, product_id, batch_id) WHERE status IN ('OPEN', 'IGNORED') DO NOTHING
       RETURNING id`,
      {
        bind: [companyId, e.rule.id, e.rule.source, product.id, e.batchId, e.rule.triggerType, e.rule.severity, e.message, JSON.stringify(e.details), now],
        transaction,
      },
    )) as [Array<{ id: string }>, unknown];
    if (!rows.length) return { opened: false, deliveries: [] };
    const body = buildEventBody({
      eventId: rows[0].id,
      type: e.rule.triggerType,
      companyId,
      product: { id: product.id, sku: product.sku, name: product.name },
      message: e.message,
      severity: e.rule.severity,
      ruleId: e.rule.id,
      batchId: e.batchId,
      status: 'OPEN',
      createdAt: now,
    });
    const deliveries = await createDeliveries(sequelize, transaction, { companyId, eventId: rows[0].id, eventType: e.rule.triggerType, body, channels, now });
    return { opened: true, deliveries };
  });
}

async function checkCompany(sequelize: Sequelize, companyId: string, now: Date, summary: RunSummary): Promise<string[]> {
  const [products, rules, live, channels] = await Promise.all([
    productFacts(sequelize, companyId),
    effectiveRules(sequelize, companyId),
    liveEvents(sequelize, companyId),
    NotificationChannel.findAll({ where: { companyId, isActive: true } }),
  ]);
  const rulesByProduct = new Map<string, EffectiveRule[]>();
  for (const rule of rules) rulesByProduct.set(rule.productId, [...(rulesByProduct.get(rule.productId) ?? []), rule]);
  const newDeliveries: string[] = [];
  const toResolve: string[] = [];
  for (const product of products) {
    summary.products_evaluated += 1;
    const decisions = evaluateProduct(product, rulesByProduct.get(product.id) ?? [], live.get(product.id) ?? [], now);
    toResolve.push(...decisions.resolve);
    for (const e of decisions.open) {
      const { opened, deliveries } = await openEvent(sequelize, companyId, product, e, channels, now);
      if (opened) summary.events_opened += 1;
      summary.deliveries_created += deliveries.length;
      newDeliveries.push(...deliveries.map((d) => d.id));
    }
  }
  if (toResolve.length) {
    const [resolved] = await EventLogEntry.update(
      { status: 'RESOLVED', statusChangedAt: now, statusChangedBy: null },
      { where: { id: toResolve, status: ['OPEN', 'IGNORED'] } },
    );
    summary.events_resolved += resolved;
  }
  return newDeliveries;
}

/** A session-level advisory lock on a connection of its own, held for the whole run (run-lock.ts). */
async function withRunLock<T>(databaseUrl: string, whenLocked: () => Promise<T>, whenBusy: () => T): Promise<T> {
  const lock = new RunLock(databaseUrl);
  if (!(await lock.acquire())) return whenBusy();
  try {
    return await whenLocked();
  } finally {
    await lock.release();
  }
}

export function checkRules(sequelize: Sequelize, databaseUrl: string, settings: DeliverySettings, opts: RunOptions = {}): Promise<RunSummary> {
  const summary = emptySummary();
  const now = opts.now ?? new Date();
  return withRunLock(
    databaseUrl,
    async () => {
      const dispatcher = new RunDispatcher(sequelize, settings, summary, now, opts.queue);
      const due = await dueDeliveryIds(sequelize, now, 1000, opts.companyId);
      summary.due_deliveries = due.length;
      summary.held = await heldDeliveryCount(sequelize, now, opts.companyId);
      await dispatcher.dispatch(due);
      for (const companyId of await companiesToCheck(sequelize, opts.companyId)) {
        summary.companies += 1;
        const created = await checkCompany(sequelize, companyId, now, summary);
        await dispatcher.dispatch(created);
      }
      return summary;
    },
    () => ({ ...summary, skipped: true }),
  );
}
