/** `/api/v1/qr-codes/` (dashboard, bearer): generate VIRGIN codes in batches, list, look one up, link one to a target. */
import { Router } from 'express';
import { QrTargetType, buildPage, ownedFilters, validate } from '@pi/common';
import { CodeFilters, generateCodes, listCodes, ownedCode, targetIdOwner } from '../../commands/codes';
import type { QrContext } from '../../context';
import { configureCode } from '../../commands/transitions';
import { presentQrCode } from '../../presenters/qr-code';
import { codeParams, configureCodeBody, generateCodesBody, listCodesQuery } from './schema';

export function qrCodesRouter(ctx: QrContext): Router {
  const { config } = ctx;
  const router = Router();
  const base = '/api/v1/qr-codes';

  router.post(`${base}/`, validate({ body: generateCodesBody }), async (req, res) => {
    const body = req.body as { count: number };
    const codes = await generateCodes(ctx, req.identity!, body.count);
    res.status(201).json({ count: codes.length, results: codes.map((c) => presentQrCode(c, config.PUBLIC_BASE_URL)) });
  });

  router.get(`${base}/`, validate({ query: listCodesQuery }), ownedFilters({ target_id: targetIdOwner }), async (req, res) => {
    const filters = req.query as unknown as CodeFilters;
    const { rows, count } = await listCodes(ctx, req.identity!, filters);
    res.json(
      buildPage(
        req,
        config.PUBLIC_BASE_URL,
        filters,
        count,
        rows.map((r) => presentQrCode(r, config.PUBLIC_BASE_URL)),
      ),
    );
  });

  router.get(`${base}/:code/`, validate({ params: codeParams }), async (req, res) => {
    res.json(presentQrCode(await ownedCode(ctx, req.identity!, String(req.params.code)), config.PUBLIC_BASE_URL));
  });

  /** The widget's `configure_qr/` move for a signed-in user of the dashboard. */
  router.post(`${base}/:code/configure/`, validate({ params: codeParams, body: configureCodeBody }), async (req, res) => {
    const body = req.body as { target_type: QrTargetType; target_id: string };
    const code = await configureCode(ctx, req.identity!, String(req.params.code), body.target_type, body.target_id);
    res.json(presentQrCode(code, config.PUBLIC_BASE_URL));
  });
  return router;
}
