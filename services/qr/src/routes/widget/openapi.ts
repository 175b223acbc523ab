/** The widget's QR operations (API key): read a code, assign it to a target, lock it. */
import { operations } from '@pi/common';
import { qrInfoSchema, qrTransitionSchema } from '../../presenters/qr-code';
import { configureQrBody, lockQrBody, qrInfoQuery } from './schema';

export const widgetQrOperations = operations(
  {
    method: 'get',
    path: '/api/v1/widget/qr_info/',
    operationId: 'getWidgetQrInfo',
    tag: 'widget-qr',
    summary: 'What a code is and what it points to',
    description: "A QR scan's key reads its own code only (403 `access_denied` for any other).",
    security: 'api_key',
    request: { query: qrInfoQuery },
    responses: { 200: { description: "The code's QR info.", schema: qrInfoSchema } },
    errors: [404],
  },
  {
    method: 'post',
    path: '/api/v1/widget/configure_qr/',
    operationId: 'configureQrCode',
    tag: 'widget-qr',
    summary: 'Assign a VIRGIN code to a target (→ CONFIGURED)',
    description:
      "The target (a product, item or work order) must be the company's: 403 otherwise, 404 if it exists nowhere. " +
      "A code that is not VIRGIN answers 409 `invalid_transition` with `allowed_transitions`. A QR scan's key links its own code only, " +
      'and only once a user signed in inside the widget (403 `access_denied` otherwise; docs/api/scanning.md).',
    security: 'api_key',
    request: { body: configureQrBody },
    responses: { 200: { description: 'The configured code.', schema: qrTransitionSchema } },
    errors: [404, 409],
  },
  {
    method: 'post',
    path: '/api/v1/widget/lock_qr/',
    operationId: 'lockQrCode',
    tag: 'widget-qr',
    summary: 'Lock a CONFIGURED code (→ LOCKED, immutable)',
    description:
      "A code that is not CONFIGURED answers 409 `invalid_transition` with `allowed_transitions` (`[]` for a locked code). A QR scan's " +
      'key locks its own code only, and only once a user signed in (403 `access_denied` otherwise).',
    security: 'api_key',
    request: { body: lockQrBody },
    responses: { 200: { description: 'The locked code.', schema: qrTransitionSchema } },
    errors: [404, 409],
  },
);
