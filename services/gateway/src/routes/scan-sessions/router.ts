/**
 * Scan sessions and scan settings (bearer; admins change them) and the widget's sign-in inside a scan (the
 * scan's key). docs/api/scanning.md.
 */
import { Router } from 'express';
import { ROUTER_OPTIONS, buildPage, idParam, schemas, validate } from '@pi/common';
import { authenticateApiKey, authenticateUser, requireAdmin } from '../../auth/authenticate';
import { listScanSessions, revokeScanSession, scanSettings, signInToScan, updateScanSettings } from '../../commands/scan-sessions';
import type { GatewayContext } from '../../context';
import { presentScanSession, presentScanSettings } from './presenters';
import { listScanSessionsQuery, scanSignInBody, updateScanSettingsBody } from './schema';

export function scanSessionsRouter(ctx: GatewayContext): Router {
  const { config, credentials, usage } = ctx;
  const router = Router(ROUTER_OPTIONS);
  const user = authenticateUser(config.JWT_SECRET, credentials);

  router.get('/api/v1/scan-sessions/', user, requireAdmin, validate({ query: listScanSessionsQuery }), async (req, res) => {
    const query = req.query as unknown as { page: number; page_size: number; include_ended: boolean };
    const { rows, count } = await listScanSessions(ctx, req.identity!, query);
    res.json(buildPage(req, config.PUBLIC_BASE_URL, query, count, rows.map(presentScanSession)));
  });

  router.delete('/api/v1/scan-sessions/:id/', user, requireAdmin, validate({ params: schemas.idParams }), async (req, res) => {
    await revokeScanSession(ctx, req.identity!, idParam(req));
    await credentials.settle(); // the key answers 401 on this gateway before this answers (docs/api/authentication.md "Credential cache")
    res.status(204).end();
  });

  router.get('/api/v1/scan-settings/', user, async (req, res) => {
    res.json(presentScanSettings(await scanSettings(ctx, req.identity!)));
  });

  router.patch('/api/v1/scan-settings/', user, requireAdmin, validate({ body: updateScanSettingsBody }), async (req, res) => {
    const body = req.body as Parameters<typeof updateScanSettings>[2];
    res.json(presentScanSettings(await updateScanSettings(ctx, req.identity!, body)));
  });

  // Signing in changes nothing the key could reach by itself: a `read` scan signs in too.
  const apiKey = authenticateApiKey(usage, new URL(config.PUBLIC_BASE_URL).origin, credentials, 'read');
  router.post('/api/v1/widget/sign_in/', apiKey, validate({ body: scanSignInBody }), async (req, res) => {
    const body = req.body as { username: string; password: string };
    const { value, key, user: signedIn } = await signInToScan(ctx, req.identity!, body.username, body.password);
    await credentials.settle(); // the old key stops working here before the new one is handed out
    res.setHeader('Cache-Control', 'no-store');
    res.json({ api_key: value, expires_at: key.expiresAt, scan: { policy: key.scanPolicy, signed_in_user: signedIn } });
  });
  return router;
}
