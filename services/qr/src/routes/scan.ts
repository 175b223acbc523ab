/**
 * Public endpoints (the gateway's anonymous token): the scan redirect `/go/<code>/` and the widget's
 * `exchange_token/`. A scanned label is a public object, so neither takes credentials.
 */
import { endpoints, type Call } from '@pi/common';
import { CODE_SHAPE, codeForScan } from '../commands/codes';
import { exchangeToken, signRedirectToken } from '../commands/scan';
import type { QrContext } from '../context';
import { presentQrInfo, tokenExchangeSchema } from '../presenters/qr-code';
import { exchangeTokenBody } from './schema';

const NOT_FOUND_PAGE = `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Unknown QR code</title>
<meta name="viewport" content="width=device-width, initial-scale=1"></head>
<body style="font-family: system-ui, sans-serif; margin: 3rem auto; max-width: 28rem; padding: 0 1rem">
<h1>Unknown QR code</h1><p>This code is not known to this inventory service. Check that you scanned the right label.</p></body></html>`;

const tag = 'scan';

export const scanEndpoints = endpoints<QrContext>(
  {
    method: 'get',
    path: '/go/{code}/',
    operationId: 'scanQrCode',
    rateLimits: ['qr_redirect'],
    tag,
    summary: 'Follow a scanned label to the widget',
    description: 'Takes no credentials. The answer is never cached (`Cache-Control: no-store`, `Referrer-Policy: no-referrer`).',
    security: 'none',
    responses: {
      302: {
        description:
          'To `/widget/?token=<10-minute one-time token>`. The body is a one-line note naming the URL ' +
          '(`Found. Redirecting to …`; an HTML paragraph instead when the client asks for `text/html` only).',
        contentType: 'text/plain',
        headers: { Location: 'The widget URL with the redirect token.' },
      },
      404: { description: 'An unknown code: a plain HTML page.', contentType: 'text/html' },
    },
    // Validates nothing (schema.ts): a malformed code answers the HTML page, as an unknown one does.
    handle: async (ctx, { params, res }: Call<unknown, unknown, { code: string }>) => {
      const { config } = ctx;
      const code = String(params.code);
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
    },
  },
  {
    method: 'post',
    path: '/api/v1/widget/exchange_token/',
    operationId: 'exchangeQrToken',
    tag,
    summary: 'Exchange a redirect token for an API key, once',
    description:
      'Takes no credentials: the token is one. It answers a key minted for this scan that reaches only what the code points at ' +
      "(docs/api/scanning.md), under the code's or the company's scan policy, with the tier and allowed domains of the company's " +
      "widget key; it expires after the company's scan key lifetime (8 hours by default), or with the widget key if sooner. " +
      'An expired token answers 410 `token_expired`, a used one 410 `token_used`, a forged or malformed one 400 `invalid_token`; ' +
      'a company without an active widget key 409 `widget_key_unavailable`.',
    security: 'none',
    request: { body: exchangeTokenBody },
    responses: {
      200: { description: "The scan's key and the code.", schema: tokenExchangeSchema, headers: { 'Cache-Control': '`no-store`.' } },
    },
    errors: [409, 410],
    handle: async (ctx, { body, res }: Call<unknown, { token: string }>) => {
      const { apiKey, expiresAt, code, policy } = await exchangeToken(ctx, body.token);
      res.setHeader('Cache-Control', 'no-store');
      return { api_key: apiKey, expires_at: expiresAt, qr: presentQrInfo(code), scan: { policy, signed_in_user: null } };
    },
  },
);
