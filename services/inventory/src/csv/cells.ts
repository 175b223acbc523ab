/**
 * CSV as the spreadsheet exports write it and the spreadsheet imports read it (docs/api/spreadsheets.md):
 * RFC 4180 quoting, CRLF line ends, UTF-8 with a byte order mark (so that spreadsheet programs read it as UTF-8).
 *
 * Formula injection: a text cell that starts with `=`, `+`, `-`, `@`, a tab or a carriage return would be run
 * as a formula by a spreadsheet program, so the export writes it with a leading apostrophe (`'=1+2`), which
 * spreadsheets show as text. Numbers are written as numbers (a negative quantity keeps its minus). The
 * imports remove that one apostrophe again, so an exported file imports as it was exported.
 */

export const CSV_BOM = '\uFEFF';
export const CSV_EOL = '\r\n';

const FORMULA_START = /^[=+\-@\t\r]/;
const NEEDS_QUOTES = /[",\r\n]|^\s|\s$/;

/** A number as PostgreSQL wrote it (NUMERIC text, exact): written as it is, never neutralised. */
export class CsvNumber {
  constructor(readonly text: string) {}
}

export const csvNumber = (value: string | number | null | undefined): CsvNumber | null =>
  value === null || value === undefined ? null : new CsvNumber(String(value));

export type Cell = string | number | boolean | null | undefined | Date | CsvNumber;

/** One cell: text is neutralised (see above) and quoted when needed; null is an empty cell. */
export function csvCell(value: Cell): string {
  if (value === null || value === undefined) return '';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (value instanceof CsvNumber) return value.text;
  let text = value instanceof Date ? value.toISOString() : value;
  if (!(value instanceof Date) && FORMULA_START.test(text)) text = `'${text}`;
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

export const csvLine = (cells: Cell[]): string => cells.map(csvCell).join(',') + CSV_EOL;

/** The import side of the neutralisation: `'=x` is read as `=x`; any other cell is kept as it is. */
export function importedCell(cell: string): string {
  return cell.length > 1 && cell[0] === "'" && FORMULA_START.test(cell.slice(1)) ? cell.slice(1) : cell;
}
