/**
 * `npm run check_rules [-- --company <id>]` (and the Kubernetes CronJob's command): one monitor run. Uses
 * DATABASE_URL, or the standalone database and secrets of DATA_DIR. With REDIS_URL the deliveries are
 * enqueued for the notifier; without it they are sent here, synchronously. Prints a summary. Exit codes:
 * 0 done; 1 the run failed (a delivery that fails is reported, and retried by a later run, not a failed run);
 * 2 done, every event recorded, but deliveries wait in the outbox because the queue could not be reached.
 */
import { parseArgs } from 'node:util';
import Joi from 'joi';
import { connectDatabase, openDatabaseUrl, validateValue, withStandaloneSecrets } from '@pi/common';
import { deliveryQueueOf, loadMonitorSettings } from '../config';
import { RunSummary, checkRules } from './run';

/** Exit code of a run that recorded everything but could not queue its deliveries (README, check_rules). */
const EXIT_DELIVERIES_WAITING = 2;

function summaryLines(summary: RunSummary, queued: boolean): string[] {
  const lines = [
    `companies: ${summary.companies}`,
    `products evaluated: ${summary.products_evaluated}`,
    `events opened: ${summary.events_opened}`,
    `events resolved: ${summary.events_resolved}`,
    `deliveries created: ${summary.deliveries_created} (due from earlier runs: ${summary.due_deliveries})`,
    queued
      ? `deliveries enqueued: ${summary.enqueued} (already queued: ${summary.already_queued})`
      : `deliveries sent: ${summary.delivered}, retrying: ${summary.retrying}, failed: ${summary.failed}, deferred: ${summary.deferred}`,
  ];
  if (summary.held > 0) lines.push(`deliveries held by paused channels: ${summary.held}`);
  if (summary.waiting_for_queue > 0) lines.push(`deliveries waiting for the queue: ${summary.waiting_for_queue} (${summary.queue_error}); the next run queues them`);
  return lines;
}

async function main(): Promise<number> {
  const { values } = parseArgs({ args: process.argv.slice(2), options: { company: { type: 'string' } } });
  const companyId = values.company === undefined ? undefined : validateValue(Joi.string().guid().required(), values.company, 'company');
  const env = withStandaloneSecrets(process.env);
  // The monitor service's own settings and queue: the same loader, so the two cannot drift apart.
  const settings = loadMonitorSettings(env);
  const target = await openDatabaseUrl(env);
  const db = connectDatabase({ url: target.url, poolMax: 4 });
  const queue = deliveryQueueOf(settings);
  try {
    const summary = await checkRules(db.sequelize, target.url, settings, { companyId, queue });
    if (summary.skipped) {
      process.stdout.write('check_rules: another run holds the lock; nothing done\n');
      return 0;
    }
    process.stdout.write(summaryLines(summary, queue !== undefined).join('\n') + '\n');
    if (summary.waiting_for_queue > 0) {
      process.stderr.write(`check_rules: ${summary.waiting_for_queue} deliveries could not be queued and wait in the outbox\n`);
      return EXIT_DELIVERIES_WAITING;
    }
    return 0;
  } finally {
    await queue?.close();
    await db.close();
    await target.release();
  }
}

main().then(
  (code) => process.exit(code),
  (err: Error) => {
    process.stderr.write(`check_rules failed: ${err.message}\n`);
    process.exit(1);
  },
);
