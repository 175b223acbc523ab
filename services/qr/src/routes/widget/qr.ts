/** Widget QR endpoints (API key): `qr_info/`, `configure_qr/` (VIRGIN → CONFIGURED), `lock_qr/` (→ LOCKED). */
import { Router } from 'express';
import Joi from 'joi';
import type { Sequelize } from 'sequelize';
import { QR_TARGET_TYPES, schemas, validate } from '@pi/common';
import { CODE_SHAPE, ownedCode } from '../../commands/codes';
import { configureCode, lockCode } from '../../commands/transitions';
import { presentQrInfo } from '../../presenters/qr-code';

export const codeSchema = Joi.string().pattern(CODE_SHAPE).messages({ 'string.pattern.base': '{#label} is not a QR code' });

export function widgetQrRoutes(sequelize: Sequelize): Router {
  const router = Router();
  router.get('/api/v1/widget/qr_info/', validate({ query: Joi.object({ code: codeSchema.required() }) }), async (req, res) => {
    res.json(presentQrInfo(await ownedCode(req.identity!, String(req.query.code))));
  });

  const configureBody = Joi.object({
    code: codeSchema.required(),
    target_type: Joi.string().valid(...QR_TARGET_TYPES).required(),
    target_id: schemas.uuid.required(),
  });
  router.post('/api/v1/widget/configure_qr/', validate({ body: configureBody }), async (req, res) => {
    const code = await configureCode(sequelize, req.identity!, req.body.code, req.body.target_type, req.body.target_id);
    res.json({ success: true, ...presentQrInfo(code) });
  });

  router.post('/api/v1/widget/lock_qr/', validate({ body: Joi.object({ code: codeSchema.required() }) }), async (req, res) => {
    const code = await lockCode(sequelize, req.identity!, req.body.code);
    res.json({ success: true, ...presentQrInfo(code) });
  });
  return router;
}
