/**
 * QR codes: generated in batches (VIRGIN), listed, looked up. A code is 12 random characters of
 * `CODE_ALPHABET` (~70 bits), unique across companies by constraint; a collision (astronomically rare) is
 * retried.
 */
import { randomInt } from 'node:crypto';
import { Op, QueryTypes, UniqueConstraintError, WhereOptions } from 'sequelize';
import {
  AccessDeniedError,
  ID_OWNERS,
  IdOwner,
  Identity,
  ListOrdering,
  NotFoundError,
  OrderTerm,
  PageRequest,
  QrCode,
  QrStatus,
  QrTargetType,
  likePattern,
  pageWindow,
  sequelizeOrder,
} from '@pi/common';
import type { QrContext } from '../context';

/**
 * Letters and digits without the look-alikes 0/O and 1/l/I, so that a code printed under a label can be typed
 * by hand (docs/api/barcodes-and-camera.md). 57 characters: 12 of them still carry ~70 random bits. Codes
 * made before with the full base62 alphabet keep working: lookups are exact and `CODE_SHAPE` accepts them.
 */
export const CODE_ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
export const CODE_LENGTH = 12;
/** What a code in a URL or a request may look like (generated ones are 12 characters of `CODE_ALPHABET`). */
export const CODE_SHAPE = /^[A-Za-z0-9_-]{6,64}$/;

export function generateCode(): string {
  let code = '';
  for (let i = 0; i < CODE_LENGTH; i++) code += CODE_ALPHABET[randomInt(CODE_ALPHABET.length)];
  return code;
}

export async function generateCodes(_ctx: QrContext, identity: Identity, count: number): Promise<QrCode[]> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await QrCode.bulkCreate(
        Array.from({ length: count }, () => ({ companyId: identity.companyId, code: generateCode(), status: 'VIRGIN' })),
        { returning: true },
      );
    } catch (err) {
      if (err instanceof UniqueConstraintError && attempt < 3) continue;
      throw err;
    }
  }
}

export interface CodeFilters extends PageRequest {
  status?: QrStatus;
  target_type?: QrTargetType;
  target_id?: string;
  search?: string;
  ordering?: OrderTerm[];
}

/** What the list may be sorted by (docs/api/ordering-and-search.md); each sort has an index (migration 0016). */
export const QR_CODE_ORDERING: ListOrdering = {
  fields: { code: { sql: ['code'], unique: true }, status: 'status', created_at: 'created_at' },
  default: '-created_at',
};

const TARGET_OWNERS: IdOwner[] = [ID_OWNERS.product, ID_OWNERS.item, ID_OWNERS.workOrder];

/**
 * The owners of a `target_id` filter: the product, item or work order it names (ids are UUIDs, so at most
 * one of them). `target_type` only narrows the list: an own product's id with `target_type=ITEM` is an
 * empty page, not a 404.
 */
export const targetIdOwner: IdOwner = {
  what: 'Target',
  owners: async (id, companyId, query) => (await Promise.all(TARGET_OWNERS.map((o) => o.owners(id, companyId, query)))).flat(),
};

export function listCodes(_ctx: QrContext, identity: Identity, f: CodeFilters) {
  const where: WhereOptions<QrCode> = { companyId: identity.companyId };
  if (f.status) Object.assign(where, { status: f.status });
  if (f.target_type) Object.assign(where, { targetType: f.target_type });
  if (f.target_id) Object.assign(where, { targetId: f.target_id });
  if (f.search) Object.assign(where, { code: { [Op.iLike]: likePattern(f.search) } });
  return QrCode.findAndCountAll({ where, order: sequelizeOrder(QR_CODE_ORDERING, f.ordering), ...pageWindow(f), raw: true });
}

/** A code of the caller's company: 404 when it exists nowhere, 403 when it is another company's. */
export async function ownedCode(_ctx: QrContext, identity: Identity, code: string): Promise<QrCode> {
  const row = await QrCode.findOne({ where: { code } });
  if (!row) throw new NotFoundError('QR code not found.');
  if (row.companyId !== identity.companyId) throw new AccessDeniedError();
  return row;
}

/** Codes of the caller's company, for a label sheet; any foreign or unknown code refuses the whole sheet. */
export async function ownedCodes(_ctx: QrContext, identity: Identity, codes: string[]): Promise<QrCode[]> {
  const rows = await QrCode.findAll({ where: { code: codes } });
  if (rows.some((r) => r.companyId !== identity.companyId)) throw new AccessDeniedError();
  if (rows.length !== new Set(codes).size) throw new NotFoundError('QR code not found.');
  const order = new Map(codes.map((c, i) => [c, i]));
  return rows.sort((a, b) => order.get(a.code)! - order.get(b.code)!);
}

/** Any code, of any company: what a scan resolves. */
export function codeForScan(ctx: QrContext, code: string) {
  return ctx.sequelize.query<{ code: string; company_id: string }>('SELECT code, company_id FROM qr_codes WHERE code = $1', {
    bind: [code],
    type: QueryTypes.SELECT,
  });
}
