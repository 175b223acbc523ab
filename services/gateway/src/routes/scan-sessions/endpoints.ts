/**
 * Scan sessions and scan settings (bearer; admins change them) and the widget's sign-in inside a scan (the
 * scan's key). docs/api/scanning.md.
 */
import { buildPage, endpoints, pageSchema, schemas, type Call, type PageRequest, type ScanPolicy } from '@pi/common';
import { listScanSessions, revokeScanSession, scanSettings, signInToScan, updateScanSettings } from '../../commands/scan-sessions';
import type { GatewayContext } from '../../context';
import { presentScanSession, presentScanSettings, scanSessionSchema, scanSettingsSchema, scanSignInSchema } from './presenters';
import { listScanSessionsQuery, scanSignInBody, updateScanSettingsBody } from './schema';

export const scanSessionPageSchema = pageSchema(scanSessionSchema, 'ScanSessionPage');

const tag = 'scanning';

export const scanSessionsEndpoints = endpoints<GatewayContext>(
  {
    method: 'get',
    path: '/api/v1/scan-sessions/',
    operationId: 'listScanSessions',
    tag,
    summary: "List the company's scan sessions",
    description: 'The keys minted by QR scans, newest first: active ones, and with `include_ended=true` revoked and expired ones too.',
    security: 'bearer',
    adminOnly: true,
    request: { query: listScanSessionsQuery },
    responses: { 200: { description: 'One page of scan sessions.', schema: scanSessionPageSchema } },
    handle: async (ctx, { query, identity, req }: Call<PageRequest & { include_ended: boolean }>) => {
      const { rows, count } = await listScanSessions(ctx, identity, query);
      return buildPage(req, ctx.config.PUBLIC_BASE_URL, query, count, rows.map(presentScanSession));
    },
  },
  {
    method: 'delete',
    path: '/api/v1/scan-sessions/{id}/',
    operationId: 'revokeScanSession',
    tag,
    summary: 'Revoke a scan session',
    description:
      "The scan's key answers 401 at once, on every gateway. An id that is no scan session of the company answers 404; a revoked one 409 `key_revoked`.",
    security: 'bearer',
    adminOnly: true,
    request: { params: schemas.idParams },
    responses: { 204: { description: 'Revoked.' } },
    errors: [404, 409],
    handle: async (ctx, { params, identity }: Call) => {
      await revokeScanSession(ctx, identity, params.id);
      await ctx.credentials.settle(); // the key answers 401 on this gateway before this answers (docs/api/authentication.md "Credential cache")
    },
  },
  {
    method: 'get',
    path: '/api/v1/scan-settings/',
    operationId: 'getScanSettings',
    tag,
    summary: "The company's scan settings",
    security: 'bearer',
    responses: { 200: { description: 'The scan policy and the scan key lifetime.', schema: scanSettingsSchema } },
    handle: async (ctx, { identity }: Call) => presentScanSettings(await scanSettings(ctx, identity)),
  },
  {
    method: 'patch',
    path: '/api/v1/scan-settings/',
    operationId: 'updateScanSettings',
    tag,
    summary: "Change the company's scan settings",
    description: 'Applies to scans from now on; keys already minted keep their policy and expiry (revoke them to end them).',
    security: 'bearer',
    adminOnly: true,
    request: { body: updateScanSettingsBody },
    responses: { 200: { description: 'The scan settings.', schema: scanSettingsSchema } },
    handle: async (ctx, { body, identity }: Call<unknown, { policy?: ScanPolicy; key_lifetime_seconds?: number }>) =>
      presentScanSettings(await updateScanSettings(ctx, identity, body)),
  },
  {
    method: 'post',
    path: '/api/v1/widget/sign_in/',
    operationId: 'signInToScan',
    // A password guessed inside a scanned widget is a login (docs/api/scanning.md).
    rateLimits: ['login'],
    tag,
    summary: 'Sign a user in inside a scanned widget',
    description:
      "With a scan's key: a user of the company signs in, the key is revoked and a new one that names the user is answered (same code, " +
      'target, policy and expiry). Its bookings record the user; it may book under every policy and link its VIRGIN code. A wrong ' +
      "password, or a user of another company, answers 401; any key that is not a scan's 403 `access_denied`. Counts against the login limit.",
    security: 'api_key',
    request: { body: scanSignInBody },
    responses: { 200: { description: 'The new key of the scan.', schema: scanSignInSchema, headers: { 'Cache-Control': '`no-store`.' } } },
    handle: async (ctx, { body, identity, res }: Call<unknown, { username: string; password: string }>) => {
      const { value, key, user } = await signInToScan(ctx, identity, body.username, body.password);
      await ctx.credentials.settle(); // the old key stops working here before the new one is handed out
      res.setHeader('Cache-Control', 'no-store');
      return { api_key: value, expires_at: key.expiresAt, scan: { policy: key.scanPolicy, signed_in_user: user } };
    },
  },
);
