/** HTTP shapes of scan sessions, scan settings and the widget's sign-in (docs/api/scanning.md). */
import Joi from 'joi';
import { SCAN_POLICIES, schemas } from '@pi/common';

export const listScanSessionsQuery = Joi.object({
  ...schemas.pagination,
  include_ended: Joi.boolean().default(false).description('Also revoked and expired sessions.'),
});

/** Five minutes to seven days. */
export const MIN_SCAN_KEY_SECONDS = 300;
export const MAX_SCAN_KEY_SECONDS = 7 * 86_400;

export const updateScanSettingsBody = Joi.object({
  policy: Joi.string()
    .valid(...SCAN_POLICIES)
    .description('What a scan may do: `read`, `book` or `staff`.'),
  key_lifetime_seconds: Joi.number()
    .strict()
    .integer()
    .min(MIN_SCAN_KEY_SECONDS)
    .max(MAX_SCAN_KEY_SECONDS)
    .description(`How long a scan's key lives, in seconds (${MIN_SCAN_KEY_SECONDS} to ${MAX_SCAN_KEY_SECONDS}).`),
}).min(1);

/** The key may come in the body too (the third place docs/api/authentication.md names): authentication read it, the command does not. */
export const scanSignInBody = Joi.object({
  username: Joi.string().max(150).required(),
  password: Joi.string().max(128).required(),
  api_key: Joi.any().strip(),
});
