/**
 * `PUT /api/v1/qr-codes/{code}/scan_policy/` (dashboard, bearer, admins): what a scan of this one code may do,
 * overriding the company's scan policy (docs/api/scanning.md). Keys already minted keep the policy they had.
 */
import { Router } from 'express';
import Joi from 'joi';
import { PermissionDeniedError, QrCode, SCAN_POLICIES, operations, validate } from '@pi/common';
import type { Identity, ScanPolicy } from '@pi/common';
import { ownedCode } from '../../commands/codes';
import type { QrContext } from '../../context';
import { presentQrCode, qrCodeSchema } from '../../presenters/qr-code';
import { codeParams } from './schema';

export const scanPolicyBody = Joi.object({
  scan_policy: Joi.string()
    .valid(...SCAN_POLICIES)
    .allow(null)
    .required()
    .description("`read`, `book` or `staff`; null: the company's scan policy."),
});

export async function setCodeScanPolicy(ctx: QrContext, identity: Identity, code: string, policy: ScanPolicy | null): Promise<QrCode> {
  if (identity.role !== 'admin') throw new PermissionDeniedError('Only company admins can do this.');
  const row = await ownedCode(ctx, identity, code);
  row.scanPolicy = policy;
  await row.save();
  return row;
}

export function codeScanPolicyRouter(ctx: QrContext): Router {
  const { config } = ctx;
  const router = Router();
  router.put('/api/v1/qr-codes/:code/scan_policy/', validate({ params: codeParams, body: scanPolicyBody }), async (req, res) => {
    const body = req.body as { scan_policy: ScanPolicy | null };
    const row = await setCodeScanPolicy(ctx, req.identity!, String(req.params.code), body.scan_policy);
    res.json({ ...presentQrCode(row, config.PUBLIC_BASE_URL), scan_policy: row.scanPolicy });
  });
  return router;
}

export const codeScanPolicyOperations = operations({
  method: 'put',
  path: '/api/v1/qr-codes/{code}/scan_policy/',
  operationId: 'setQrCodeScanPolicy',
  tag: 'qr-codes',
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
});
