/** Scan sessions, scan settings and the widget's sign-in (docs/api/scanning.md). */
import { operations, pageSchema, schemas } from '@pi/common';
import { scanSessionSchema, scanSettingsSchema, scanSignInSchema } from './presenters';
import { listScanSessionsQuery, scanSignInBody, updateScanSettingsBody } from './schema';

export const scanSessionPageSchema = pageSchema(scanSessionSchema, 'ScanSessionPage');

export const scanSessionsOperations = operations(
  {
    method: 'get',
    path: '/api/v1/scan-sessions/',
    operationId: 'listScanSessions',
    tag: 'scanning',
    summary: "List the company's scan sessions",
    description: 'The keys minted by QR scans, newest first: active ones, and with `include_ended=true` revoked and expired ones too.',
    security: 'bearer',
    adminOnly: true,
    request: { query: listScanSessionsQuery },
    responses: { 200: { description: 'One page of scan sessions.', schema: scanSessionPageSchema } },
  },
  {
    method: 'delete',
    path: '/api/v1/scan-sessions/{id}/',
    operationId: 'revokeScanSession',
    tag: 'scanning',
    summary: 'Revoke a scan session',
    description:
      "The scan's key answers 401 at once, on every gateway. An id that is no scan session of the company answers 404; a revoked one 409 `key_revoked`.",
    security: 'bearer',
    adminOnly: true,
    request: { params: schemas.idParams },
    responses: { 204: { description: 'Revoked.' } },
    errors: [404, 409],
  },
  {
    method: 'get',
    path: '/api/v1/scan-settings/',
    operationId: 'getScanSettings',
    tag: 'scanning',
    summary: "The company's scan settings",
    security: 'bearer',
    responses: { 200: { description: 'The scan policy and the scan key lifetime.', schema: scanSettingsSchema } },
  },
  {
    method: 'patch',
    path: '/api/v1/scan-settings/',
    operationId: 'updateScanSettings',
    tag: 'scanning',
    summary: "Change the company's scan settings",
    description: 'Applies to scans from now on; keys already minted keep their policy and expiry (revoke them to end them).',
    security: 'bearer',
    adminOnly: true,
    request: { body: updateScanSettingsBody },
    responses: { 200: { description: 'The scan settings.', schema: scanSettingsSchema } },
  },
  {
    method: 'post',
    path: '/api/v1/widget/sign_in/',
    operationId: 'signInToScan',
    tag: 'scanning',
    summary: 'Sign a user in inside a scanned widget',
    description:
      "With a scan's key: a user of the company signs in, the key is revoked and a new one that names the user is answered (same code, " +
      'target, policy and expiry). Its bookings record the user; it may book under every policy and link its VIRGIN code. A wrong ' +
      "password, or a user of another company, answers 401; any key that is not a scan's 403 `access_denied`. Counts against the login limit.",
    security: 'api_key',
    request: { body: scanSignInBody },
    responses: { 200: { description: 'The new key of the scan.', schema: scanSignInSchema, headers: { 'Cache-Control': '`no-store`.' } } },
  },
);
