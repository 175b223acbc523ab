/**
 * One monitor run (`check_rules`): take the advisory lock (two runs never overlap), send or enqueue every
 * due delivery first (the delivery table is the outbox: a queue that lost its data loses nothing), then
 * evaluate each product once, open events with one delivery per subscribed channel (in bulk, one statement
 * per chunk of a company's events: open-events.ts), resolve cleared events, and dispatch the new deliveries
 * after commit.
 *
 * Evaluation never depends on the queue: while Redis is down every company is still evaluated and every event
 * recorded; the deliveries stay due in the outbox and the summary says how many wait (dispatch.ts).
 */
import type { Sequelize } from 'sequelize-typescript';
import { EventLogEntry } from '@pi/common/core';
import { DeliverySettings, dueDeliveryIds, heldDeliveryCount } from '@pi/notify';
import type { DeliveryQueue } from '@pi/notify';
import { DispatchCounts, RunDispatcher, emptyDispatchCounts } from './dispatch';
import { EffectiveRule, effectiveRules } from '../rules/effective-rules';
import { evaluateProduct } from './evaluate';
import { companiesToCheck, liveEvents, productFacts } from './facts';
import { RunLock } from './run-lock';
import { EventOpening, openEvents } from './open-events';

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

async function checkCompany(sequelize: Sequelize, companyId: string, now: Date, summary: RunSummary): Promise<string[]> {
  const [products, rules, live] = await Promise.all([
    productFacts(sequelize, companyId),
    effectiveRules(sequelize, companyId),
    liveEvents(sequelize, companyId),
  ]);
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
