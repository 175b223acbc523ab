import Joi from 'joi';
import { QR_STATUSES, QR_TARGET_TYPES, SCAN_POLICIES, timestampSchema as timestamp, uuidSchema as uuid } from '@pi/common';
import type { QrCode } from '@pi/common';
import { NEXT_STATES } from '../commands/transitions';

type QrRow = Pick<QrCode, 'id' | 'code' | 'status' | 'targetType' | 'targetId' | 'productModelId' | 'configuredAt' | 'lockedAt'> & { createdAt?: Date };

/** What the widget's `qr_info/` (and the token exchange) shows of a code. */
export function presentQrInfo(q: QrRow) {
  return {
    code: q.code,
    status: q.status,
    target_type: q.targetType,
    target_id: q.targetId,
    product_model_id: q.productModelId,
    allowed_transitions: NEXT_STATES[q.status],
  };
}

export function scanUrl(baseUrl: string, code: string): string {
  return `${baseUrl.replace(/\/$/, '')}/go/${code}/`;
}

/** A code on the dashboard API: its info, the URL its label encodes, and when it changed. */
export function presentQrCode(q: QrRow, baseUrl: string) {
  return {
    id: q.id,
    ...presentQrInfo(q),
    url: scanUrl(baseUrl, q.code),
    configured_at: q.configuredAt,
    locked_at: q.lockedAt,
    created_at: q.createdAt ?? null,
  };
}

/* The answers' shapes, for the OpenAPI document (openapi.ts files); each matches its presenter above. */

/** The fields of presentQrInfo, shared by every schema that spreads them. */
const qrInfoKeys = {
  code: Joi.string().required(),
  status: Joi.string()
    .valid(...QR_STATUSES)
    .required(),
  target_type: Joi.string()
    .valid(...QR_TARGET_TYPES)
    .allow(null)
    .required()
    .description('Null until the code is configured.'),
  target_id: uuid.allow(null).required(),
  product_model_id: uuid.allow(null).required().description("The product, the item's product or the work order's product (null before configuration)."),
  allowed_transitions: Joi.array()
    .items(Joi.string().valid(...QR_STATUSES))
    .required()
    .description('The valid next states (`[]` once LOCKED).'),
};

/** presentQrInfo: widget `qr_info/` and the `qr` of a token exchange. */
export const qrInfoSchema = Joi.object(qrInfoKeys).id('QrInfo');

/** configure_qr/ and lock_qr/: `{success: true, …QR info}`. */
export const qrTransitionSchema = Joi.object({ success: Joi.boolean().valid(true).required(), ...qrInfoKeys }).id('QrTransitionResult');

/** presentQrCode: a code on the dashboard API. */
export const qrCodeSchema = Joi.object({
  id: uuid.required(),
  ...qrInfoKeys,
  url: Joi.string().uri().required().description('What the label encodes: `{PUBLIC_BASE_URL}/go/<code>/`.'),
  configured_at: timestamp.allow(null).required(),
  locked_at: timestamp.allow(null).required(),
  created_at: timestamp.allow(null).required(),
}).id('QrCode');

/** POST /api/v1/qr-codes/: the batch just generated. */
export const generatedCodesSchema = Joi.object({
  count: Joi.number().integer().min(1).required(),
  results: Joi.array().items(qrCodeSchema).required(),
}).id('GeneratedQrCodes');

/** What a scan key may do, as the exchange and the widget's sign-in answer it (docs/api/scanning.md). */
export const scanSessionInfoSchema = Joi.object({
  policy: Joi.string()
    .valid(...SCAN_POLICIES)
    .required()
    .description("`read`: see stock; `book`: book the target's stock; `staff`: book once a user signed in."),
  signed_in_user: Joi.object({ id: uuid.required(), username: Joi.string().required() }).allow(null).required(),
}).id('ScanSessionInfo');

/** exchange_token/: a key minted for this scan and the code it was scanned from. */
export const tokenExchangeSchema = Joi.object({
  api_key: Joi.string()
    .required()
    .description("A key for this scan only: it reaches what the code points at (the company's scan key lifetime, 8 hours by default)."),
  expires_at: timestamp.required(),
  qr: qrInfoSchema.required(),
  scan: scanSessionInfoSchema.required(),
}).id('QrTokenExchange');
