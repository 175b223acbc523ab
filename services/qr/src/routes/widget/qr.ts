/**
 * Widget QR endpoints (API key): `qr_info/`, `configure_qr/` (VIRGIN → CONFIGURED), `lock_qr/` (→ LOCKED).
 * A scan key reaches its own code only, and changes it only once a user signed in (docs/api/scanning.md).
 */
import { Router } from 'express';
import { QrTargetType, assertScanMayChangeCode, assertScanReachesCode, validate } from '@pi/common';
import { ownedCode } from '../../commands/codes';
import type { QrContext } from '../../context';
import { configureCode, lockCode } from '../../commands/transitions';
import { presentQrInfo } from '../../presenters/qr-code';
import { configureQrBody, lockQrBody, qrInfoQuery } from './schema';

export function widgetQrRoutes(ctx: QrContext): Router {
  const router = Router();
  router.get('/api/v1/widget/qr_info/', validate({ query: qrInfoQuery }), async (req, res) => {
    const { code } = req.query as { code: string };
    assertScanReachesCode(req.identity!, code);
    const found = await ownedCode(ctx, req.identity!, code);
    res.json(presentQrInfo(found));
  });

  router.post('/api/v1/widget/configure_qr/', validate({ body: configureQrBody }), async (req, res) => {
    const body = req.body as { code: string; target_type: QrTargetType; target_id: string };
    assertScanMayChangeCode(req.identity!, body.code);
    const code = await configureCode(ctx, req.identity!, body.code, body.target_type, body.target_id);
    res.json({ success: true, ...presentQrInfo(code) });
  });

  router.post('/api/v1/widget/lock_qr/', validate({ body: lockQrBody }), async (req, res) => {
    const body = req.body as { code: string };
    assertScanMayChangeCode(req.identity!, body.code);
    const code = await lockCode(ctx, req.identity!, body.code);
    res.json({ success: true, ...presentQrInfo(code) });
  });
  return router;
}
