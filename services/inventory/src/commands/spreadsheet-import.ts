/**
 * The spreadsheet imports (docs/api/spreadsheets.md): locations, and opening stock booked through the ledger.
 * Like the product import (commands/import.ts): every row is checked first and any problem refuses the whole
 * file with 400 `import_failed` naming each problem by row (1-based data row) and column; a dry run checks
 * and writes nothing; a real run writes every row in one transaction, or none.
 */
import { randomUUID } from 'node:crypto';
import { Op, QueryTypes, col, fn, where as sqlWhere } from 'sequelize';
import type { Sequelize, Transaction } from 'sequelize';
import { AppError, Identity, Location, LocationType, PHYSICAL_LOCATION_TYPES, ProductModel, recordAudits, textProblem } from '@pi/common';
import type { InventoryContext } from '../context';
import { importedCell } from '../csv/cells';
import { calendarDate } from '../http/calendar-date';
import { MAX_QUANTITY, decimalPlaces, toDecimal } from '../engine/quantity';
import { bookInMany } from '../ledger/book-many';
import type { BookingContext } from '../ledger/context';
import { answerOncePerKey, type KeyedAnswer } from '../ledger/idempotency';
import { ledgerContext, type RequestOrigin } from './bookings';
import { auditedLocation } from './locations';
import { serverErrorOf } from '../sql/client';
import { ImportFailedError, byRow, type RowProblem } from './import-rows';
import { presentLocation } from '../presenters/location';
import { CsvHeaderShape, readCsvTable } from '../csv/table';

type Cells = Record<string, string>;

/**
 * The data rows of a CSV import, by column name, and the header's number of columns; header problems answer
 * 400 `validation_error`.
 */
function readCsv(text: string, shape: CsvHeaderShape): { rows: Cells[]; width: number } {
  const { header, rows } = readCsvTable(text, shape);
  const cellsByColumn = rows.map((cells) => {
    const row: Cells = {};
    header.forEach((column, c) => {
      if (shape.columns.includes(column) && cells[c] !== undefined && cells[c] !== '') row[column] = importedCell(cells[c]);
    });
    if (cells.length !== header.length) row['#cells'] = String(cells.length);
    return row;
  });
  return { rows: cellsByColumn, width: header.length };
}

/** Checks every row with `check`, which adds problems; returns its values when there are none. */
function checkRows<T>(
  rows: Cells[],
  headerLength: number,
  check: (cells: Cells, row: number, problem: (field: string, message: string) => void) => T | undefined,
) {
  const problems: RowProblem[] = [];
  const values = rows.map((cells, i) => {
    const row = i + 1;
    const problem = (field: string, message: string) => problems.push({ row, field, message });
    if (cells['#cells'] !== undefined) problem('row', `has ${cells['#cells']} cells but the header has ${headerLength} columns`);
    for (const [column, value] of Object.entries(cells)) {
      const issue = column === '#cells' ? undefined : textProblem(value);
      if (issue) problem(column, `${column} ${issue}`);
    }
    return check(cells, row, problem);
  });
  return { problems, values };
}

/** A name as the import compares it: ignoring case, like the `location_name` filter. */
const key = (name: string) => name.toLowerCase();

/** The names a column of the rows gives, each once, as the import compares them. */
const namesIn = (rows: Cells[], column: string) => [...new Set(rows.flatMap((r) => (r[column] === undefined ? [] : [key(r[column])])))];

// ---------------------------------------------------------------------------------------------------------
// Locations

export const LOCATION_CSV: CsvHeaderShape = { columns: ['name', 'type', 'parent'], required: ['name', 'type'] };

interface NewLocationRow {
  row: number;
  id: string;
  name: string;
  type: LocationType;
  /** The parent: an existing location's id, or the row of the file that creates it. */
  parent: { id: string } | null;
}

export type LocationImportResult =
  { dry_run: true; imported: 0; would_import: number } | { dry_run: false; imported: number; locations: Array<ReturnType<typeof presentLocation>> };

