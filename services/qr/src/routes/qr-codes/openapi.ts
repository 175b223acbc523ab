/** The dashboard's QR-code operations (bearer): generate, list, look up, and print labels. */
import { operations, pageSchema } from '@pi/common';
import { MAX_SHEET_LABELS } from '../../labels/layout';
import { generatedCodesSchema, qrCodeSchema } from '../../presenters/qr-code';
import { codeParams, configureCodeBody, generateCodesBody, listCodesQuery, sheetQuery } from './schema';

const qrCodePage = pageSchema(qrCodeSchema, 'QrCodePage');

/** What every printable answer carries besides its body (labels.ts sendPrintable). */
const printableHeaders = {
  'Content-Disposition': '`inline; filename="…"`.',
  'Cache-Control': '`private, max-age=300`.',
};

export const qrCodeOperations = operations(
  {
    method: 'post',
    path: '/api/v1/qr-codes/',
    operationId: 'generateQrCodes',
    tag: 'qr-codes',
    summary: 'Generate a batch of new codes',
    description:
      "Creates `count` new `VIRGIN` codes of the caller's company: 12 random characters each (letters and digits without the look-alikes 0, O, 1, l and I, so a code can be typed from its label), unique across companies.",
    security: 'bearer',
    request: { body: generateCodesBody },
    responses: { 201: { description: 'The new codes.', schema: generatedCodesSchema } },
  },
  {
    method: 'get',
    path: '/api/v1/qr-codes/',
    operationId: 'listQrCodes',
    tag: 'qr-codes',
    summary: 'List codes',
    description:
      "The company's codes, newest first, optionally filtered by status and target. A `target_id` of another company answers 403, " +
      'one that names no product, item or work order (of `target_type`, when given) 404.',
    security: 'bearer',
    request: { query: listCodesQuery },
    responses: { 200: { description: 'A page of codes.', schema: qrCodePage } },
    errors: [404],
  },
  {
    method: 'get',
    path: '/api/v1/qr-codes/{code}/',
    operationId: 'getQrCode',
    tag: 'qr-codes',
    summary: 'Look up one code',
    security: 'bearer',
    request: { params: codeParams },
    responses: { 200: { description: 'The code.', schema: qrCodeSchema } },
  },
  {
    method: 'get',
    path: '/api/v1/qr-codes/{code}/label.svg',
    operationId: 'getQrCodeLabelSvg',
    tag: 'qr-labels',
    summary: 'One printable label as SVG',
    description: 'The QR symbol of `{PUBLIC_BASE_URL}/go/<code>/` (error correction M) with the code in text below.',
    security: 'bearer',
    request: { params: codeParams },
    responses: { 200: { description: 'The label.', contentType: 'image/svg+xml', headers: printableHeaders } },
  },
  {
    method: 'post',
    path: '/api/v1/qr-codes/{code}/configure/',
    operationId: 'configureQrCodeFromDashboard',
    tag: 'qr-codes',
    summary: 'Link a VIRGIN code to a target (→ CONFIGURED)',
    description:
      "The dashboard's way to link a code, the same move as the widget's `configure_qr/` (docs/api/barcodes-and-camera.md): the target " +
      "(a product, item or work order) must be the company's (403 otherwise, 404 if it exists nowhere), and so must the code. A code " +
      'that is not VIRGIN answers 409 `invalid_transition` with `allowed_transitions`. The dashboard links codes in bulk one request a code.',
    security: 'bearer',
    request: { params: codeParams, body: configureCodeBody },
    responses: { 200: { description: 'The code, linked.', schema: qrCodeSchema } },
    errors: [404, 409],
  },
  {
    method: 'get',
    path: '/api/v1/qr-codes/{code}/label.png',
    operationId: 'getQrCodeLabelPng',
    tag: 'qr-labels',
    summary: 'One printable label as PNG',
    description: 'The QR symbol of `{PUBLIC_BASE_URL}/go/<code>/` (error correction M) with the code in text below.',
    security: 'bearer',
    request: { params: codeParams },
    responses: { 200: { description: 'The label (binary PNG).', contentType: 'image/png', headers: printableHeaders } },
  },
  {
    method: 'get',
    path: '/api/v1/qr-codes/labels.svg',
    operationId: 'getQrLabelSheetSvg',
    tag: 'qr-labels',
    summary: 'An A4 sheet of labels as SVG',
    description:
      `The labels of \`codes\` (1–${MAX_SHEET_LABELS}, in the order given, duplicates once) or of a page of the company's codes in one \`status\` ` +
      `(${MAX_SHEET_LABELS} a page). One unknown code answers 404, one of another company's 403; a status page with no codes 404.`,
    security: 'bearer',
    request: { query: sheetQuery },
    responses: { 200: { description: 'The sheet (pages one below the other).', contentType: 'image/svg+xml', headers: printableHeaders } },
    errors: [404],
  },
  {
    method: 'get',
    path: '/api/v1/qr-codes/labels.pdf',
    operationId: 'getQrLabelSheetPdf',
    tag: 'qr-labels',
    summary: 'An A4 sheet of labels as PDF',
    description:
      `The labels of \`codes\` (1–${MAX_SHEET_LABELS}, in the order given, duplicates once) or of a page of the company's codes in one \`status\` ` +
      `(${MAX_SHEET_LABELS} a page), 20 labels an A4 page. One unknown code answers 404, one of another company's 403; a status page with no codes 404.`,
    security: 'bearer',
    request: { query: sheetQuery },
    responses: { 200: { description: 'The sheet (binary PDF).', contentType: 'application/pdf', headers: printableHeaders } },
    errors: [404],
  },
);
