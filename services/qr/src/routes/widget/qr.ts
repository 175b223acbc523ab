/** Widget QR endpoints (API key): `qr_info/`, `configure_qr/` (VIRGIN → CONFIGURED), `lock_qr/` (→ LOCKED). */
import { Router } from 'express';
import type { Sequelize } from 'sequelize';
import { validate } from '@pi/common';
import { ownedCode } from '../../commands/codes';
import { configureCode, lockCode } from '../../commands/transitions';
import { presentQrInfo } from '../../presenters/qr-code';
import { configureQrBody, lockQrBody, qrInfoQuery } from './schema';

export function widgetQrRoutes(sequelize: Sequelize): Router {
  const router = Router();
  router.get('/api/v1/widget/qr_info/', validate({ query: qrInfoQuery }), async (req, res) => {
    res.json(presentQrInfo(await ownedCode(req.identity!, String(req.query.code))));
  });

  router.post('/api/v1/widget/configure_qr/', validate({ body: configureQrBody }), async (req, res) => {
    const code = await configureCode(sequelize, req.identity!, req.body.code, req.body.target_type, req.body.target_id);
    res.json({ success: true, ...presentQrInfo(code) });
  });

  router.post('/api/v1/widget/lock_qr/', validate({ body: lockQrBody }), async (req, res) => {
    const code = await lockCode(sequelize, req.identity!, req.body.code);
    res.json({ success: true, ...presentQrInfo(code) });
  });
  return router;
}
