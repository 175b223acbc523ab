/**
 * `npm run check_rules [-- --company <id>]` (and the Kubernetes CronJob's command): one monitor run. Uses
 * DATABASE_URL, or the standalone database and secrets of DATA_DIR. With REDIS_URL the deliveries are
 * enqueued for the notifier; without it they are sent here, synchronously. Prints a summary; exits 1 if the
 * run failed (a delivery that fails is reported, and retried by a later run, not a failed run).
 */
import { parseArgs } from 'node:util';
import Joi from 'joi';
import { connectDatabase, openDatabaseUrl, validateValue, withStandaloneSecrets } from '@pi/common';
import { deliveryQueueOf, loadMonitorSettings } from '../config';
import { checkRules } from './run';

async function main(): Promise<number> {
  const { values } = parseArgs({ args: process.argv.slice(2), options: { company: { type: 'string' } } });
  const companyId = values.company === undefined ? undefined : validateValue(Joi.string().guid().required(), values.company, 'company');
  const env = withStandaloneSecrets(process.env);
  // The monitor service's own settings and queue: the same loader, so the two cannot drift apart.
  const settings = loadMonitorSettings(env);
  const target = await openDatabaseUrl(env);
  const db = connectDatabase({ url: target.url, poolMax: 4, applicationName: 'pi-check-rules' });
  const queue = deliveryQueueOf(settings);
  try {
    const summary = await checkRules(db.sequelize, target.url, settings, { companyId, queue });
    if (summary.skipped) {
      process.stdout.write('check_rules: another run holds the lock; nothing done\n');
      return 0;
    }
    process.stdout.write(
      [
        `companies: ${summary.companies}`,
        `products evaluated: ${summary.products_evaluated}`,
        `events opened: ${summary.events_opened}`,
        `events resolved: ${summary.events_resolved}`,
        `deliveries created: ${summary.deliveries_created} (due from earlier runs: ${summary.due_deliveries})`,
        queue ? `deliveries enqueued: ${summary.enqueued}` : `deliveries sent: ${summary.delivered}, retrying: ${summary.retrying}, failed: ${summary.failed}`,
      ].join('\n') + '\n',
    );
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
