/**
 * Bulk import of product models, from a JSON document `{products: [...]}` or a CSV file. All or nothing:
 * every row is checked (field rules, engine config, SKUs and barcodes repeated in the file or that the company
 * already has)
 * and a single problem anywhere refuses the whole import with 400 `import_failed`, listing every problem by
 * row (1-based data row, the CSV header not counted) and field. A dry run checks and writes nothing.
 */
import Joi from 'joi';
import { QueryTypes, UniqueConstraintError } from 'sequelize';
import type { Transaction } from 'sequelize';
import { AppError, Identity, ProductModel, Profile, ValidationError, fieldsOf, recordAudits, textProblem } from '@pi/common';
import type { InventoryContext } from '../context';
import { InvalidEngineConfigError, validateEngineConfig } from '../engine/engine-config';
import { importJsonBody, importRow } from '../routes/product-models/schema';
import { gtinKey, gtinProblem, GTIN_KEY_SQL } from '../catalog/gtin';
import { auditedProduct, engineColumns } from './products';
import { readCsvTable } from '../csv/table';
import { answerOncePerKey, type KeyedAnswer } from '../ledger/idempotency';
import { presentProduct } from '../presenters/product';
import { ledgerContext, type RequestOrigin } from './bookings';

export type ImportRequest = { format: 'json'; body: unknown } | { format: 'csv'; text: string };

export interface RowProblem {
  /** 1-based number of the data row. */
  row: number;
  /** The field as the caller named it: `engine_config.decimals` in JSON, `decimals` (the column) in CSV. */
  field: string;
  message: string;
}

export class ImportFailedError extends AppError {
  constructor(readonly problems: RowProblem[]) {
    const rows = new Set(problems.map((p) => p.row)).size;
    super(400, 'import_failed', `Nothing was imported: ${problems.length} problem(s) in ${rows} row(s).`, { rows: problems });
  }
}

export const CSV_COLUMNS = ['sku', 'name', 'profile', 'engine_type', 'unit', 'decimals', 'min_stock', 'max_stock', 'description', 'barcode'] as const;
type CsvColumn = (typeof CSV_COLUMNS)[number];
const REQUIRED_CSV_COLUMNS: CsvColumn[] = ['sku', 'name', 'profile', 'engine_type'];
const NUMERIC_CSV_COLUMNS: CsvColumn[] = ['decimals', 'min_stock', 'max_stock'];
const ENGINE_CSV_COLUMNS: CsvColumn[] = ['engine_type', 'unit', 'decimals', 'min_stock', 'max_stock'];

/** One row as the import sees it: the product fields, where the caller's names for engine fields are. */
interface Candidate {
  row: number;
  input: unknown;
  /** Maps an engine config path to the caller's field name. */
  engineField(path: string): string;
  /** Problems found while reading the row (CSV cells that are not numbers, wrong cell counts). */
  problems: RowProblem[];
}

interface ValidRow {
  row: number;
  sku: string;
  name: string;
  profile: Profile;
  description: string | null;
  barcode: string | null;
  engine: ReturnType<typeof engineColumns>;
}

const jsonEngineField = (path: string) => (path ? `engine_config.${path}` : 'engine_config');

function jsonCandidates(body: unknown): Candidate[] {
  const result = importJsonBody.validate(body ?? {}, { abortEarly: false, errors: { wrap: { label: false } } });
  if (result.error) throw new ValidationError(fieldsOf(result.error));
  return result.value.products.map((input, i) => ({ row: i + 1, input, engineField: jsonEngineField, problems: [] }));
}

/** A CSV number cell: plain decimal notation only (no hex, exponents or blanks inside). */
const NUMBER_CELL = /^-?(\d+(\.\d*)?|\.\d+)$/;

function csvCandidates(text: string): Candidate[] {
  const { header, rows } = readCsvTable(text, { columns: CSV_COLUMNS, required: REQUIRED_CSV_COLUMNS });
  return rows.map((cells, i) => {
    const row = i + 1;
    const problems: RowProblem[] = [];
    if (cells.length !== header.length) {
      problems.push({ row, field: 'row', message: `has ${cells.length} cells but the header has ${header.length} columns` });
    }
    const product: Record<string, unknown> = {};
    const engine: Record<string, unknown> = {};
    header.forEach((column, c) => {
      const cell = cells[c];
      if (cell === undefined || cell === '') return; // an empty cell is an absent value
      const col = column as CsvColumn;
      // PostgreSQL cannot store a NUL (and no UTF-8 has a lone surrogate): refused, never stored altered.
      const textIssue = textProblem(cell);
      if (textIssue) problems.push({ row, field: col, message: `${col} ${textIssue}` });
      let value: unknown = cell;
      if (NUMERIC_CSV_COLUMNS.includes(col) && !textIssue) {
        if (!NUMBER_CELL.test(cell)) {
          problems.push({ row, field: col, message: `must be a number, not '${cell}'` });
          return;
        }
        value = Number(cell);
      }
      if (ENGINE_CSV_COLUMNS.includes(col)) engine[col] = value;
      else product[col] = value;
    });
    product.engine_config = engine;
    return { row, input: product, engineField: (path: string) => path || 'engine_config', problems };
  });
}

