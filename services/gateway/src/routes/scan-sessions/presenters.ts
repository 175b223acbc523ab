/** The JSON of scan sessions and scan settings (docs/api/scanning.md), with their OpenAPI schemas. */
import Joi from 'joi';
import { QR_TARGET_TYPES, SCAN_POLICIES, timestampSchema as timestamp, uuidSchema as uuid } from '@pi/common';
import type { Company } from '@pi/common';
import type { ScanSessionRow } from '../../commands/scan-sessions';

const signedInUser = Joi.object({ id: uuid.required(), username: Joi.string().required() }).allow(null).required();

export const scanSessionSchema = Joi.object({
  id: uuid.required().description("The scan key's id (the ledger's `actor.id` of its bookings)."),
  prefix: Joi.string().required(),
  code: Joi.string().required().description('The scanned code.'),
  policy: Joi.string()
    .valid(...SCAN_POLICIES)
    .required(),
  target_type: Joi.string()
    .valid(...QR_TARGET_TYPES)
    .allow(null)
    .required(),
  target_id: uuid.allow(null).required(),
  product_id: uuid.allow(null).required(),
  signed_in_user: signedInUser.description('The user who signed in inside the widget, if one did.'),
  active: Joi.boolean()
    .required()
    .description('Neither revoked nor expired, and its signed-in user (if any) neither deactivated nor changed in role or password since.'),
  expires_at: timestamp.allow(null).required(),
  revoked_at: timestamp.allow(null).required(),
  last_used_at: timestamp.allow(null).required(),
  usage_count: Joi.number().integer().min(0).required(),
  created_at: timestamp.required(),
}).id('ScanSession');

export function presentScanSession(r: ScanSessionRow) {
  const expired = r.expires_at !== null && new Date(r.expires_at).getTime() <= Date.now();
  return {
    id: r.id,
    prefix: r.prefix,
    code: r.qr_code,
    policy: r.scan_policy,
    target_type: r.scan_target_type,
    target_id: r.scan_target_id,
    product_id: r.scan_product_id,
    signed_in_user: r.scan_user_id && r.scan_username ? { id: r.scan_user_id, username: r.scan_username } : null,
    active: !r.revoked_at && !expired && !r.user_ended,
    expires_at: r.expires_at,
    revoked_at: r.revoked_at,
    last_used_at: r.last_used_at,
    usage_count: Number(r.usage_count),
    created_at: r.created_at,
  };
}

export const scanSettingsSchema = Joi.object({
  policy: Joi.string()
    .valid(...SCAN_POLICIES)
    .required()
    .description('What a scan may do unless its code says otherwise.'),
  key_lifetime_seconds: Joi.number().integer().required().description("How long a scan's key lives."),
}).id('ScanSettings');

export function presentScanSettings(c: Pick<Company, 'scanPolicy' | 'scanKeySeconds'>) {
  return { policy: c.scanPolicy, key_lifetime_seconds: c.scanKeySeconds };
}

export const scanSignInSchema = Joi.object({
  api_key: Joi.string().required().description("The scan's new key: the one used to sign in stops working."),
  expires_at: timestamp.allow(null).required(),
  scan: Joi.object({
    policy: Joi.string()
      .valid(...SCAN_POLICIES)
      .required(),
    signed_in_user: signedInUser,
  }).required(),
}).id('ScanSignIn');
