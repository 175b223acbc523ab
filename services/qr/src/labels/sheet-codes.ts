/** Which codes a label sheet prints: the ones asked for by name, or a page of the company's codes in one status. */
import { Identity, NotFoundError, QrStatus } from '@pi/common';
import { listCodes, ownedCodes } from '../commands/codes';
import type { QrContext } from '../context';
import { MAX_SHEET_LABELS } from './layout';

export type SheetRequest = { codes: string[] } | { status: QrStatus; page: number };

/**
 * The codes of a sheet, in the order asked (duplicates printed once), or, by status, newest first like the
 * list, `MAX_SHEET_LABELS` a page. One unknown code makes it 404, one of another company's 403.
 */
export async function sheetCodes(ctx: QrContext, identity: Identity, request: SheetRequest): Promise<string[]> {
  if ('codes' in request) {
    const rows = await ownedCodes(ctx, identity, [...new Set(request.codes)]);
    return rows.map((r) => r.code);
  }
  const { rows } = await listCodes(ctx, identity, { status: request.status, page: request.page, page_size: MAX_SHEET_LABELS });
  if (!rows.length) throw new NotFoundError(`No ${request.status} QR codes to print on page ${request.page}.`);
  return rows.map((r) => r.code);
}
