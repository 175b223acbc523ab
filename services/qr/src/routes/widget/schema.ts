/** HTTP shapes of the widget QR endpoints: `qr_info/`, `configure_qr/`, `lock_qr/`. */
import Joi from 'joi';
import { QR_TARGET_TYPES, schemas } from '@pi/common';
import { CODE_SHAPE } from '../../commands/codes';

/** A QR code as a request names it (generated ones are 12 characters without look-alikes). */
export const codeSchema = Joi.string()
  .pattern(CODE_SHAPE)
  .messages({ 'string.pattern.base': '{#label} is not a QR code' })
  .description(
    'A QR code: 6–64 of `A-Za-z0-9_-` (generated codes are 12 characters of letters and digits without the look-alikes 0, O, 1, l and I; older codes may have them).',
  );

export const qrInfoQuery = Joi.object({ code: codeSchema.required() });

export const configureQrBody = Joi.object({
  code: codeSchema.required(),
  target_type: Joi.string()
    .valid(...QR_TARGET_TYPES)
    .required(),
  target_id: schemas.uuid.required().description("A product, item or work order of the caller's company."),
});

export const lockQrBody = Joi.object({ code: codeSchema.required() });
