/**
 * Printable labels (dashboard, bearer): `{code}/label.svg` and `{code}/label.png` for one code, and
 * `labels.svg` / `labels.pdf` for A4 sheets of many. Each label's symbol encodes the code's scan URL,
 * `{base}/go/<code>/`. Mounted before the qr-codes router, so `labels.svg` is never taken for a code.
 */
import { Router, type Request, type Response } from 'express';
import { validate } from '@pi/common';
import { ownedCode } from '../../commands/codes';
import type { QrContext } from '../../context';
import { labelPng } from '../../labels/label-png';
import { labelSvg, sheetSvg } from '../../labels/label-svg';
import { SheetRequest, sheetCodes } from '../../labels/sheet-codes';
import { sheetPdf } from '../../labels/sheet-pdf';
import { scanUrl } from '../../presenters/qr-code';
import { codeParams, sheetQuery } from './schema';

/** Labels change only if the code's URL does; they are the company's, so shared caches keep none. */
function sendPrintable(res: Response, type: 'svg' | 'png' | 'pdf', fileName: string, content: string | Buffer) {
  res.setHeader('Cache-Control', 'private, max-age=300');
  res.setHeader('Content-Disposition', `inline; filename="${fileName}"`);
  res.type(type).send(content);
}

export function labelsRouter(ctx: QrContext): Router {
  const { config } = ctx;
  const router = Router();
  const base = '/api/v1/qr-codes';

  const sheetLabels = async (req: Request) => {
    const codes = await sheetCodes(ctx, req.identity!, req.query as unknown as SheetRequest);
    return codes.map((code) => ({ code, url: scanUrl(config.PUBLIC_BASE_URL, code) }));
  };
  router.get(`${base}/labels.svg`, validate({ query: sheetQuery }), async (req, res) => {
    sendPrintable(res, 'svg', 'qr-labels.svg', sheetSvg(await sheetLabels(req)));
  });
  router.get(`${base}/labels.pdf`, validate({ query: sheetQuery }), async (req, res) => {
    sendPrintable(res, 'pdf', 'qr-labels.pdf', await sheetPdf(await sheetLabels(req)));
  });

  router.get(`${base}/:code/label.svg`, validate({ params: codeParams }), async (req, res) => {
    const { code } = await ownedCode(ctx, req.identity!, String(req.params.code));
    sendPrintable(res, 'svg', `qr-${code}.svg`, labelSvg(scanUrl(config.PUBLIC_BASE_URL, code), code));
  });

  router.get(`${base}/:code/label.png`, validate({ params: codeParams }), async (req, res) => {
    const { code } = await ownedCode(ctx, req.identity!, String(req.params.code));
    sendPrintable(res, 'png', `qr-${code}.png`, await labelPng(scanUrl(config.PUBLIC_BASE_URL, code), code));
  });
  return router;
}
