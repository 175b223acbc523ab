/** The CSV body of the imports (products, locations, opening stock; docs/api/spreadsheets.md). */
import express from 'express';
import type { Request } from 'express';
import { AppError, refuseBytesNotUtf8 } from '@pi/common';

/** The largest CSV file an import accepts (the service's JSON parser keeps its own, smaller limit). */
export const CSV_LIMIT = '5mb';

/** A file in another charset is read in it when its Content-Type says so; else it must be UTF-8 (a 400 naming `body`). */
export const csvBody = () => express.text({ type: 'text/csv', limit: CSV_LIMIT, verify: refuseBytesNotUtf8 });

/** The CSV text; any other content type (or none) is 415 naming `content_type`. */
export function csvText(req: Request): string {
  if (req.is('text/csv')) return typeof req.body === 'string' ? req.body : '';
  const given = req.get('content-type');
  throw new AppError(415, 'unsupported_media_type', 'Send the import as text/csv.', {
    content_type: given ? `must be text/csv, not ${given}` : 'is required: text/csv',
  });
}
