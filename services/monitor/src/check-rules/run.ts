/**
 * One monitor run (`check_rules`): take the advisory lock (two runs never overlap), send or enqueue every
 * due delivery first (the delivery table is the outbox: a queue that lost its data loses nothing), then
 * evaluate each product once, open events with one delivery per subscribed channel (in bulk, one statement
 * per chunk of a company's events: open-events.ts), resolve cleared events, and dispatch the new deliveries
 * after commit.
 */
import { Client } from 'pg';
import type { Sequelize } from 'sequelize-typescript';
import { DeliverySettings, EventLogEntry, dispatchDeliveries, dueDeliveryIds } from '@pi/common';
import type { DeliveryQueue } from '@pi/common';
import { EffectiveRule, effectiveRules } from '../rules/effective-rules';
import { evaluateProduct } from './evaluate';
import { companiesToCheck, liveEvents, productFacts } from './facts';
import { EventOpening, openEvents } from './open-events';

const RUN_LOCK_ID = 7_310_442;

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

async function checkCompany(sequelize: Sequelize, companyId: string, now: Date, summary: RunSummary): Promise<string[]> {
  const [products, rules, live] = await Promise.all([productFacts(sequelize, companyId), effectiveRules(sequelize, companyId), liveEvents(sequelize, companyId)]);
  const rulesByProduct = new Map<string, EffectiveRule[]>();
  for (const rule of rules) rulesByProduct.set(rule.productId, [...(rulesByProduct.get(rule.productId) ?? []), rule]);
  const toOpen: EventOpening[] = [];
  const toResolve: string[] = [];
  for (const product of products) {
    summary.products_evaluated += 1;
    const decisions = evaluateProduct(product, rulesByProduct.get(product.id) ?? [], live.get(product.id) ?? [], now);
    toResolve.push(...decisions.resolve);
    for (const event of decisions.open) toOpen.push({ product, event });
  }
  const { opened, deliveryIds: newDeliveries } = await openEvents(sequelize, companyId, toOpen, now);
  summary.events_opened += opened;
  summary.deliveries_created += newDeliveries.length;
  if (toResolve.length) {
    const [resolved] = await EventLogEntry.update(
      { status: 'RESOLVED', statusChangedAt: now, statusChangedBy: null },
      { where: { id: toResolve, status: ['OPEN', 'IGNORED'] } },
    );
    summary.events_resolved += resolved;
  }
  return newDeliveries;
}

/** A session-level advisory lock on a connection of its own, held for the whole run. */
async function withRunLock<T>(databaseUrl: string, whenLocked: () => Promise<T>, whenBusy: () => T): Promise<T> {
  const client = new Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ locked: boolean }>('SELECT pg_try_advisory_lock($1) AS locked', [RUN_LOCK_ID]);
    if (!rows[0].locked) return whenBusy();
    try {
      return await whenLocked();
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [RUN_LOCK_ID]);
    }
  } finally {
    await client.end();
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