/** Every row checked against the company's locations, read (and share-locked) in `transaction`. */
async function checkLocationRows(sequelize: Sequelize, identity: Identity, rows: Cells[], width: number, transaction: Transaction): Promise<NewLocationRow[]> {
  const parentNames = namesIn(rows, 'parent');
  // The existing locations a row names as parent are share-locked, so none is renamed before the commit.
  const existing = parentNames.length
    ? await sequelize.query<{ id: string; name: string; type: string }>(
        'SELECT id, name, type FROM locations WHERE company_id = $1 AND lower(name) = ANY($2::text[]) ORDER BY id FOR SHARE',
        { bind: [identity.companyId, parentNames], type: QueryTypes.SELECT, transaction },
      )
    : [];
  const existingByName = new Map<string, Array<{ id: string; type: string }>>();
  for (const l of existing) existingByName.set(key(l.name), [...(existingByName.get(key(l.name)) ?? []), l]);
  const fileByName = new Map<string, Array<{ row: number; id: string }>>();

  const { problems, values } = checkRows(rows, width, (cells, row, problem) => {
    const name = cells.name;
    const type = cells.type?.toUpperCase();
    if (name === undefined) problem('name', 'name is required');
    else if (name.length > 200) problem('name', 'must be at most 200 characters');
    if (type === undefined) problem('type', 'type is required');
    else if (!(PHYSICAL_LOCATION_TYPES as readonly string[]).includes(type)) problem('type', `must be one of ${PHYSICAL_LOCATION_TYPES.join(', ')}`);
    let parent: NewLocationRow['parent'] = null;
    if (cells.parent !== undefined) {
      const inCompany = existingByName.get(key(cells.parent)) ?? [];
      const inFile = fileByName.get(key(cells.parent)) ?? [];
      const found = inCompany.length + inFile.length;
      if (found === 0) {
        const later = rows.findIndex((r, i) => i >= row && r.name !== undefined && key(r.name) === key(cells.parent));
        problem('parent', later >= 0 ? `is created by row ${later + 1}: a parent must come before its children` : `no location is named '${cells.parent}'`);
      } else if (found > 1) {
        problem('parent', `'${cells.parent}' names ${found} locations; rename them or create the parent in this file with a unique name`);
      } else if (inCompany[0]?.type === 'VIRTUAL') {
        problem('parent', 'must be a physical location');
      } else {
        parent = { id: inCompany[0]?.id ?? inFile[0].id };
      }
    }
    const id = randomUUID();
    if (name !== undefined) fileByName.set(key(name), [...(fileByName.get(key(name)) ?? []), { row, id }]);
    return { row, id, name: name ?? '', type: type as LocationType, parent };
  });
  if (problems.length) throw new ImportFailedError(problems.sort(byRow));
  return values as NewLocationRow[];
}

/** Creates the checked rows in file order, each with its audit entry; answers them as the API shows a location. */
async function createLocations(identity: Identity, valid: NewLocationRow[], transaction: Transaction): Promise<LocationImportResult> {
  const created = await Location.bulkCreate(
    valid.map((r) => ({ id: r.id, companyId: identity.companyId, name: r.name, type: r.type, parentId: r.parent?.id ?? null, isActive: true })),
    { transaction, returning: true },
  );
  await recordAudits(
    transaction,
    identity.companyId,
    identity,
    created.map((l) => ({ action: 'create' as const, resourceType: 'location' as const, resourceId: l.id, after: auditedLocation(l) })),
  );
  return { imported: created.length, dry_run: false, locations: created.map(presentLocation) };
}

/**
 * Locations from CSV (`name, type, parent`), created in file order. `parent` is a location's name, ignoring
 * case: one the company has, or one created by an earlier row; a name that means more than one is refused.
 * Names need not be unique, so a file imported twice creates its locations twice: a retry after an answer
 * that never came carries the first one's Idempotency-Key and answers that import again.
 */
