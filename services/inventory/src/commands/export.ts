/**
 * The company export: every record of the caller's company as one JSON document, written to the response as
 * it is read. Nothing is held in memory beyond one chunk: each table is read through a server-side cursor,
 * CHUNK rows per FETCH, inside one REPEATABLE READ, READ ONLY transaction, so the document is a consistent
 * snapshot (a booking made during the export is either wholly in it or not at all). Writes wait for the
 * socket to drain, and a client that goes away stops the export and ends the transaction.
 */
import { QueryTypes, Transaction } from 'sequelize';
import { Company, Identity, ManagedTransactionOptions, NotFoundError } from '@pi/common';
import type { InventoryContext } from '../context';
import type { Writable } from 'node:stream';
import { toNumber } from '../engine/quantity';
import { presentLocation } from '../presenters/location';
import { presentProduct } from '../presenters/product';

/** Rows per FETCH. */
export const EXPORT_CHUNK = 1000;

type Row = Record<string, unknown>;

interface Section {
  key: string;
  /** A SELECT of the company's rows; `:company` is replaced by the escaped company id. */
  sql: string;
  present(row: Row): unknown;
}

const quantity = (value: unknown) => (value === null || value === undefined ? null : toNumber(value as string));

/**
 * The row as selected (its columns are already the export's snake_case keys, in order), with the named
 * NUMERIC/BIGINT columns, which pg returns as strings, turned into JSON numbers.
 */
const asSelected =
  (...numeric: string[]) =>
  (r: Row) => ({ ...r, ...Object.fromEntries(numeric.map((c) => [c, quantity(r[c])])) });

/** Sections in document order. Columns are aliased to what the presenters read. */
const SECTIONS: Section[] = [
  {
    key: 'product_models',
    sql: `SELECT id, sku, name, description, profile, engine_config AS "engineConfig", unit, decimals, is_active AS "isActive", barcode,
                 created_at AS "createdAt", updated_at AS "updatedAt"
            FROM product_models WHERE company_id = :company ORDER BY created_at, id`,
    present: (r) => presentProduct(r as Parameters<typeof presentProduct>[0]),
  },
  {
    key: 'locations',
    sql: `SELECT id, name, type, parent_id AS "parentId", system_role AS "systemRole", is_active AS "isActive", created_at AS "createdAt"
            FROM locations WHERE company_id = :company ORDER BY created_at, id`,
    present: (r) => presentLocation(r as Parameters<typeof presentLocation>[0]),
  },
  {
    key: 'batches',
    sql: `SELECT id, product_id, code, to_char(expiration_date, 'YYYY-MM-DD') AS expiration_date, created_at, updated_at
            FROM batches WHERE company_id = :company ORDER BY created_at, id`,
    present: asSelected(),
  },
  {
    key: 'physical_items',
    sql: `SELECT id, product_id, serial_number, location_id, is_active, retired_at, created_at, updated_at
            FROM physical_items WHERE company_id = :company ORDER BY created_at, id`,
    present: asSelected(),
  },
  {
    key: 'work_orders',
    sql: `SELECT id, number, title, status, product_id, quantity, to_char(due_date, 'YYYY-MM-DD') AS due_date, created_at, updated_at
            FROM work_orders WHERE company_id = :company ORDER BY created_at, id`,
    present: asSelected('quantity'),
  },
  {
    key: 'stock_balances',
    sql: `SELECT product_id, location_id, batch_id, quantity, updated_at
            FROM stock_balances WHERE company_id = :company ORDER BY product_id, location_id, batch_id NULLS FIRST`,
    present: asSelected('quantity'),
  },
  {
    key: 'stock_movements',
    sql: `SELECT id, seq, kind, product_id, from_location_id, to_location_id, quantity, batch_id, item_ids, reason,
                 actor_kind, actor_id, request_id, created_at
            FROM stock_movements WHERE company_id = :company ORDER BY seq`,
    present: asSelected('seq', 'quantity'),
  },
];

export const EXPORT_SECTIONS = SECTIONS.map((s) => s.key);

export interface ExportCompany {
  id: string;
  name: string;
}

export async function exportCompanyOf(_ctx: InventoryContext, identity: Identity): Promise<ExportCompany> {
  const company = await Company.findByPk(identity.companyId, { attributes: ['id', 'name'], raw: true });
  if (!company) throw new NotFoundError('Company not found.');
  return { id: company.id, name: company.name };
}

/**
 * `export-<company>-<YYYY-MM-DD>.json` (or another prefix and extension: the spreadsheet exports), with the
 * company name reduced to a safe slug (its id if none is left).
 */
export function exportFileName(company: ExportCompany, at: Date, prefix = 'export', extension = 'json'): string {
  const slug = company.name
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 60)
    .replace(/-+$/, '');
  return `${prefix}-${slug || company.id}-${at.toISOString().slice(0, 10)}.${extension}`;
}

/** The client went away: stop reading and end the transaction. */
export class ExportAbortedError extends Error {}

/** Writes with backpressure; fails once the destination is closed. */
export function writer(out: Writable) {
  let closed = false;
  out.once('close', () => {
    closed = true;
  });
  return async (text: string) => {
    if (closed || out.destroyed) throw new ExportAbortedError('the client closed the connection');
    if (out.write(text)) return;
    await new Promise<void>((resolve, reject) => {
      const onDrain = () => {
        out.off('close', onClose);
        resolve();
      };
      const onClose = () => {
        out.off('drain', onDrain);
        reject(new ExportAbortedError('the client closed the connection'));
      };
      out.once('drain', onDrain);
      out.once('close', onClose);
    });
  };
}

/**
 * Streams the export document of `company` to `out` (whose headers the caller has set) and ends it. Reads
 * only: the transaction is READ ONLY.
 */
export async function writeCompanyExport(ctx: InventoryContext, company: ExportCompany, out: Writable, exportedAt = new Date()): Promise<void> {
  const { sequelize } = ctx;
  const write = writer(out);
  // Streamed as it is read: never run twice (retry), and as long as it keeps sending it is not bounded by the
  // request's deadline (the gateway's timeout is one of inactivity); docs/api/deadlines-and-retries.md.
  const options: ManagedTransactionOptions = { isolationLevel: Transaction.ISOLATION_LEVELS.REPEATABLE_READ, retry: false, deadline: false };
  await sequelize.transaction(options, async (transaction) => {
    await sequelize.query('SET TRANSACTION READ ONLY', { transaction });
    await write(`{"company":${JSON.stringify({ id: company.id, name: company.name })},"exported_at":${JSON.stringify(exportedAt.toISOString())}`);
    for (const [index, section] of SECTIONS.entries()) {
      const cursor = `export_${index}`;
      await sequelize.query(`DECLARE ${cursor} NO SCROLL CURSOR FOR ${section.sql.replace(':company', sequelize.escape(company.id))}`, { transaction });
      await write(`,${JSON.stringify(section.key)}:[`);
      let first = true;
      for (;;) {
        const rows = await sequelize.query<Row>(`FETCH FORWARD ${EXPORT_CHUNK} FROM ${cursor}`, { type: QueryTypes.SELECT, transaction });
        if (!rows.length) break;
        const parts = rows.map((r) => JSON.stringify(section.present(r)));
        await write((first ? '' : ',') + parts.join(','));
        first = false;
        if (rows.length < EXPORT_CHUNK) break;
      }
      await sequelize.query(`CLOSE ${cursor}`, { transaction });
      await write(']');
    }
  });
  await write('}\n');
  out.end();
}
