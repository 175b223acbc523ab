/**
 * Bulk import of product models, from a JSON document `{products: [...]}` or a CSV file. All or nothing:
 * every row is checked (field rules, engine config, SKUs and barcodes repeated in the file or that the company
 * already has)
 * and a single problem anywhere refuses the whole import with 400 `import_failed`, listing every problem by
 * row (1-based data row, the CSV header not counted) and field. A dry run checks and writes nothing.
 * With `update_existing`, a row whose SKU the company has updates that product instead
 * (commands/import-updates.ts; docs/api/catalog-and-records.md, "Updating products from a file").
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
import { importedCell } from '../csv/cells';
import { lockedFieldProblems, plannedUpdate, productsBySku, writeUpdates, type ProductUpdate } from './import-updates';
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

export const CSV_COLUMNS = [
  'sku',
  'name',
  'profile',
  'engine_type',
  'unit',
  'decimals',
  'min_stock',
  'max_stock',
  'description',
  'barcode',
  'is_active',
] as const;
type CsvColumn = (typeof CSV_COLUMNS)[number];
const REQUIRED_CSV_COLUMNS: CsvColumn[] = ['sku', 'name', 'profile', 'engine_type'];
/** The products export's other columns (commands/spreadsheet-export.ts): accepted and not read. */
export const EXPORT_ONLY_COLUMNS = ['created_at', 'updated_at', 'product_id'] as const;
const NUMERIC_CSV_COLUMNS: CsvColumn[] = ['decimals', 'min_stock', 'max_stock'];
const ENGINE_CSV_COLUMNS: readonly string[] = ['engine_type', 'unit', 'decimals', 'min_stock', 'max_stock'];

/** One row as the import sees it: the product fields, where the caller's names for engine fields are. */
interface Candidate {
  row: number;
  input: unknown;
  /** Maps an engine config path to the caller's field name. */
  engineField(path: string): string;
  /** Problems found while reading the row (CSV cells that are not numbers, wrong cell counts). */
  problems: RowProblem[];
  /**
   * The fields the row names (JSON: its keys; CSV: the header's columns): an update sets these and leaves the
   * others as they are. A CSV's engine columns are named one by one (`min_stock`); JSON names `engine_config` whole.
   */
  names: ReadonlySet<string>;
}

/** A row whose fields passed their rules; its engine config is checked once the product it may update is known. */
export interface CheckedRow {
  row: number;
  sku: string;
  name: string;
  profile: Profile;
  description: string | null;
  barcode: string | null;
  /** Absent when the row does not say (a new product is active). */
  isActive?: boolean;
  candidate: Candidate;
}

/** A row ready to be written: its engine config validated and completed. */
export interface ValidRow extends CheckedRow {
  engine: ReturnType<typeof engineColumns>;
}

const jsonEngineField = (path: string) => (path ? `engine_config.${path}` : 'engine_config');

function jsonCandidates(body: unknown): Candidate[] {
  const result = importJsonBody.validate(body ?? {}, { abortEarly: false, errors: { wrap: { label: false } } });
  if (result.error) throw new ValidationError(fieldsOf(result.error));
  return result.value.products.map((input, i) => ({
    row: i + 1,
    input,
    engineField: jsonEngineField,
    problems: [],
    names: new Set(input !== null && typeof input === 'object' ? Object.keys(input) : []),
  }));
}

/** A CSV number cell: plain decimal notation only (no hex, exponents or blanks inside). */
const NUMBER_CELL = /^-?(\d+(\.\d*)?|\.\d+)$/;
/** A CSV boolean cell, as the export writes it or a spreadsheet program saves it (`TRUE`). */
const BOOLEAN_CELL = /^(true|false)$/i;

/** One cell's value, or a problem: numbers and booleans parsed, text as the export wrote it (csv/cells.ts). */
function cellValue(column: CsvColumn, cell: string): { value: unknown } | { problem: string } {
  // PostgreSQL cannot store a NUL (and no UTF-8 has a lone surrogate): refused, never stored altered.
  const textIssue = textProblem(cell);
  if (textIssue) return { problem: `${column} ${textIssue}` };
  if (NUMERIC_CSV_COLUMNS.includes(column)) return NUMBER_CELL.test(cell) ? { value: Number(cell) } : { problem: `must be a number, not '${cell}'` };
  if (column === 'is_active') return BOOLEAN_CELL.test(cell) ? { value: cell.toLowerCase() === 'true' } : { problem: `must be true or false, not '${cell}'` };
  return { value: importedCell(cell) };
}

