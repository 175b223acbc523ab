/**
 * One monitor run (`check_rules`): take the advisory lock (two runs never overlap), send or enqueue every
 * due delivery first (the delivery table is the outbox: a queue that lost its data loses nothing), then
 * evaluate each product once, open events with one delivery per subscribed channel (in one transaction
 * each), resolve cleared events, and dispatch the new deliveries after commit.
 */
import type { Transaction } from 'sequelize';
import type { Sequelize } from 'sequelize-typescript';
import { DeliverySettings, EventLogEntry, NotificationChannel, createDeliveries, buildEventBody, dispatchDeliveries, dueDeliveryIds } from '@pi/common';
import type { DeliveryQueue } from '@pi/common';
import { EffectiveRule, effectiveRules } from '../rules/effective-rules';
import { EventToOpen, ProductFacts, evaluateProduct } from './evaluate';
import { companiesToCheck, liveEvents, productFacts } from './facts';
import { RunLock } from './run-lock';


export interface RunOptions {
  companyId?: string;
  now?: Date;
  queue?: DeliveryQueue;
}

export interface RunSummary {
  skipped: boolean;
  companies: number;
  products_evaluated: number;
  events_opened: number;
  events_resolved: number;
  deliveries_created: number;
  due_deliveries: number;
  delivered: number;
  retrying: number;
  failed: number;
  enqueued: number;
}

function emptySummary(): RunSummary {
  return { skipped: false, companies: 0, products_evaluated: 0, events_opened: 0, events_resolved: 0, deliveries_created: 0, due_deliveries: 0, delivered: 0, retrying: 0, failed: 0, enqueued: 0 };
}

async function dispatch(sequelize: Sequelize, ids: string[], settings: DeliverySettings, summary: RunSummary, now: Date, queue?: DeliveryQueue) {
  if (!ids.length) return;
  const outcome = await dispatchDeliveries(sequelize, ids, settings, queue, { now });
  summary.delivered += outcome.delivered;
  summary.retrying += outcome.retrying;
  summary.failed += outcome.failed;
  summary.enqueued += outcome.enqueued;
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
      const due = await dueDeliveryIds(sequelize, now, 1000, opts.companyId);
      summary.due_deliveries = due.length;
      await dispatch(sequelize, due, settings, summary, now, opts.queue);
      for (const companyId of await companiesToCheck(sequelize, opts.companyId)) {
        summary.companies += 1;
        const created = await checkCompany(sequelize, companyId, now, summary);
        await dispatch(sequelize, created, settings, summary, now, opts.queue);
      }
      return summary;
    },
    () => ({ ...summary, skipped: true }),
  );
}
