/** HTTP shapes of /api/v1/qr-codes/: generating, listing and looking up codes, and printing their labels. */
import Joi from 'joi';
import { QR_STATUSES, QR_TARGET_TYPES, SCAN_POLICIES, orderingQuery, schemas, searchQuery } from '@pi/common';
import { CODE_SHAPE, QR_CODE_ORDERING } from '../../commands/codes';
import { MAX_SHEET_LABELS } from '../../labels/layout';
import { codeSchema } from '../widget/schema';

export const generateCodesBody = Joi.object({
  count: Joi.number().strict().integer().min(1).max(1000).required().description('How many new VIRGIN codes to generate.'),
});

export const listCodesQuery = Joi.object({
  ...schemas.pagination,
  status: Joi.string().valid(...QR_STATUSES),
  target_type: Joi.string().valid(...QR_TARGET_TYPES),
  target_id: schemas.uuid,
  search: searchQuery('the code'),
  ordering: orderingQuery(QR_CODE_ORDERING),
});

/** `{code}` of `/api/v1/qr-codes/{code}/` and of its labels. */
export const codeParams = Joi.object({ code: codeSchema.required() });

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

/** A sheet of the codes named in `codes`, or a page of the company's codes in one `status`. */
export const sheetQuery = Joi.object({
  status: Joi.string()
    .valid(...QR_STATUSES)
    .description(`Print the company's codes in this status, newest first, ${MAX_SHEET_LABELS} a page (instead of \`codes\`).`),
  codes: Joi.when('status', {
    is: Joi.exist(),
    then: Joi.forbidden().messages({ 'any.unknown': '{#label} cannot be combined with status' }),
    otherwise: codeList.required(),
  }).description(`Comma-separated codes to print, 1 to ${MAX_SHEET_LABELS}; required without \`status\`, refused with it.`),
  page: Joi.when('status', {
    is: Joi.exist(),
    then: Joi.number().integer().min(1).default(1),
    otherwise: Joi.forbidden().messages({ 'any.unknown': '{#label} applies to status only' }),
  }).description('With `status` only: the page of codes to print (from 1).'),
});

/** `POST /api/v1/qr-codes/{code}/configure/`: the target of the widget's `configure_qr/`, the code being in the path. */
export const configureCodeBody = Joi.object({
  target_type: Joi.string()
    .valid(...QR_TARGET_TYPES)
    .required(),
  target_id: schemas.uuid.required().description("A product, item or work order of the caller's company."),
});

/** `PUT /api/v1/qr-codes/{code}/scan_policy/`: the code's own scan policy, or none. */
export const scanPolicyBody = Joi.object({
  scan_policy: Joi.string()
    .valid(...SCAN_POLICIES)
    .allow(null)
    .required()
    .description("`read`, `book` or `staff`; null: the company's scan policy."),
});
