/**
 * The rows of a product import as the file gives them (docs/api/catalog-and-records.md): a JSON document
 * `{products: [...]}` or a CSV file read into candidates, each checked by its field rules, and the checks that
 * need nothing but the file (SKUs and barcodes repeated in it). What needs the company's products, and the
 * writing, is commands/import.ts; problems are named by row (1-based data row) and field as the caller sent it.
 */
import Joi from 'joi';
import { AppError, ProductModel, Profile, ValidationError, fieldsOf, textProblem } from '@pi/common';
import { InvalidEngineConfigError, validateEngineConfig } from '../engine/engine-config';
import { importJsonBody, importRow } from '../routes/product-models/schema';
import { gtinKey, gtinProblem } from '../catalog/gtin';
import { engineColumns } from './products';
import { readCsvTable } from '../csv/table';
import { importedCell } from '../csv/cells';

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
export interface Candidate {
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

/** The file's rows, one candidate each. */
export function candidatesOf(request: ImportRequest): Candidate[] {
  return request.format === 'json' ? jsonCandidates(request.body) : csvCandidates(request.text);
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
export interface FieldCheck {
  candidate: Candidate;
  checked?: CheckedRow;
  /** The row's profile and engine config, when both are usable for the engine check. */
  profile?: Profile;
  engineConfig?: Record<string, unknown>;
}

/** The field rules of one row (joi); the row's problems are added to `problems`. */
export function checkFields(candidate: Candidate, problems: RowProblem[]): FieldCheck {
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
export function checkedEngine(check: FieldCheck, config: Record<string, unknown>, problems: RowProblem[]): ValidRow['engine'] | undefined {
  try {
    return engineColumns(validateEngineConfig(check.profile!, config));
  } catch (err) {
    if (!(err instanceof InvalidEngineConfigError)) throw err;
    for (const p of err.problems) problems.push({ row: check.candidate.row, field: check.candidate.engineField(p.path), message: p.message });
    return undefined;
  }
}

/**
 * Rows whose `field` (its value as `keyOf` reads it: the SKU trimmed, the barcode as a GTIN-14) an earlier row
 * of the file already has.
 */
function repeatedIn(candidates: Candidate[], field: 'sku' | 'barcode', keyOf: (c: Candidate) => string | undefined): RowProblem[] {
  const firstRowOf = new Map<string, number>();
  const problems: RowProblem[] = [];
  for (const c of candidates) {
    const key = keyOf(c);
    if (key === undefined) continue;
    const first = firstRowOf.get(key);
    if (first === undefined) firstRowOf.set(key, c.row);
    else problems.push({ row: c.row, field, message: `duplicates the ${field} of row ${first}` });
  }
  return problems;
}

/** Rows whose SKU or barcode an earlier row of the file already has. */
export const repeatProblems = (candidates: Candidate[]) => [...repeatedIn(candidates, 'sku', skuOf), ...repeatedIn(candidates, 'barcode', barcodeKeyOf)];

/** The SKU as it would be stored (trimmed), when the row has a usable one. */
export function skuOf(c: Candidate): string | undefined {
  const sku = (c.input as { sku?: unknown } | null)?.sku;
  if (typeof sku !== 'string') return undefined;
  const trimmed = sku.trim();
  return trimmed && trimmed.length <= 100 && !textProblem(trimmed) ? trimmed : undefined;
}

/** The barcode's 14-digit key, when the row has a valid one. */
export function barcodeKeyOf(c: Candidate): string | undefined {
  const barcode = (c.input as { barcode?: unknown } | null)?.barcode;
  if (typeof barcode !== 'string') return undefined;
  const trimmed = barcode.trim();
  return trimmed && !gtinProblem(trimmed) ? gtinKey(trimmed) : undefined;
}

/**
 * The engine config a row's check takes. A CSV row that updates a product of the same engine type sets the
 * engine columns its file has (an empty cell removes the setting) over the product's config, so that a file
 * without `min_stock`, or the settings no column holds (`monitoring_rules`), leaves them as they were; a JSON
 * row's `engine_config`, or a new engine type, is the whole config.
 */
export function engineConfigToCheck(check: FieldCheck, current: ProductModel | undefined): Record<string, unknown> {
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
