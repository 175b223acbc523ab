/**
 * The CSV of every import (products, locations, opening stock; docs/api/spreadsheets.md): parsed once, its
 * header checked against the columns the import knows, its data rows counted. A file that is not CSV, an
 * unknown, repeated or missing column, no data row or too many answer 400 `validation_error`, before any row
 * is looked at.
 */
import { parse } from 'csv-parse/sync';
import { ValidationError, addField, fieldMap, textProblem } from '@pi/common';
import { MAX_IMPORT_ROWS } from '../routes/product-models/schema';

/** The columns of one import's CSV. */
export interface CsvHeaderShape {
  columns: readonly string[];
  required: readonly string[];
  /** Accepted and not read (the other columns of an export, so that it imports as it is). */
  ignored?: readonly string[];
}

/** The header (lower case) and the data rows, each an array of its cells in header order. */
export function readCsvTable(text: string, shape: CsvHeaderShape): { header: string[]; rows: string[][] } {
  let records: string[][];
  try {
    // Without `columns` csv-parse answers each record as an array of its cells.
    const parsed: string[][] = parse(text, { bom: true, skip_empty_lines: true, trim: true, relax_column_count: true });
    records = parsed;
  } catch (err) {
    throw new ValidationError({ body: `is not valid CSV: ${(err as Error).message}` }, 'The CSV file could not be read.');
  }
  if (!records.length) throw new ValidationError({ body: 'is empty: the CSV needs a header row and at least one data row' });
  const header = records[0].map((h) => h.toLowerCase());
  const known = [...shape.columns, ...(shape.ignored ?? [])];
  const problems = fieldMap();
  header.forEach((column, i) => {
    const issue = textProblem(column);
    if (issue) addField(problems, `header.${i + 1}`, `column ${i + 1} ${issue}`);
    else if (!known.includes(column)) addField(problems, `header.${column || i + 1}`, `is not a known column (known: ${shape.columns.join(', ')})`);
    else if (header.indexOf(column) !== i) addField(problems, `header.${column}`, 'appears more than once');
  });
  for (const column of shape.required) if (!header.includes(column)) addField(problems, `header.${column}`, 'is a required column');
  if (Object.keys(problems).length) throw new ValidationError(problems, 'The CSV header is not valid.');
  const rows = records.slice(1);
  if (!rows.length) throw new ValidationError({ body: 'has no data rows' });
  if (rows.length > MAX_IMPORT_ROWS) throw new ValidationError({ body: `has ${rows.length} data rows; at most ${MAX_IMPORT_ROWS} are allowed` });
  return { header, rows };
}
