/** The ledger as a list: newest first (server sequence), filtered, one page at a time. */
import { QueryTypes, Sequelize } from 'sequelize';
import { Identity, MovementKind, PageRequest, pageWindow } from '@pi/common';
import type { MovementRow } from '../ledger/movements';

export interface MovementFilters extends PageRequest {
  product_id?: string;
  location_id?: string;
  batch_id?: string;
  kind?: MovementKind;
  created_after?: Date;
  created_before?: Date;
}

export async function listMovements(sequelize: Sequelize, identity: Identity, f: MovementFilters) {
  // Named records are the caller's: the route's ownedFilters step checked them (403 / 404).
  const { limit, offset } = pageWindow(f);
  const rows = await sequelize.query<MovementRow & { total_count: string }>(
    `SELECT m.*, count(*) OVER () AS total_count
       FROM stock_movements m
      WHERE m.company_id = $1
        AND ($2::uuid IS NULL OR m.product_id = $2::uuid)
        AND ($3::uuid IS NULL OR m.from_location_id = $3::uuid OR m.to_location_id = $3::uuid)
        AND ($4::uuid IS NULL OR m.batch_id = $4::uuid)
        AND ($5::text IS NULL OR m.kind = $5::text)
        AND ($6::timestamptz IS NULL OR m.created_at >= $6::timestamptz)
        AND ($7::timestamptz IS NULL OR m.created_at < $7::timestamptz)
      ORDER BY m.seq DESC
      LIMIT $8 OFFSET $9`,
    {
      bind: [identity.companyId, f.product_id ?? null, f.location_id ?? null, f.batch_id ?? null, f.kind ?? null, f.created_after ?? null, f.created_before ?? null, limit, offset],
      type: QueryTypes.SELECT,
    },
  );
  const count = rows.length ? Number(rows[0].total_count) : 0;
  return { rows, count };
}
