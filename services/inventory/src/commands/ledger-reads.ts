/**
 * The ledger as a list: newest first (server sequence), filtered, one page at a time. Each entry comes with
 * the names of who booked it (docs/api/scanning.md): the user, or the API key; for a key minted by a QR scan
 * the code and the user who signed in inside the widget. Joined by primary key in the same statement.
 */
import { QueryTypes, Sequelize } from 'sequelize';
import { Identity, MovementKind, PageRequest, pageWindow } from '@pi/common';
import type { MovementRow } from '../ledger/movements';

/** A ledger entry with the names of who booked it. */
export interface LedgerEntryRow extends MovementRow {
  actor_username: string | null;
  actor_email: string | null;
  actor_key_name: string | null;
  actor_key_prefix: string | null;
  actor_qr_code: string | null;
  scan_user_id: string | null;
  scan_username: string | null;
  scan_user_email: string | null;
}

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
  const rows = await sequelize.query<LedgerEntryRow & { total_count: string }>(
    `SELECT m.*, count(*) OVER () AS total_count,
            u.username AS actor_username, u.email AS actor_email,
            k.name AS actor_key_name, k.prefix AS actor_key_prefix, k.qr_code AS actor_qr_code,
            su.id AS scan_user_id, su.username AS scan_username, su.email AS scan_user_email
       FROM stock_movements m
       LEFT JOIN users u ON m.actor_kind = 'user' AND u.id = m.actor_id AND u.company_id = m.company_id
       LEFT JOIN api_keys k ON m.actor_kind = 'api_key' AND k.id = m.actor_id AND k.company_id = m.company_id
       LEFT JOIN users su ON su.id = k.scan_user_id
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
