/**
 * `/api/v1/qr-codes/` (dashboard, bearer): generate VIRGIN codes in batches, list, look one up, link one to a
 * target, and set one code's scan policy (admins). The printable labels are in labels.ts, routed before these.
 */
import Joi from 'joi';
import { QrTargetType, SCAN_POLICIES, buildPage, endpoints, pageSchema, type Call, type ScanPolicy } from '@pi/common';
import { CodeFilters, generateCodes, listCodes, ownedCode, targetIdOwner } from '../../commands/codes';
import type { QrContext } from '../../context';
import { configureCode } from '../../commands/transitions';
import { generatedCodesSchema, presentQrCode, qrCodeSchema } from '../../presenters/qr-code';
import { codeParams, configureCodeBody, generateCodesBody, listCodesQuery, scanPolicyBody } from './schema';

const base = '/api/v1/qr-codes';
const tag = 'qr-codes';
const qrCodePage = pageSchema(qrCodeSchema, 'QrCodePage');

type CodeCall<Body = unknown> = Call<unknown, Body, { code: string }>;

export const qrCodeEndpoints = endpoints<QrContext>(
  {
    method: 'post',
    path: `${base}/`,
    operationId: 'generateQrCodes',
    tag,
    summary: 'Generate a batch of new codes',
    description:
      "Creates `count` new `VIRGIN` codes of the caller's company: 12 random characters each (letters and digits without the look-alikes 0, O, 1, l and I, so a code can be typed from its label), unique across companies.",
    security: 'bearer',
    request: { body: generateCodesBody },
    responses: { 201: { description: 'The new codes.', schema: generatedCodesSchema } },
    handle: async (ctx, { body, identity }: Call<unknown, { count: number }>) => {
      const codes = await generateCodes(ctx, identity, body.count);
      return { count: codes.length, results: codes.map((c) => presentQrCode(c, ctx.config.PUBLIC_BASE_URL)) };
    },
  },
  {
    method: 'get',
    path: `${base}/`,
    operationId: 'listQrCodes',
    tag,
    summary: 'List codes',
    description:
      "The company's codes, newest first, optionally filtered by status and target. A `target_id` of another company answers 403, " +
      'one that names no product, item or work order (of `target_type`, when given) 404.',
    security: 'bearer',
    request: { query: listCodesQuery },
    responses: { 200: { description: 'A page of codes.', schema: qrCodePage } },
    errors: [404],
    ownedFilters: { target_id: targetIdOwner },
    handle: async (ctx, { query, identity, req }: Call<CodeFilters>) => {
      const { rows, count } = await listCodes(ctx, identity, query);
      const baseUrl = ctx.config.PUBLIC_BASE_URL;
      return buildPage(
        req,
        baseUrl,
        query,
        count,
        rows.map((r) => presentQrCode(r, baseUrl)),
      );
    },
  },
  {
    method: 'get',
    path: `${base}/{code}/`,
    operationId: 'getQrCode',
    tag,
    summary: 'Look up one code',
    security: 'bearer',
    request: { params: codeParams },
    responses: { 200: { description: 'The code.', schema: qrCodeSchema } },
    handle: async (ctx, { params, identity }: CodeCall) => presentQrCode(await ownedCode(ctx, identity, params.code), ctx.config.PUBLIC_BASE_URL),
  },
  {
    method: 'post',
    path: `${base}/{code}/configure/`,
    operationId: 'configureQrCodeFromDashboard',
    tag,
    summary: 'Link a VIRGIN code to a target (→ CONFIGURED)',
    description:
      "The dashboard's way to link a code, the same move as the widget's `configure_qr/` (docs/api/barcodes-and-camera.md): the target " +
      "(a product, item or work order) must be the company's (403 otherwise, 404 if it exists nowhere), and so must the code. A code " +
      'that is not VIRGIN answers 409 `invalid_transition` with `allowed_transitions`. The dashboard links codes in bulk one request a code.',
    security: 'bearer',
    request: { params: codeParams, body: configureCodeBody },
    responses: { 200: { description: 'The code, linked.', schema: qrCodeSchema } },
    errors: [404, 409],
    handle: async (ctx, { params, body, identity }: CodeCall<{ target_type: QrTargetType; target_id: string }>) =>
      presentQrCode(await configureCode(ctx, identity, params.code, body.target_type, body.target_id), ctx.config.PUBLIC_BASE_URL),
  },
  // What a scan of this one code may do, overriding the company's scan policy (docs/api/scanning.md).
  {
    method: 'put',
    path: `${base}/{code}/scan_policy/`,
    operationId: 'setQrCodeScanPolicy',
    tag,
    summary: "Set one code's scan policy",
    description:
      "What a scan of this code may do, instead of the company's scan policy: `read` (see stock), `book` (book the target's stock) or " +
      "`staff` (book once a user signed in inside the widget); null goes back to the company's. Keys already minted keep their policy.",
    security: 'bearer',
    adminOnly: true,
    request: { params: codeParams, body: scanPolicyBody },
    responses: {
      200: {
        description: 'The code with its own scan policy.',
        schema: qrCodeSchema
          .keys({
            scan_policy: Joi.string()
              .valid(...SCAN_POLICIES)
              .allow(null)
              .required(),
          })
          .id('QrCodeWithScanPolicy'),
      },
    },
    errors: [404],
    handle: async (ctx, { params, body, identity }: CodeCall<{ scan_policy: ScanPolicy | null }>) => {
      const row = await ownedCode(ctx, identity, params.code);
      row.scanPolicy = body.scan_policy;
      await row.save();
      return { ...presentQrCode(row, ctx.config.PUBLIC_BASE_URL), scan_policy: row.scanPolicy };
    },
  },
);
