/**
 * Printable labels (dashboard, bearer): `{code}/label.svg` and `{code}/label.png` for one code, and
 * `labels.svg` / `labels.pdf` for A4 sheets of many. Each label's symbol encodes the code's scan URL,
 * `{base}/go/<code>/`. Routed before the qr-codes endpoints, so `labels.svg` is never taken for a code.
 */
import type { Response } from 'express';
import { endpoints, type Call, type Identity } from '@pi/common';
import { ownedCode } from '../../commands/codes';
import type { QrContext } from '../../context';
import { labelPng } from '../../labels/label-png';
import { labelSvg, sheetSvg } from '../../labels/label-svg';
import { MAX_SHEET_LABELS } from '../../labels/layout';
import { SheetRequest, sheetCodes } from '../../labels/sheet-codes';
import { sheetPdf } from '../../labels/sheet-pdf';
import { scanUrl } from '../../presenters/qr-code';
import { codeParams, sheetQuery } from './schema';

const base = '/api/v1/qr-codes';
const tag = 'qr-labels';

/** What every printable answer carries besides its body (sendPrintable). */
const printableHeaders = {
  'Content-Disposition': '`inline; filename="…"`.',
  'Cache-Control': '`private, max-age=300`.',
};

/** Labels change only if the code's URL does; they are the company's, so shared caches keep none. */
function sendPrintable(res: Response, type: 'svg' | 'png' | 'pdf', fileName: string, content: string | Buffer) {
  res.setHeader('Cache-Control', 'private, max-age=300');
  res.setHeader('Content-Disposition', `inline; filename="${fileName}"`);
  res.type(type).send(content);
}

async function sheetLabels(ctx: QrContext, identity: Identity, request: SheetRequest) {
  const codes = await sheetCodes(ctx, identity, request);
  return codes.map((code) => ({ code, url: scanUrl(ctx.config.PUBLIC_BASE_URL, code) }));
}

const LABEL = 'The QR symbol of `{PUBLIC_BASE_URL}/go/<code>/` (error correction M) with the code in text below.';
const SHEET =
  `The labels of \`codes\` (1–${MAX_SHEET_LABELS}, in the order given, duplicates once) or of a page of the company's codes in one \`status\` ` +
  `(${MAX_SHEET_LABELS} a page)`;
const SHEET_ERRORS = "One unknown code answers 404, one of another company's 403; a status page with no codes 404.";

type LabelCall = Call<unknown, unknown, { code: string }>;

export const qrLabelEndpoints = endpoints<QrContext>(
  {
    method: 'get',
    path: `${base}/{code}/label.svg`,
    operationId: 'getQrCodeLabelSvg',
    tag,
    summary: 'One printable label as SVG',
    description: LABEL,
    security: 'bearer',
    request: { params: codeParams },
    responses: { 200: { description: 'The label.', contentType: 'image/svg+xml', headers: printableHeaders } },
    handle: async (ctx, { params, identity, res }: LabelCall) => {
      const { code } = await ownedCode(ctx, identity, params.code);
      sendPrintable(res, 'svg', `qr-${code}.svg`, labelSvg(scanUrl(ctx.config.PUBLIC_BASE_URL, code), code));
    },
  },
  {
    method: 'get',
    path: `${base}/{code}/label.png`,
    operationId: 'getQrCodeLabelPng',
    tag,
    summary: 'One printable label as PNG',
    description: LABEL,
    security: 'bearer',
    request: { params: codeParams },
    responses: { 200: { description: 'The label (binary PNG).', contentType: 'image/png', headers: printableHeaders } },
    handle: async (ctx, { params, identity, res }: LabelCall) => {
      const { code } = await ownedCode(ctx, identity, params.code);
      sendPrintable(res, 'png', `qr-${code}.png`, await labelPng(scanUrl(ctx.config.PUBLIC_BASE_URL, code), code));
    },
  },
  {
    method: 'get',
    path: `${base}/labels.svg`,
    operationId: 'getQrLabelSheetSvg',
    tag,
    summary: 'An A4 sheet of labels as SVG',
    description: `${SHEET}. ${SHEET_ERRORS}`,
    security: 'bearer',
    request: { query: sheetQuery },
    responses: { 200: { description: 'The sheet (pages one below the other).', contentType: 'image/svg+xml', headers: printableHeaders } },
    errors: [404],
    handle: async (ctx, { query, identity, res }: Call<SheetRequest>) => {
      sendPrintable(res, 'svg', 'qr-labels.svg', sheetSvg(await sheetLabels(ctx, identity, query)));
    },
  },
  {
    method: 'get',
    path: `${base}/labels.pdf`,
    operationId: 'getQrLabelSheetPdf',
    tag,
    summary: 'An A4 sheet of labels as PDF',
    description: `${SHEET}, 20 labels an A4 page. ${SHEET_ERRORS}`,
    security: 'bearer',
    request: { query: sheetQuery },
    responses: { 200: { description: 'The sheet (binary PDF).', contentType: 'application/pdf', headers: printableHeaders } },
    errors: [404],
    handle: async (ctx, { query, identity, res }: Call<SheetRequest>) => {
      sendPrintable(res, 'pdf', 'qr-labels.pdf', await sheetPdf(await sheetLabels(ctx, identity, query)));
    },
  },
);
