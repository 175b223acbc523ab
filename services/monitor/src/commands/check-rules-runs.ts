/**
 * The run log as one company sees it: the runs that reached the company, newest first, with the company's
 * own numbers from each (check-rules/recorded-run.ts writes them). Another company's rows are never read.
 */
import { QueryTypes } from 'sequelize';
import { Identity, OrderTerm, PageRequest, orderBySql, pageWindow } from '@pi/common';
import type { MonitorContext } from '../context';
import { RUN_ORDERING } from './orderings';

export interface CompanyRunRow {
  run_id: string;
  trigger: 'scheduler' | 'command';
  run_started_at: Date;
  run_finished_at: Date;
  status: 'completed' | 'failed' | 'skipped';
  started_at: Date;
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

export async function listCheckRulesRuns(
  { sequelize }: MonitorContext,
  identity: Identity,
  page: PageRequest & { ordering?: OrderTerm[] },
): Promise<{ rows: CompanyRunRow[]; count: number }> {
  const { limit, offset } = pageWindow(page);
  const [rows, [{ count }]] = await Promise.all([
    sequelize.query<CompanyRunRow>(
      `SELECT rc.run_id, r.trigger, r.started_at AS run_started_at, r.finished_at AS run_finished_at, rc.status, rc.started_at,
              rc.products_evaluated, rc.events_opened, rc.events_resolved, rc.deliveries_created, rc.due_deliveries,
              rc.delivered, rc.retrying, rc.failed, rc.enqueued
         FROM check_rules_run_companies rc JOIN check_rules_runs r ON r.id = rc.run_id
        WHERE rc.company_id = $1
        ORDER BY ${orderBySql(RUN_ORDERING, page.ordering)}
        LIMIT $2 OFFSET $3`,
      { bind: [identity.companyId, limit, offset], type: QueryTypes.SELECT },
    ),
    sequelize.query<{ count: number }>(`SELECT count(*)::int AS count FROM check_rules_run_companies WHERE company_id = $1`, {
      bind: [identity.companyId],
      type: QueryTypes.SELECT,
    }),
  ]);
  return { rows, count };
}
