/**
 * Public routes (the gateway's anonymous token): the scan redirect `/go/<code>/` and the widget's
 * `exchange_token/`. A scanned label is a public object, so neither takes credentials.
 */
import { Router } from 'express';
import { validate } from '@pi/common';
import { CODE_SHAPE, codeForScan } from '../commands/codes';
import { exchangeToken, signRedirectToken } from '../commands/scan';
import type { QrContext } from '../context';
import { presentQrInfo } from '../presenters/qr-code';
import { exchangeTokenBody } from './schema';

const NOT_FOUND_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Unknown QR code</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; margin: 3rem auto; max-width: 28rem; padding: 0 1rem">
<h1>Unknown QR code</h1><p>This code is not known to this inventory service. Check that you scanned the right label.</p></body></html>`;

export function scanRoutes(ctx: QrContext): Router {
  const { config } = ctx;
  const router = Router();

  router.get('/go/:code/', async (req, res) => {
    const code = String(req.params.code);
    const [found] = CODE_SHAPE.test(code) ? await codeForScan(ctx, code) : [];
    res.setHeader('Cache-Control', 'no-store');
    res.setHeader('Referrer-Policy', 'no-referrer');
    // Old labels carried the company key in the URL (`?api_key=`): the gateway strips it and marks the
    // answer deprecated (gateway proxy/deprecations.ts); the redirect never carries a key.
    if (!found) {
      res.status(404).type('html').send(NOT_FOUND_PAGE);
      return;
    }
    const token = signRedirectToken(found.code, found.company_id, config.QR_TOKEN_SECRET);
    res.redirect(302, `${config.PUBLIC_BASE_URL.replace(/\/$/, '')}/widget/?token=${encodeURIComponent(token)}`);
  });

  router.post('/api/v1/widget/exchange_token/', validate({ body: exchangeTokenBody }), async (req, res) => {
    const body = req.body as { token: string };
    const { apiKey, expiresAt, code, policy } = await exchangeToken(ctx, body.token);
    res.setHeader('Cache-Control', 'no-store');
    res.json({ api_key: apiKey, expires_at: expiresAt, qr: presentQrInfo(code), scan: { policy, signed_in_user: null } });
  });
  return router;
}