function csvCandidates(text: string): Candidate[] {
  const { header, rows } = readCsvTable(text, { columns: CSV_COLUMNS, required: REQUIRED_CSV_COLUMNS, ignored: EXPORT_ONLY_COLUMNS });
  const names = new Set(header.filter((column) => (CSV_COLUMNS as readonly string[]).includes(column)));
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
      // An empty cell is an absent value; an ignored column is not read.
      if (cell === undefined || cell === '' || !names.has(column)) return;
      const col = column as CsvColumn;
      const read = cellValue(col, cell);
      if ('problem' in read) problems.push({ row, field: col, message: read.problem });
      else if (ENGINE_CSV_COLUMNS.includes(col)) engine[col] = read.value;
      else product[col] = read.value;
    });
    product.engine_config = engine;
    return { row, input: product, engineField: (path: string) => path || 'engine_config', problems, names };
  });
}

/** What the field rules made of a row: the row when they all passed, and what its engine config check needs. */
interface FieldCheck {
  candidate: Candidate;
  checked?: CheckedRow;
  /** The row's profile and engine config, when both are usable for the engine check. */
  profile?: Profile;
  engineConfig?: Record<string, unknown>;
}

/** The field rules of one row (joi); the row's problems are added to `problems`. */
function checkFields(candidate: Candidate, problems: RowProblem[]): FieldCheck {
  const { row } = candidate;
  problems.push(...candidate.problems);
  const result: Joi.ValidationResult<unknown> = importRow.validate(candidate.input, { abortEarly: false, errors: { wrap: { label: false } } });
  const { error } = result;
  if (error) {
    for (const [field, message] of Object.entries(fieldsOf(error, 'row'))) {
      problems.push({ row, field: field.startsWith('engine_config') ? candidate.engineField(field.slice('engine_config.'.length)) : field, message });
    }
  }
  const input = (result.value ?? {}) as Record<string, unknown>;
  const profileIsValid = !error?.details.some((d) => d.path[0] === 'profile');
  const configIsObject = !error?.details.some((d) => d.path[0] === 'engine_config') && input.engine_config;
  const engine = profileIsValid && configIsObject ? { profile: input.profile as Profile, engineConfig: input.engine_config as Record<string, unknown> } : {};
  if (error || candidate.problems.length) return { candidate, ...engine };
  const checked: CheckedRow = {
    row,
    sku: input.sku as string,
    name: input.name as string,
    profile: input.profile as Profile,
    description: (input.description as string | null | undefined) ?? null,
    barcode: (input.barcode as string | null | undefined) || null,
    isActive: input.is_active as boolean | undefined,
    candidate,
  };
  return { candidate, checked, ...engine };
}

/**
 * The engine config of a row, validated and completed against its profile; `config` is what the row says, or
 * for an update from a CSV file the product's config with the row's engine columns over it
 * (`engineConfigToCheck`). Problems are added to `problems`.
 */