export async function importLocations(
  ctx: InventoryContext,
  identity: Identity,
  text: string,
  dryRun: boolean,
  origin: RequestOrigin,
): Promise<KeyedAnswer<LocationImportResult>> {
  const { sequelize } = ctx;
  const { rows, width } = readCsv(text, LOCATION_CSV);
  return sequelize.transaction(async (transaction): Promise<KeyedAnswer<LocationImportResult>> => {
    if (dryRun) {
      const valid = await checkLocationRows(sequelize, identity, rows, width, transaction);
      return { replayed: false, body: { dry_run: true, imported: 0, would_import: valid.length } };
    }
    return answerOncePerKey(ledgerContext(ctx, identity, origin.requestId), transaction, origin.idempotency, async () =>
      createLocations(identity, await checkLocationRows(sequelize, identity, rows, width, transaction), transaction),
    );
  });
}

// ---------------------------------------------------------------------------------------------------------
// Opening stock

export const STOCK_CSV: CsvHeaderShape = {
  columns: ['sku', 'location', 'quantity', 'batch_code', 'expiration_date', 'reason'],
  required: ['sku', 'location', 'quantity'],
  // The stock export's other columns (commands/spreadsheet-export.ts), so that its file imports as it is.
  ignored: ['product_name', 'location_type', 'unit', 'product_id', 'location_id', 'batch_id'],
};

export const OPENING_STOCK_REASON = 'Opening stock';

interface StockRow {
  row: number;
  product: ProductModel;
  location: Location;
  quantity: number;
  batch?: { code: string; expiration_date: string | null };
  reason: string;
}

export interface OpeningBooking {
  row: number;
  movement_id: string;
  sku: string;
  location: string;
  batch_code: string | null;
  quantity: number;
  /** The product's stock at the location after the import (all batches). */
  quantity_at_location: number;
}

export type OpeningStockResult = { dry_run: true; imported: 0; would_import: number } | { dry_run: false; imported: number; bookings: OpeningBooking[] };

const QUANTITY_CELL = /^(\d+(\.\d*)?|\.\d+)$/;
const RETRYABLE = new Set(['40P01', '40001']);

/** The records the rows name, read in three statements whatever the number of rows. */
async function namedRecords(sequelize: Sequelize, companyId: string, rows: Cells[], transaction?: Transaction) {
  const skus = namesIn(rows, 'sku');
  const names = namesIn(rows, 'location');
  const codes = [...new Set(rows.map((r) => r.batch_code).filter((s): s is string => s !== undefined))];
  // One after the other: inside a transaction they share its connection.
  const products = await ProductModel.findAll({ where: { companyId, [Op.and]: [sqlWhere(fn('lower', col('sku')), { [Op.in]: skus })] }, transaction });
  const locations = await Location.findAll({ where: { companyId, [Op.and]: [sqlWhere(fn('lower', col('name')), { [Op.in]: names })] }, transaction });
  const batches = await sequelize.query<{ code: string; product_id: string; expiration_date: string | null }>(
    "SELECT code, product_id, to_char(expiration_date, 'YYYY-MM-DD') AS expiration_date FROM batches WHERE company_id = $1 AND code = ANY($2::text[])",
    { bind: [companyId, codes], type: QueryTypes.SELECT, transaction },
  );
  return { products, locations, batches: new Map(batches.map((b) => [b.code, b])) };
}

/** The one record a name means: exactly as written if one is, else ignoring case if just one is. */
function oneNamed<T>(records: T[], name: string, nameOf: (r: T) => string): T[] {
  const exact = records.filter((r) => nameOf(r) === name);
  return exact.length === 1 ? exact : records.filter((r) => key(nameOf(r)) === key(name));
}

