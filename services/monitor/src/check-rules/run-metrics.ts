/**
 * check_rules as Prometheus sees it (docs/operations/metrics.md). The runs happen in short-lived processes
 * (the CronJob, `npm run check_rules`, `npm start`'s scheduler, which starts the command as a child) that no
 * scraper would ever catch alive, so the monitor service reports them from where every run is recorded: the
 * run log (check_rules_runs, recorded-run.ts), read at scrape time, one indexed query for the latest run.
 *
 * - `check_rules_last_run_timestamp_seconds`: when the latest run finished (alert when it is too old);
 * - `check_rules_last_run_duration_seconds`: how long it took;
 * - `check_rules_last_run_companies{status}`: companies `completed`, `failed`, `skipped`;
 * - `check_rules_last_run_results{result}`: products evaluated, events opened and resolved, deliveries
 *   created, due, delivered, retrying, failed and enqueued, added up over its companies.
 *
 * With no run recorded yet, or the database unreadable, the series are absent.
 */
import { Gauge } from 'prom-client';
import type { Sequelize } from 'sequelize';
import { QueryTypes } from 'sequelize';
import type { Logger, MetricsRegistry } from '@pi/common/core';
import { RUN_COUNTS, type CompanyRunStatus } from './recorded-run';

const STATUSES: CompanyRunStatus[] = ['completed', 'failed', 'skipped'];

type LastRun = { started: number; finished: number } & Record<CompanyRunStatus | (typeof RUN_COUNTS)[number], number>;

const LAST_RUN_SQL = `
  SELECT extract(epoch FROM r.started_at)::float8 AS started, extract(epoch FROM r.finished_at)::float8 AS finished,
         ${STATUSES.map((s) => `count(c.company_id) FILTER (WHERE c.status = '${s}')::int AS ${s}`).join(', ')},
         ${RUN_COUNTS.map((k) => `coalesce(sum(c.${k}), 0)::int AS ${k}`).join(', ')}
    FROM (SELECT id, started_at, finished_at FROM check_rules_runs ORDER BY started_at DESC, id DESC LIMIT 1) r
    LEFT JOIN check_rules_run_companies c ON c.run_id = r.id
   GROUP BY r.id, r.started_at, r.finished_at`;

export function registerCheckRulesMetrics(registry: MetricsRegistry, sequelize: Sequelize, logger?: Logger): void {
  let reading: Promise<LastRun | undefined> | undefined;
  let warned = false;
  const read = () => {
    if (!reading) {
      reading = sequelize
        .query<LastRun>(LAST_RUN_SQL, { type: QueryTypes.SELECT })
        .then((rows) => {
          warned = false;
          return rows[0];
        })
        .catch((err: Error) => {
          if (!warned) logger?.warn({ err: { message: err.message } }, 'metrics: the check_rules run log could not be read');
          warned = true;
          return undefined;
        });
      void reading.then(() => (reading = undefined));
    }
    return reading;
  };
  const gauge = (name: string, help: string, labelNames: string[], fill: (g: Gauge, run: LastRun) => void) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [registry],
      async collect() {
        const run = await read();
        this.reset();
        if (run) fill(this, run);
      },
    });
  gauge('check_rules_last_run_timestamp_seconds', 'When the latest recorded check_rules run finished (Unix time).', [], (g, run) => g.set(run.finished));
  gauge('check_rules_last_run_duration_seconds', 'How long the latest recorded check_rules run took.', [], (g, run) =>
    g.set(Math.max(0, run.finished - run.started)),
  );
  gauge('check_rules_last_run_companies', 'Companies of the latest check_rules run, by how their check ended.', ['status'], (g, run) => {
    for (const status of STATUSES) g.set({ status }, run[status]);
  });
  gauge('check_rules_last_run_results', 'What the latest check_rules run did, added up over its companies.', ['result'], (g, run) => {
    for (const result of RUN_COUNTS) g.set({ result }, run[result]);
  });
}
