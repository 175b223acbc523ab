/**
 * A recorded monitor run: what `npm run check_rules`, the Kubernetes CronJob and `npm start`'s scheduler
 * execute. It checks the companies one at a time through the run's entry point (`checkRules` with
 * `companyId`, under its advisory lock), so each company's numbers are exactly its own, and writes them to the
 * run log (check_rules_runs, one row per company) that `GET /api/v1/check-rules/runs/` shows each company.
 *
 * - Two recorded runs never overlap: a run takes an advisory lock of its own for its whole length, and a run
 *   that finds it taken does nothing (and records nothing), as a second `check_rules` always did.
 * - A company whose check finds `checkRules`' own lock taken (a direct caller of it is running) is `skipped`.
 * - A company whose check throws is `failed`; the run goes on with the next company and fails as a whole at
 *   the end (exit 1), so one company's trouble never stops the others from being checked.
 * - Only the latest RUNS_KEPT runs are kept.
 */
import type { Sequelize } from 'sequelize-typescript';
import type { DeliveryQueue, DeliverySettings } from '@pi/notify';
import { RunSummary, checkRules } from './run';
import { RunLock } from './run-lock';
import { companiesToCheck } from './facts';

export type RunTrigger = 'scheduler' | 'command';
export type CompanyRunStatus = 'completed' | 'failed' | 'skipped';

/** Runs kept in the log; older ones are deleted by each new run. */
export const RUNS_KEPT = 200;

/** The recorded run's own advisory lock (run.ts holds another one around each company's check). */
const RECORDED_RUN_LOCK_ID = 7_310_443;

/** The counts kept in the run log for each company (check_rules_run_companies' columns; run-metrics.ts reads them too). */
export const RUN_COUNTS = [
  'products_evaluated',
  'events_opened',
  'events_resolved',
  'deliveries_created',
  'due_deliveries',
  'delivered',
  'retrying',
  'failed',
  'enqueued',
] as const;
/** Counts the operator's summary adds (how the queue and the channels' breakers held deliveries back). */
const OPERATOR_COUNTS = [...RUN_COUNTS, 'already_queued', 'deferred', 'held', 'waiting_for_queue'] as const;
type Counts = Pick<RunSummary, (typeof OPERATOR_COUNTS)[number]>;

export interface CompanyRun extends Counts {
  companyId: string;
  status: CompanyRunStatus;
  startedAt: Date;
  error?: Error;
  queueError?: string | null;
}

export interface RecordedRun {
  /** Another recorded run was going on: nothing was checked or recorded. */
  skipped: boolean;
  id: string | null;
  trigger: RunTrigger;
  startedAt: Date;
  finishedAt: Date;
  companies: CompanyRun[];
  /** The companies' counts added up (for the operator's summary; never shown to a company). */
  totals: Counts;
  /** Why the queue could not be reached, when deliveries were left waiting for it. */
  queueError: string | null;
  /** Set when the run could not be written to the log (the checks themselves happened). */
  recordError?: Error;
}

export interface RecordedRunOptions {
  trigger: RunTrigger;
  companyId?: string;
  queue?: DeliveryQueue;
}

const zero = (): Counts => Object.fromEntries(OPERATOR_COUNTS.map((k) => [k, 0])) as Counts;

async function checkOne(sequelize: Sequelize, databaseUrl: string, settings: DeliverySettings, companyId: string, queue?: DeliveryQueue): Promise<CompanyRun> {
  const startedAt = new Date();
  try {
    const summary = await checkRules(sequelize, databaseUrl, settings, { companyId, queue });
    const counts = Object.fromEntries(OPERATOR_COUNTS.map((k) => [k, summary[k]])) as Counts;
    return { companyId, startedAt, status: summary.skipped ? 'skipped' : 'completed', queueError: summary.queue_error, ...counts };
  } catch (err) {
    return { companyId, startedAt, status: 'failed', error: err as Error, ...zero() };
  }
}

/** One row per run and per company, and the log cut to the latest RUNS_KEPT runs, in one transaction. */
async function writeRun(sequelize: Sequelize, run: RecordedRun): Promise<string> {
  return sequelize.transaction(async (transaction) => {
    const [[{ id }]] = (await sequelize.query(`INSERT INTO check_rules_runs (trigger, started_at, finished_at) VALUES ($1, $2, $3) RETURNING id`, {
      bind: [run.trigger, run.startedAt, run.finishedAt],
      transaction,
    })) as [Array<{ id: string }>, unknown];
    if (run.companies.length) {
      const column = (pick: (c: CompanyRun) => unknown) => run.companies.map(pick);
      // A company deleted during the run has nothing left to show: the join leaves it out.
      await sequelize.query(
        `INSERT INTO check_rules_run_companies (run_id, company_id, status, started_at, ${RUN_COUNTS.join(', ')})
         SELECT $1, u.company_id, u.status, u.started_at, ${RUN_COUNTS.map((k) => `u.${k}`).join(', ')}
           FROM unnest($2::uuid[], $3::varchar[], $4::timestamptz[], ${RUN_COUNTS.map((_, i) => `$${i + 5}::int[]`).join(', ')})
                AS u(company_id, status, started_at, ${RUN_COUNTS.join(', ')})
           JOIN companies c ON c.id = u.company_id`,
        {
          bind: [id, column((c) => c.companyId), column((c) => c.status), column((c) => c.startedAt), ...RUN_COUNTS.map((k) => column((c) => c[k]))],
          transaction,
        },
      );
    }
    await sequelize.query(`DELETE FROM check_rules_runs WHERE id IN (SELECT id FROM check_rules_runs ORDER BY started_at DESC, id DESC OFFSET $1)`, {
      bind: [RUNS_KEPT],
      transaction,
    });
    return id;
  });
}

/**
 * Checks every company (or `companyId` alone), then records the run; does nothing while another recorded run
 * holds the lock. Throws only if the lock or the company list cannot be had.
 */
export async function runCheckRules(sequelize: Sequelize, databaseUrl: string, settings: DeliverySettings, opts: RecordedRunOptions): Promise<RecordedRun> {
  const lock = new RunLock(databaseUrl, RECORDED_RUN_LOCK_ID);
  if (!(await lock.acquire())) {
    const now = new Date();
    return { skipped: true, id: null, trigger: opts.trigger, startedAt: now, finishedAt: now, companies: [], totals: zero(), queueError: null };
  }
  try {
    return await checkAndRecord(sequelize, databaseUrl, settings, opts);
  } finally {
    await lock.release();
  }
}

async function checkAndRecord(sequelize: Sequelize, databaseUrl: string, settings: DeliverySettings, opts: RecordedRunOptions): Promise<RecordedRun> {
  const startedAt = new Date();
  const companies: CompanyRun[] = [];
  for (const companyId of await companiesToCheck(sequelize, opts.companyId)) {
    companies.push(await checkOne(sequelize, databaseUrl, settings, companyId, opts.queue));
  }
  const totals = zero();
  for (const c of companies) for (const k of OPERATOR_COUNTS) totals[k] += c[k];
  const queueError = companies.find((c) => c.queueError)?.queueError ?? null;
  const run: RecordedRun = { skipped: false, id: null, trigger: opts.trigger, startedAt, finishedAt: new Date(), companies, totals, queueError };
  try {
    run.id = await writeRun(sequelize, run);
  } catch (err) {
    run.recordError = err as Error;
  }
  return run;
}