async function checkStockRows(sequelize: Sequelize, identity: Identity, rows: Cells[], width: number, transaction?: Transaction): Promise<StockRow[]> {
  const { products, locations, batches } = await namedRecords(sequelize, identity.companyId, rows, transaction);
  /** Batches the file creates: code → the row, product and date that first named it. */
  const fileBatches = new Map<string, { row: number; productId: string; expiration: string | null }>();
  const { problems, values } = checkRows(rows, width, (cells, row, problem) => {
    let product: ProductModel | undefined;
    if (cells.sku === undefined) problem('sku', 'sku is required');
    else {
      const found = oneNamed(products, cells.sku, (p) => p.sku);
      if (found.length !== 1)
        problem(
          'sku',
          found.length ? `'${cells.sku}' matches ${found.length} products ignoring case; write it exactly` : `no product has the sku '${cells.sku}'`,
        );
      else if (!found[0].isActive) problem('sku', 'the product is deactivated');
      else if (found[0].profile === 'SERIALIZED') problem('sku', 'SERIALIZED products are added as items with their serial numbers, not as opening stock');
      else product = found[0];
    }
    let location: Location | undefined;
    if (cells.location === undefined) problem('location', 'location is required');
    else {
      // Physical locations only: the ledger's Inbound and Outbound never hold stock, whatever a location is named.
      const found = oneNamed(
        locations.filter((l) => l.type !== 'VIRTUAL'),
        cells.location,
        (l) => l.name,
      );
      if (found.length > 1) problem('location', `'${cells.location}' names ${found.length} locations; rename them so that each name means one`);
      else if (!found.length)
        problem(
          'location',
          locations.some((l) => l.type === 'VIRTUAL' && key(l.name) === key(cells.location))
            ? 'must be a physical location'
            : `no location is named '${cells.location}'`,
        );
      else if (!found[0].isActive) problem('location', 'the location is deactivated');
      else location = found[0];
    }
    let quantity: number | undefined;
    if (cells.quantity === undefined) problem('quantity', 'quantity is required');
    else if (!QUANTITY_CELL.test(cells.quantity) || Number(cells.quantity) <= 0)
      problem('quantity', `must be a number greater than 0, not '${cells.quantity}'`);
    else if (Number(cells.quantity) > MAX_QUANTITY) problem('quantity', `must be at most ${MAX_QUANTITY}`);
    else if (product && decimalPlaces(Number(cells.quantity)) > product.decimals)
      problem('quantity', `has more than the product's ${product.decimals} decimal place(s)`);
    else quantity = Number(cells.quantity);
    let expiration: string | null = null;
    if (cells.expiration_date !== undefined) {
      const { error } = calendarDate.validate(cells.expiration_date);
      if (error) problem('expiration_date', `must be a calendar date YYYY-MM-DD, not '${cells.expiration_date}'`);
      else expiration = cells.expiration_date;
      if (cells.batch_code === undefined) problem('expiration_date', "is a batch's: give batch_code too");
    }
    let batch: StockRow['batch'];
    if (product?.profile === 'BATCH') {
      const code = cells.batch_code;
      if (code === undefined) problem('batch_code', 'a BATCH product needs a batch code');
      else if (code.length > 100) problem('batch_code', 'must be at most 100 characters');
      else {
        const stored = batches.get(code);
        const earlier = fileBatches.get(code);
        if (stored && stored.product_id !== product.id) problem('batch_code', 'is used by another product');
        else if (stored && expiration && stored.expiration_date !== expiration)
          problem('expiration_date', `batch ${code} expires on ${stored.expiration_date ?? 'no date'}`);
        else if (!stored && earlier && earlier.productId !== product.id) problem('batch_code', `row ${earlier.row} uses it for another product`);
        else if (!stored && earlier && expiration && earlier.expiration !== expiration)
          problem('expiration_date', `row ${earlier.row} gives batch ${code} another expiration date`);
        else {
          if (!stored && !earlier) fileBatches.set(code, { row, productId: product.id, expiration });
          batch = { code, expiration_date: expiration };
        }
      }
    } else if (product && cells.batch_code !== undefined) problem('batch_code', `only BATCH products have batches; this one is ${product.profile}`);
    const reason = cells.reason ?? OPENING_STOCK_REASON;
    if (reason.length > 500) problem('reason', 'must be at most 500 characters');
    return product && location && quantity !== undefined ? { row, product, location, quantity, batch, reason } : undefined;
  });
  if (problems.length) throw new ImportFailedError(problems.sort(byRow));
  return values as StockRow[];
}