/** Field rules and the engine config of one row; the row's problems are added to `problems`. */
function checkRow(candidate: Candidate, problems: RowProblem[]): ValidRow | undefined {
  const { row } = candidate;
  const before = problems.length;
  problems.push(...candidate.problems);
  const result: Joi.ValidationResult<unknown> = importRow.validate(candidate.input, { abortEarly: false, errors: { wrap: { label: false } } });
  const { error } = result;
  const value: unknown = result.value;
  if (error) {
    for (const [field, message] of Object.entries(fieldsOf(error, 'row'))) {
      problems.push({ row, field: field.startsWith('engine_config') ? candidate.engineField(field.slice('engine_config.'.length)) : field, message });
    }
  }
  const input = (value ?? {}) as Record<string, unknown>;
  let engine: ValidRow['engine'] | undefined;
  const profileIsValid = !error?.details.some((d) => d.path[0] === 'profile');
  const configIsObject = !error?.details.some((d) => d.path[0] === 'engine_config') && input.engine_config;
  if (profileIsValid && configIsObject) {
    try {
      engine = engineColumns(validateEngineConfig(input.profile as Profile, input.engine_config));
    } catch (err) {
      if (!(err instanceof InvalidEngineConfigError)) throw err;
      for (const p of err.problems) problems.push({ row, field: candidate.engineField(p.path), message: p.message });
    }
  }
  if (problems.length > before || !engine) return undefined;
  return {
    row,
    sku: input.sku as string,
    name: input.name as string,
    profile: input.profile as Profile,
    description: (input.description as string | null | undefined) ?? null,
    barcode: (input.barcode as string | null | undefined) || null,
    engine,
  };
}

/** Rows whose SKU an earlier row of the file already has. */
function duplicateSkuProblems(candidates: Candidate[]): RowProblem[] {
  const firstRowOf = new Map<string, number>();
  const problems: RowProblem[] = [];
  for (const c of candidates) {
    const sku = skuOf(c);
    if (sku === undefined) continue;
    const first = firstRowOf.get(sku);
    if (first === undefined) firstRowOf.set(sku, c.row);
    else problems.push({ row: c.row, field: 'sku', message: `duplicates the sku of row ${first}` });
  }
  return problems;
}

/** The SKU as it would be stored (trimmed), when the row has a usable one. */
function skuOf(c: Candidate): string | undefined {
  const sku = (c.input as { sku?: unknown } | null)?.sku;
  if (typeof sku !== 'string') return undefined;
  const trimmed = sku.trim();
  return trimmed && trimmed.length <= 100 && !textProblem(trimmed) ? trimmed : undefined;
}

/** The barcode's 14-digit key, when the row has a valid one. */
function barcodeKeyOf(c: Candidate): string | undefined {
  const barcode = (c.input as { barcode?: unknown } | null)?.barcode;
  if (typeof barcode !== 'string') return undefined;
  const trimmed = barcode.trim();
  return trimmed && !gtinProblem(trimmed) ? gtinKey(trimmed) : undefined;
}

/** Rows whose barcode (as a GTIN-14) an earlier row of the file already has. */
function duplicateBarcodeProblems(candidates: Candidate[]): RowProblem[] {
  const firstRowOf = new Map<string, number>();
  const problems: RowProblem[] = [];
  for (const c of candidates) {
    const key = barcodeKeyOf(c);
    if (key === undefined) continue;
    const first = firstRowOf.get(key);
    if (first === undefined) firstRowOf.set(key, c.row);
    else problems.push({ row: c.row, field: 'barcode', message: `duplicates the barcode of row ${first}` });
  }
  return problems;
}

/** Rows whose barcode a product of the company already has; one query, through the barcode index. */
async function existingBarcodeProblems(companyId: string, candidates: Candidate[], transaction?: Transaction): Promise<RowProblem[]> {
  const keys = [...new Set(candidates.map(barcodeKeyOf).filter((k): k is string => k !== undefined))];
  if (!keys.length) return [];
  const rows = await ProductModel.sequelize!.query<{ key: string }>(
    `SELECT ${GTIN_KEY_SQL('barcode')} AS key FROM product_models
      WHERE company_id = $1 AND barcode IS NOT NULL AND ${GTIN_KEY_SQL('barcode')} = ANY($2::text[])`,
    { bind: [companyId, keys], type: QueryTypes.SELECT, transaction },
  );
  const existing = new Set(rows.map((r) => r.key));
  return candidates
    .filter((c) => existing.has(barcodeKeyOf(c) ?? ''))
    .map((c) => ({ row: c.row, field: 'barcode', message: 'a product model with this barcode already exists' }));
}

