/**
 * Widget QR endpoints (API key): `qr_info/`, `configure_qr/` (VIRGIN → CONFIGURED), `lock_qr/` (→ LOCKED).
 * A scan key reaches its own code only, and changes it only once a user signed in (docs/api/scanning.md).
 */
import { QrTargetType, assertScanMayChangeCode, assertScanReachesCode, endpoints, type Call } from '@pi/common';
import { ownedCode } from '../../commands/codes';
import type { QrContext } from '../../context';
import { configureCode, lockCode } from '../../commands/transitions';
import { presentQrInfo, qrInfoSchema, qrTransitionSchema } from '../../presenters/qr-code';
import { configureQrBody, lockQrBody, qrInfoQuery } from './schema';

const tag = 'widget-qr';

export const widgetQrEndpoints = endpoints<QrContext>(
  {
    method: 'get',
    path: '/api/v1/widget/qr_info/',
    operationId: 'getWidgetQrInfo',
    tag,
    summary: 'What a code is and what it points to',
    description: "A QR scan's key reads its own code only (403 `access_denied` for any other).",
    security: 'api_key',
    request: { query: qrInfoQuery },
    responses: { 200: { description: "The code's QR info.", schema: qrInfoSchema } },
    errors: [404],
    handle: async (ctx, { query, identity }: Call<{ code: string }>) => {
      assertScanReachesCode(identity, query.code);
      return presentQrInfo(await ownedCode(ctx, identity, query.code));
    },
  },
  {
    method: 'post',
    path: '/api/v1/widget/configure_qr/',
    operationId: 'configureQrCode',
    tag,
    summary: 'Assign a VIRGIN code to a target (→ CONFIGURED)',
    description:
      "The target (a product, item or work order) must be the company's: 403 otherwise, 404 if it exists nowhere. " +
      "A code that is not VIRGIN answers 409 `invalid_transition` with `allowed_transitions`. A QR scan's key links its own code only, " +
      'and only once a user signed in inside the widget (403 `access_denied` otherwise; docs/api/scanning.md).',
    security: 'api_key',
    request: { body: configureQrBody },
    responses: { 200: { description: 'The configured code.', schema: qrTransitionSchema } },
    errors: [404, 409],
    handle: async (ctx, { body, identity }: Call<unknown, { code: string; target_type: QrTargetType; target_id: string }>) => {
      assertScanMayChangeCode(identity, body.code);
      const code = await configureCode(ctx, identity, body.code, body.target_type, body.target_id);
      return { success: true, ...presentQrInfo(code) };
    },
  },
  {
    method: 'post',
    path: '/api/v1/widget/lock_qr/',
    operationId: 'lockQrCode',
    tag,
    summary: 'Lock a CONFIGURED code (→ LOCKED, immutable)',
    description:
      "A code that is not CONFIGURED answers 409 `invalid_transition` with `allowed_transitions` (`[]` for a locked code). A QR scan's " +
      'key locks its own code only, and only once a user signed in (403 `access_denied` otherwise).',
    security: 'api_key',
    request: { body: lockQrBody },
    responses: { 200: { description: 'The locked code.', schema: qrTransitionSchema } },
    errors: [404, 409],
    handle: async (ctx, { body, identity }: Call<unknown, { code: string }>) => {
      assertScanMayChangeCode(identity, body.code);
      return { success: true, ...presentQrInfo(await lockCode(ctx, identity, body.code)) };
    },
  },
);