/** A refusal of the ledger while booking a row, named by the row and the CSV column. */
function rowProblemOf(err: unknown, row: number): ImportFailedError | undefined {
  if (!(err instanceof AppError) || err.status >= 500) return undefined;
  const details = (err.details ?? {}) as Record<string, unknown>;
  const column = (field: string) =>
    field.startsWith('batch')
      ? field.endsWith('expiration_date')
        ? 'expiration_date'
        : 'batch_code'
      : field.includes('location')
        ? 'location'
        : field === 'product_id'
          ? 'sku'
          : field;
  const fields = Object.entries(details).filter(([, v]) => typeof v === 'string');
  const problems = fields.length ? fields.map(([f, v]) => ({ row, field: column(f), message: v as string })) : [{ row, field: 'row', message: err.message }];
  return new ImportFailedError(problems);
}

/** Books every row of the file in `transaction` (the rows are checked again there, against what is locked). */
async function bookOpeningStock(booking: BookingContext, transaction: Transaction, rows: Cells[], width: number): Promise<OpeningStockResult> {
  const { sequelize, identity } = booking;
  const valid = await checkStockRows(sequelize, identity, rows, width, transaction);
  // Products are share-locked as any booking's (ledger/targets.ts), so a change of profile or decimals
  // waits for the import; all of them at once, in id order.
  const productIds = [...new Set(valid.map((r) => r.product.id))].sort();
  await sequelize.query('SELECT 1 FROM product_models WHERE id = ANY($1::uuid[]) ORDER BY id FOR SHARE', { bind: [productIds], transaction });
  const lines = valid.map((r) => ({
    product: r.product,
    locationId: r.location.id,
    batch: r.batch,
    quantity: toDecimal(r.quantity, r.product.decimals),
    reason: r.reason,
  }));
  const movements = await bookInMany(booking, transaction, lines, 'ADD', (err, i) => rowProblemOf(err, valid[i].row) ?? err);
  const booked = valid.map((row, i) => ({ row, movement: movements[i] }));
  // The stock each product then has at each location, in one statement.
  const totals = await sequelize.query<{ product_id: string; location_id: string; quantity: string }>(
    `SELECT product_id, location_id, SUM(quantity)::text AS quantity FROM stock_balances
      WHERE company_id = $1 AND product_id = ANY($2::uuid[]) AND location_id = ANY($3::uuid[]) GROUP BY product_id, location_id`,
    { bind: [identity.companyId, productIds, [...new Set(valid.map((r) => r.location.id))]], type: QueryTypes.SELECT, transaction },
  );
  const at = new Map(totals.map((t) => [`${t.product_id}/${t.location_id}`, Number(t.quantity)]));
  const bookings: OpeningBooking[] = booked.map(({ row: r, movement }) => ({
    row: r.row,
    movement_id: movement.id,
    sku: r.product.sku,
    location: r.location.name,
    batch_code: r.batch?.code ?? null,
    quantity: Number(movement.quantity),
    quantity_at_location: at.get(`${r.product.id}/${r.location.id}`) ?? 0,
  }));
  return { dry_run: false, imported: bookings.length, bookings };
}

/**
 * Opening stock from CSV (`sku, location, quantity, batch_code, expiration_date, reason`): one addition per
 * row from the company's Inbound to the location, booked by the ledger's own code (ledger/book-many.ts: the
 * rows and balances `bookIn` would write, in three statements), all in one transaction.
 */
export async function importOpeningStock(
  ctx: InventoryContext,
  identity: Identity,
  text: string,
  dryRun: boolean,
  origin: RequestOrigin,
): Promise<KeyedAnswer<OpeningStockResult>> {
  const { sequelize } = ctx;
  const booking = ledgerContext(ctx, identity, origin.requestId);
  const { rows, width } = readCsv(text, STOCK_CSV);
  if (dryRun) {
    const valid = await checkStockRows(sequelize, identity, rows, width);
    return { replayed: false, body: { dry_run: true, imported: 0, would_import: valid.length } };
  }
  for (let attempt = 1; ; attempt++) {
    try {
      return await sequelize.transaction((transaction) =>
        // The key first: a retry of an import that was booked answers it again and books nothing.
        answerOncePerKey(booking, transaction, origin.idempotency, () => bookOpeningStock(booking, transaction, rows, width)),
      );
    } catch (err) {
      const code = serverErrorOf(err)?.code;
      if (attempt < 4 && code && RETRYABLE.has(code)) continue;
      throw err;
    }
  }
}