async function existingSkuProblems(companyId: string, candidates: Candidate[], transaction?: Transaction): Promise<RowProblem[]> {
  const skus = [...new Set(candidates.map(skuOf).filter((s): s is string => s !== undefined))];
  if (!skus.length) return [];
  const rows = await ProductModel.sequelize!.query<{ sku: string }>('SELECT sku FROM product_models WHERE company_id = $1 AND sku = ANY($2::varchar[])', {
    bind: [companyId, skus],
    type: QueryTypes.SELECT,
    transaction,
  });
  const existing = new Set(rows.map((r) => r.sku));
  return candidates
    .filter((c) => existing.has(skuOf(c) ?? ''))
    .map((c) => ({ row: c.row, field: 'sku', message: 'a product model with this sku already exists' }));
}

/** By row; a row's problems keep the order they were found in (sort is stable). */
/** Problems in the order of the file's rows. */
export const byRow = (a: RowProblem, b: RowProblem) => a.row - b.row;

export type ImportResult =
  { dry_run: true; imported: 0; would_import: number } | { dry_run: false; imported: number; products: Array<ReturnType<typeof presentProduct>> };

/** Creates the checked rows, each with its audit entry; answers them in file order as the API shows a product. */
async function createProducts(identity: Identity, rows: ValidRow[], transaction: Transaction): Promise<ImportResult> {
  // Rows go in in SKU order, so two imports sharing SKUs wait for each other instead of deadlocking on the
  // unique index; the answer keeps the order of the file.
  const bySku = [...rows].sort((a, b) => (a.sku < b.sku ? -1 : a.sku > b.sku ? 1 : 0));
  const created = await ProductModel.bulkCreate(
    bySku.map((r) => ({
      companyId: identity.companyId,
      sku: r.sku,
      name: r.name,
      description: r.description,
      profile: r.profile,
      ...r.engine,
      isActive: true,
      barcode: r.barcode,
    })),
    { transaction, returning: true },
  );
  await recordAudits(
    transaction,
    identity.companyId,
    identity,
    created.map((p) => ({ action: 'create' as const, resourceType: 'product_model' as const, resourceId: p.id, after: auditedProduct(p) })),
  );
  const createdBySku = new Map(created.map((p) => [p.sku, p]));
  const products = rows.map((r) => presentProduct(createdBySku.get(r.sku)!));
  return { imported: products.length, dry_run: false, products };
}

/**
 * Checks every row, then writes all of them in one transaction, or none. A real run takes an optional
 * Idempotency-Key (docs/api/catalog-and-records.md): a retry after an answer that never came answers the
 * first import again instead of refusing every SKU it created.
 */
export async function importProducts(
  ctx: InventoryContext,
  identity: Identity,
  request: ImportRequest,
  dryRun: boolean,
  origin: RequestOrigin,
): Promise<KeyedAnswer<ImportResult>> {
  const { sequelize } = ctx;
  const candidates = request.format === 'json' ? jsonCandidates(request.body) : csvCandidates(request.text);
  const problems: RowProblem[] = [];
  const valid = candidates.map((c) => checkRow(c, problems));
  problems.push(...duplicateSkuProblems(candidates), ...duplicateBarcodeProblems(candidates));
  /** The rows, once the SKUs and barcodes the company has are checked too (in `transaction`). */
  const checkedRows = async (transaction: Transaction) => {
    problems.push(...(await existingSkuProblems(identity.companyId, candidates, transaction)));
    problems.push(...(await existingBarcodeProblems(identity.companyId, candidates, transaction)));
    if (problems.length) throw new ImportFailedError(problems.sort(byRow));
    return valid as ValidRow[];
  };

  try {
    return await sequelize.transaction(async (transaction): Promise<KeyedAnswer<ImportResult>> => {
      if (dryRun) return { replayed: false, body: { dry_run: true, imported: 0, would_import: (await checkedRows(transaction)).length } };
      // The key first: a retry of an import that went through answers it again, before its SKUs are found taken.
      return answerOncePerKey(ledgerContext(ctx, identity, origin.requestId), transaction, origin.idempotency, 201, async () =>
        createProducts(identity, await checkedRows(transaction), transaction),
      );
    });
  } catch (err) {
    // Another request created one of these SKUs or barcodes after the check: name the rows, as the check would have.
    if (err instanceof UniqueConstraintError) {
      const taken = [...(await existingSkuProblems(identity.companyId, candidates)), ...(await existingBarcodeProblems(identity.companyId, candidates))].sort(
        byRow,
      );
      if (taken.length) throw new ImportFailedError(taken);
    }
    throw err;
  }
}
