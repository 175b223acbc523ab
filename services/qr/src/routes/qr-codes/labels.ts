/**
 * Printable labels (dashboard, bearer): `{code}/label.svg` and `{code}/label.png` for one code, and
 * `labels.svg` / `labels.pdf` for A4 sheets of many. Each label's symbol encodes the code's scan URL,
 * `{base}/go/<code>/`. Mounted before the qr-codes router, so `labels.svg` is never taken for a code.
 */
import { Router, type Request, type Response } from 'express';
import Joi from 'joi';
import type { Sequelize } from 'sequelize';
import { QR_STATUSES, validate } from '@pi/common';
import { CODE_SHAPE, ownedCode } from '../../commands/codes';
import type { QrConfig } from '../../config';
import { labelPng } from '../../labels/label-png';
import { labelSvg, sheetSvg } from '../../labels/label-svg';
import { MAX_SHEET_LABELS } from '../../labels/layout';
import { SheetRequest, sheetCodes } from '../../labels/sheet-codes';
import { sheetPdf } from '../../labels/sheet-pdf';
import { scanUrl } from '../../presenters/qr-code';
import { codeSchema } from '../widget/qr';

/** `codes=c1,c2,…`: 1 to 200 well-formed codes, comma-separated, turned into a list. */
const codeList = Joi.string()
  .max(MAX_SHEET_LABELS * 65)
  .custom((value: string, helpers) => {
    const codes = value.split(',').map((c) => c.trim());
    if (codes.length > MAX_SHEET_LABELS) return helpers.message({ custom: `{#label} lists ${codes.length} codes; at most ${MAX_SHEET_LABELS} fit a sheet` });
    const bad = codes.find((c) => !CODE_SHAPE.test(c));
    if (bad === '') return helpers.message({ custom: '{#label} has an empty entry (a comma too many)' });
    if (bad !== undefined) return helpers.message({ custom: `{#label} must be comma-separated QR codes; "${bad.slice(0, 70)}" is not one` });
    return codes;
  });

const sheetQuery = Joi.object({
  status: Joi.string().valid(...QR_STATUSES),
  codes: Joi.when('status', {
    is: Joi.exist(),
    then: Joi.forbidden().messages({ 'any.unknown': '{#label} cannot be combined with status' }),
    otherwise: codeList.required(),
  }),
  page: Joi.when('status', {
    is: Joi.exist(),
    then: Joi.number().integer().min(1).default(1),
    otherwise: Joi.forbidden().messages({ 'any.unknown': '{#label} applies to status only' }),
  }),
});

const codeParams = Joi.object({ code: codeSchema.required() });

/** Labels change only if the code's URL does; they are the company's, so shared caches keep none. */
function sendPrintable(res: Response, type: 'svg' | 'png' | 'pdf', fileName: string, content: string | Buffer) {
  res.setHeader('Cache-Control', 'private, max-age=300');
  res.setHeader('Content-Disposition', `inline; filename="${fileName}"`);
  res.type(type).send(content);
}

export function labelsRouter(sequelize: Sequelize, config: QrConfig): Router {
  const router = Router();
  const base = '/api/v1/qr-codes';

  const sheetLabels = async (req: Request) => {
    const codes = await sheetCodes(sequelize, req.identity!, req.query as unknown as SheetRequest);
    return codes.map((code) => ({ code, url: scanUrl(config.PUBLIC_BASE_URL, code) }));
  };
  router.get(`${base}/labels.svg`, validate({ query: sheetQuery }), async (req, res) => {
    sendPrintable(res, 'svg', 'qr-labels.svg', sheetSvg(await sheetLabels(req)));
  });
  router.get(`${base}/labels.pdf`, validate({ query: sheetQuery }), async (req, res) => {
    sendPrintable(res, 'pdf', 'qr-labels.pdf', await sheetPdf(await sheetLabels(req)));
  });

  router.get(`${base}/:code/label.svg`, validate({ params: codeParams }), async (req, res) => {
    const { code } = await ownedCode(req.identity!, String(req.params.code));
    sendPrintable(res, 'svg', `qr-${code}.svg`, labelSvg(scanUrl(config.PUBLIC_BASE_URL, code), code));
  });

  router.get(`${base}/:code/label.png`, validate({ params: codeParams }), async (req, res) => {
    const { code } = await ownedCode(req.identity!, String(req.params.code));
    sendPrintable(res, 'png', `qr-${code}.png`, await labelPng(scanUrl(config.PUBLIC_BASE_URL, code), code));
  });
  return router;
}
