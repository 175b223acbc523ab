/** The qr service's part of the OpenAPI document: one tag per resource, every public operation. */
import type { ServiceApi } from '@pi/common';
import { tokenExchangeSchema } from './presenters/qr-code';
import { qrCodeOperations } from './routes/qr-codes/openapi';
import { exchangeTokenBody } from './routes/schema';
import { codeScanPolicyOperations } from './routes/qr-codes/scan-policy';
import { widgetQrOperations } from './routes/widget/openapi';

export const qrApi: ServiceApi = {
  service: 'qr',
  tags: [
    { name: 'qr-codes', description: "The company's QR codes on the dashboard: generated in batches, listed and looked up." },
    { name: 'qr-labels', description: 'Printable labels of QR codes: one as SVG or PNG, A4 sheets as SVG or PDF.' },
    { name: 'widget-qr', description: 'QR codes in the widget: read, assign to a product, item or work order, lock.' },
    { name: 'scan', description: 'Scanning a label: the redirect and the token exchange.' },
  ],
  operations: [
    ...qrCodeOperations,
    ...codeScanPolicyOperations,
    ...widgetQrOperations,
    {
      method: 'get',
      path: '/go/{code}/',
      operationId: 'scanQrCode',
      tag: 'scan',
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
    },
    {
      method: 'post',
      path: '/api/v1/widget/exchange_token/',
      operationId: 'exchangeQrToken',
      tag: 'scan',
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
    },
  ],
};
