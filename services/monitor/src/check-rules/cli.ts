/**
 * `npm run check_rules [-- --company <id>]` (and the Kubernetes CronJob's command): one monitor run, recorded
 * in the run log (recorded-run.ts). Uses DATABASE_URL, or the settings of the standalone system of DATA_DIR
 * (its database, secrets and email settings: docs/operations/configuration.md). With REDIS_URL the deliveries are
 * enqueued for the notifier; without it they are sent here, synchronously. Prints a summary. Exit codes:
 * 0 done; 1 a company's check failed (a delivery that fails is reported, and retried by a later run, not a
 * failed run); 2 done, every event recorded, but deliveries wait in the outbox because the queue could not be
 * reached.
 *
 * `--scheduled` is how `npm start`'s scheduler runs it: the run is recorded as scheduled, and the summary is
 * one line, printed only when the run did something, so an idle system's output stays quiet.
 */
import './tracing'; // first: see tracing.ts
import { parseArgs } from 'node:util';
import Joi from 'joi';
import { connectDatabase, operatorMessage, shutdownTracing, validateValue, withSpan } from '@pi/common/core';
import { openDatabaseUrl, standaloneEnvironment } from '@pi/db';
import { deliveryQueueOf, loadMonitorSettings } from '../config';
import { RecordedRun, runCheckRules } from './recorded-run';

/** Exit code of a run that recorded everything but could not queue its deliveries (docs/api/monitoring-and-notifications.md, check_rules). */
const EXIT_DELIVERIES_WAITING = 2;

function summaryLines(run: RecordedRun, queued: boolean): string[] {
  const t = run.totals;
  const checked = run.companies.filter((c) => c.status !== 'skipped');
  if (run.skipped || (run.companies.length > 0 && checked.length === 0)) return ['check_rules: another run holds the lock; nothing done'];
  return [
    `companies: ${checked.length}`,
    `products evaluated: ${t.products_evaluated}`,
    `events opened: ${t.events_opened}`,
    `events resolved: ${t.events_resolved}`,
    `deliveries created: ${t.deliveries_created} (due from earlier runs: ${t.due_deliveries})`,
    queued
      ? `deliveries enqueued: ${t.enqueued} (already queued: ${t.already_queued})`
      : `deliveries sent: ${t.delivered}, retrying: ${t.retrying}, failed: ${t.failed}, deferred: ${t.deferred}`,
    ...(t.held > 0 ? [`deliveries held by paused channels: ${t.held}`] : []),
    ...(t.waiting_for_queue > 0 ? [`deliveries waiting for the queue: ${t.waiting_for_queue} (${run.queueError}); the next run queues them`] : []),
  ];
}

/** The scheduler's one line, or nothing when the run found nothing to do. */
function scheduledLine(run: RecordedRun, queued: boolean): string | undefined {
  const t = run.totals;
  const busy = t.events_opened + t.events_resolved + t.deliveries_created + t.due_deliveries + t.delivered + t.retrying + t.failed + t.enqueued;
  if (busy === 0) return undefined;
  const sent = queued ? `enqueued ${t.enqueued}` : `sent ${t.delivered}, retrying ${t.retrying}, failed ${t.failed}`;
  return (
    `check_rules: ${run.companies.length} companies, ${t.products_evaluated} products evaluated, ${t.events_opened} events opened, ` +
    `${t.events_resolved} resolved, ${t.deliveries_created} deliveries created (${t.due_deliveries} due from earlier runs), ${sent}`
  );
}

async function main(): Promise<number> {
  const { values } = parseArgs({ args: process.argv.slice(2), options: { company: { type: 'string' }, scheduled: { type: 'boolean' } } });
  const companyId = values.company === undefined ? undefined : validateValue(Joi.string().guid().required(), values.company, 'company');
  const env = standaloneEnvironment(process.env);
  // The monitor service's own settings and queue: the same loader, so the two cannot drift apart.
  const settings = loadMonitorSettings(env);
  const target = await openDatabaseUrl(env);
  const db = connectDatabase({ url: target.url, poolMax: 4, applicationName: 'pi-check-rules' });
  const queue = deliveryQueueOf(settings);
  try {
    const trigger = values.scheduled ? 'scheduler' : 'command';
    // The run's root span: the deliveries it queues or sends continue its trace.
    const run = await withSpan('check_rules', { attributes: { 'pi.check_rules.trigger': trigger } }, () =>
      runCheckRules(db.sequelize, target.url, settings, { companyId, queue, trigger }),
    );
    const lines = values.scheduled
      ? [scheduledLine(run, queue !== undefined)].filter((l): l is string => l !== undefined)
      : summaryLines(run, queue !== undefined);
    if (lines.length) process.stdout.write(`${lines.join('\n')}\n`);
    if (run.recordError) process.stderr.write(`check_rules: the run could not be recorded in the run log: ${run.recordError.message}\n`);
    const failed = run.companies.filter((c) => c.status === 'failed');
    for (const c of failed) process.stderr.write(`check_rules failed for company ${c.companyId}: ${operatorMessage(c.error)}\n`);
    if (failed.length) return 1;
    if (run.totals.waiting_for_queue > 0) {
      process.stderr.write(`check_rules: ${run.totals.waiting_for_queue} deliveries could not be queued and wait in the outbox\n`);
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
  async (code) => {
    await shutdownTracing(); // exports the run's spans
    process.exit(code);
  },
  async (err: Error) => {
    process.stderr.write(`check_rules failed: ${operatorMessage(err)}\n`);
    await shutdownTracing();
    process.exit(1);
  },
);