function checkedEngine(check: FieldCheck, config: Record<string, unknown>, problems: RowProblem[]): ValidRow['engine'] | undefined {
  try {
    return engineColumns(validateEngineConfig(check.profile!, config));
  } catch (err) {
    if (!(err instanceof InvalidEngineConfigError)) throw err;
    for (const p of err.problems) problems.push({ row: check.candidate.row, field: check.candidate.engineField(p.path), message: p.message });
    return undefined;
  }
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

/**
 * Rows whose barcode another product of the company has; one query, through the barcode index. A product the
 * row updates keeps its own barcode; a barcode cannot move from one product to another within one import.
 */
async function takenBarcodeProblems(
  companyId: string,
  candidates: Candidate[],
  existing: ReadonlyMap<string, ProductModel>,
  transaction: Transaction,
): Promise<RowProblem[]> {
  const keys = [...new Set(candidates.map(barcodeKeyOf).filter((k): k is string => k !== undefined))];
  if (!keys.length) return [];
  const rows = await ProductModel.sequelize!.query<{ id: string; key: string }>(
    `SELECT id, ${GTIN_KEY_SQL('barcode')} AS key FROM product_models
      WHERE company_id = $1 AND barcode IS NOT NULL AND ${GTIN_KEY_SQL('barcode')} = ANY($2::text[])`,
    { bind: [companyId, keys], type: QueryTypes.SELECT, transaction },
  );
  const ownerOf = new Map(rows.map((r) => [r.key, r.id]));
  return candidates
    .filter((c) => {
      const owner = ownerOf.get(barcodeKeyOf(c) ?? '');
      return owner !== undefined && owner !== existing.get(skuOf(c) ?? '')?.id;
    })
    .map((c) => ({ row: c.row, field: 'barcode', message: 'a product model with this barcode already exists' }));
}

/** Rows whose SKU the company has, when the import does not update: refused. */
function takenSkuProblems(candidates: Candidate[], existing: ReadonlyMap<string, ProductModel>): RowProblem[] {
  return candidates
    .filter((c) => existing.has(skuOf(c) ?? ''))
    .map((c) => ({ row: c.row, field: 'sku', message: 'a product model with this sku already exists' }));
}

/**
 * The engine config a row's check takes. A CSV row that updates a product of the same engine type sets the
 * engine columns its file has (an empty cell removes the setting) over the product's config, so that a file
 * without `min_stock`, or the settings no column holds (`monitoring_rules`), leaves them as they were; a JSON
 * row's `engine_config`, or a new engine type, is the whole config.
 */
function engineConfigToCheck(check: FieldCheck, current: ProductModel | undefined): Record<string, unknown> {
  const config = check.engineConfig!;
  const { names } = check.candidate;
  if (!current || names.has('engine_config') || current.engineConfig.engine_type !== config.engine_type) return config;
  const merged: Record<string, unknown> = { ...current.engineConfig };
  for (const column of ENGINE_CSV_COLUMNS.filter((c) => names.has(c))) {
    if (Object.hasOwn(config, column)) merged[column] = config[column];
    else delete merged[column];
  }
  return merged;
}

/** Problems in the order of the file's rows; a row's problems keep the order they were found in (sort is stable). */
export const byRow = (a: { row: number }, b: { row: number }) => a.row - b.row;

export interface ImportOptions {
  dryRun: boolean;
  /** A row whose SKU the company has updates that product instead of being refused. */
  updateExisting: boolean;
}

/** What the rows come to: products to create and products to update (or leave, when a row changes nothing). */
interface ImportPlan {
  creates: ValidRow[];
  updates: ProductUpdate[];
}

/**
 * Every check that needs the company's products (in `transaction`): SKUs taken or updated, engine configs (an
 * update's against the product's), PATCH's rules for updates, barcodes taken. Any problem, here or in `found`
 * (the checks of the file alone), refuses the import.
 */
async function planImport(companyId: string, checks: FieldCheck[], found: RowProblem[], options: ImportOptions, transaction: Transaction): Promise<ImportPlan> {
  const problems = [...found];
  const candidates = checks.map((c) => c.candidate);
  const skus = [...new Set(candidates.map(skuOf).filter((s): s is string => s !== undefined))];
  const existing = await productsBySku(companyId, skus, transaction, options.updateExisting && !options.dryRun);
  if (!options.updateExisting) problems.push(...takenSkuProblems(candidates, existing));
  const plan: ImportPlan = { creates: [], updates: [] };
  for (const check of checks) {
    if (!check.profile || !check.engineConfig) continue;
    const current = options.updateExisting ? existing.get(skuOf(check.candidate) ?? '') : undefined;
    const engine = checkedEngine(check, engineConfigToCheck(check, current), problems);
    if (!engine || !check.checked) continue;
    const row: ValidRow = { ...check.checked, engine };
    if (current) plan.updates.push(plannedUpdate(current, row));
    else plan.creates.push(row);
  }
  problems.push(...(await lockedFieldProblems(companyId, plan.updates, transaction)));
  problems.push(...(await takenBarcodeProblems(companyId, candidates, options.updateExisting ? existing : new Map(), transaction)));
  if (problems.length) throw new ImportFailedError(problems.sort(byRow));
  return plan;
}

type PresentedProduct = ReturnType<typeof presentProduct>;

/** How many rows created, updated or left a product; an import that updates answers them. */
interface ImportCounts {
  created: number;
  updated: number;
  unchanged: number;
}

export type ImportResult =
  | ({ imported: 0; would_import: number; dry_run: true } & Partial<{ would_create: number; would_update: number; unchanged: number }>)
  | ({ imported: number; dry_run: false } & Partial<ImportCounts> & { products: PresentedProduct[] });

/** Creates the new rows' products, each with its audit entry. */
async function createProducts(identity: Identity, rows: ValidRow[], transaction: Transaction): Promise<Map<string, ProductModel>> {
  if (!rows.length) return new Map();
  // Rows go in in SKU order, so two imports sharing SKUs wait for each other instead of deadlocking on the
  // unique index.
  const bySku = [...rows].sort((a, b) => (a.sku < b.sku ? -1 : a.sku > b.sku ? 1 : 0));
  const created = await ProductModel.bulkCreate(
    bySku.map((r) => ({
      companyId: identity.companyId,
      sku: r.sku,
      name: r.name,
      description: r.description,
      profile: r.profile,
      ...r.engine,
      isActive: r.isActive ?? true,
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
  return new Map(created.map((p) => [p.sku, p]));
}

/** Writes the plan; answers every row's product in file order as the API shows a product. */
async function writeImport(identity: Identity, plan: ImportPlan, options: ImportOptions, transaction: Transaction): Promise<ImportResult> {
  const created = await createProducts(identity, plan.creates, transaction);
  const changed = plan.updates.filter((u) => !u.unchanged);
  await writeUpdates(identity, changed, transaction);
  const rows = [
    ...plan.creates.map((r) => ({ row: r.row, product: created.get(r.sku)! })),
    ...plan.updates.map((u) => ({ row: u.row.row, product: u.product })),
  ];
  const products = rows.sort(byRow).map((r) => presentProduct(r.product));
  if (!options.updateExisting) return { imported: products.length, dry_run: false, products };
  const counts: ImportCounts = { created: created.size, updated: changed.length, unchanged: plan.updates.length - changed.length };
  return { imported: products.length, dry_run: false, ...counts, products };
}

function dryRunResult(plan: ImportPlan, options: ImportOptions): ImportResult {
  const rows = plan.creates.length + plan.updates.length;
  if (!options.updateExisting) return { imported: 0, would_import: rows, dry_run: true };
  const unchanged = plan.updates.filter((u) => u.unchanged).length;
  return { imported: 0, would_import: rows, dry_run: true, would_create: plan.creates.length, would_update: plan.updates.length - unchanged, unchanged };
}

/** Attempts of an import that met another request's new SKU or barcode at its write (see importProducts). */
const IMPORT_ATTEMPTS = 3;

/**
 * Checks every row, then writes all of them in one transaction, or none. A real run takes an optional
 * Idempotency-Key (docs/api/catalog-and-records.md): a retry after an answer that never came answers the
 * first import again instead of refusing every SKU it created.
 */
export async function importProducts(
  ctx: InventoryContext,
  identity: Identity,
  request: ImportRequest,
  options: ImportOptions,
  origin: RequestOrigin,
): Promise<KeyedAnswer<ImportResult>> {
  const { sequelize } = ctx;
  const candidates = request.format === 'json' ? jsonCandidates(request.body) : csvCandidates(request.text);
  const found: RowProblem[] = [];
  const checks = candidates.map((c) => checkFields(c, found));
  found.push(...duplicateSkuProblems(candidates), ...duplicateBarcodeProblems(candidates));
  const attempt = () =>
    sequelize.transaction(async (transaction): Promise<KeyedAnswer<ImportResult>> => {
      const plan = () => planImport(identity.companyId, checks, found, options, transaction);
      if (options.dryRun) return { replayed: false, body: dryRunResult(await plan(), options) };
      // The key first: a retry of an import that went through answers it again, before its SKUs are found taken.
      return answerOncePerKey(ledgerContext(ctx, identity, origin.requestId), transaction, origin.idempotency, 201, async () =>
        writeImport(identity, await plan(), options, transaction),
      );
    });
  for (let tries = 1; ; tries++) {
    try {
      return await attempt();
    } catch (err) {
      // Another request created one of these SKUs or barcodes after the check and before the write. The
      // import runs again and sees it: the rows are then refused by name, or (updating) update that product.
      if (!(err instanceof UniqueConstraintError) || tries === IMPORT_ATTEMPTS) throw err;
    }
  }
}
