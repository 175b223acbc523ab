/**
 * Widget QR endpoints (API key): `qr_info/`, `configure_qr/` (VIRGIN → CONFIGURED), `lock_qr/` (→ LOCKED).
 * A scan key reaches its own code only, and changes it only once a user signed in (docs/api/scanning.md).
 */
import { Router } from 'express';
import type { Sequelize } from 'sequelize';
import { assertScanMayChangeCode, assertScanReachesCode, validate } from '@pi/common';
import { ownedCode } from '../../commands/codes';
import { configureCode, lockCode } from '../../commands/transitions';
import { presentQrInfo } from '../../presenters/qr-code';
import { configureQrBody, lockQrBody, qrInfoQuery } from './schema';

export function widgetQrRoutes(sequelize: Sequelize): Router {
  const router = Router();
  router.get('/api/v1/widget/qr_info/', validate({ query: qrInfoQuery }), async (req, res) => {
    const code = String(req.query.code);
    assertScanReachesCode(req.identity!, code);
    const found = await ownedCode(req.identity!, code);
    res.json(presentQrInfo(found));
  });

  router.post('/api/v1/widget/configure_qr/', validate({ body: configureQrBody }), async (req, res) => {
    assertScanMayChangeCode(req.identity!, req.body.code);
    const code = await configureCode(sequelize, req.identity!, req.body.code, req.body.target_type, req.body.target_id);
    res.json({ success: true, ...presentQrInfo(code) });
  });

  router.post('/api/v1/widget/lock_qr/', validate({ body: lockQrBody }), async (req, res) => {
    assertScanMayChangeCode(req.identity!, req.body.code);
    const code = await lockCode(sequelize, req.identity!, req.body.code);
    res.json({ success: true, ...presentQrInfo(code) });
  });
  return router;
}
