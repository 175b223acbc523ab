/**
 * A product's balance at the end of each period (docs/api/stock-history.md), from the ledger alone, in one
 * statement: the periods come from generate_series, each movement's effect is summed per period (one pass
 * over the product's movements through stock_movements_product_seq_idx), and a running SUM over the periods
 * turns those into balances. Movements before the first period fall into it (GREATEST), so its balance
 * opens with everything booked before. Periods are UTC calendar days, ISO weeks (Monday) or months.
 *
 * A movement changes physical stock only: with a location, +quantity into it and -quantity out of it; over
 * all locations, +quantity into any physical location and -quantity out of any (the company's VIRTUAL
 * `Inbound`/`Outbound` are the ledger's other side), so transfers between physical locations cancel out and
 * the last balance equals the sum of stock_balances.
 */
import { QueryTypes, Sequelize } from 'sequelize';

export type HistoryInterval = 'day' | 'week' | 'month';

export interface HistoryRow {
  /** First day of the period, `YYYY-MM-DD`. */
  period: string;
  /** NUMERIC text. */
  quantity: string;
}

export interface HistoryRange {
  companyId: string;
  productId: string;
  locationId?: string;
  interval: HistoryInterval;
  /** First day of the first and of the last period. */
  firstPeriod: string;
  lastPeriod: string;
}

const STOCK_HISTORY_SQL = `
WITH periods AS (
  SELECT g::date AS period FROM generate_series($4::date::timestamp, $5::date::timestamp, ('1 ' || $6)::interval) g
),
virtual AS (
  SELECT id FROM locations WHERE company_id = $1 AND type = 'VIRTUAL'
),
moves AS (
  SELECT GREATEST(date_trunc($6, m.created_at AT TIME ZONE 'UTC')::date, $4::date) AS period,
         SUM(CASE
               WHEN $3::uuid IS NOT NULL THEN CASE WHEN m.to_location_id = $3::uuid THEN m.quantity ELSE -m.quantity END
               ELSE CASE WHEN m.to_location_id IN (SELECT id FROM virtual) THEN 0 ELSE m.quantity END
                  - CASE WHEN m.from_location_id IN (SELECT id FROM virtual) THEN 0 ELSE m.quantity END
             END) AS delta
    FROM stock_movements m
   WHERE m.company_id = $1 AND m.product_id = $2
     AND m.created_at < (($5::date + ('1 ' || $6)::interval) AT TIME ZONE 'UTC')
     AND ($3::uuid IS NULL OR m.from_location_id = $3::uuid OR m.to_location_id = $3::uuid)
   GROUP BY 1
)
SELECT to_char(p.period, 'YYYY-MM-DD') AS period, (SUM(COALESCE(mv.delta, 0)) OVER (ORDER BY p.period))::text AS quantity
  FROM periods p LEFT JOIN moves mv USING (period)
 ORDER BY p.period`;

/** The statement and its parameters (a test EXPLAINs them: the ledger is read through an index). */
export function stockHistoryStatement(r: HistoryRange): { sql: string; bind: unknown[] } {
  return { sql: STOCK_HISTORY_SQL, bind: [r.companyId, r.productId, r.locationId ?? null, r.firstPeriod, r.lastPeriod, r.interval] };
}

/** One row per period, oldest first. */
export function stockHistoryRows(sequelize: Sequelize, r: HistoryRange): Promise<HistoryRow[]> {
  const { sql, bind } = stockHistoryStatement(r);
  return sequelize.query<HistoryRow>(sql, { bind, type: QueryTypes.SELECT });
}
