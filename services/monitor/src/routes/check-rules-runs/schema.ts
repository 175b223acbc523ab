/** HTTP shapes of /api/v1/check-rules/runs/. */
import Joi from 'joi';
import { schemas } from '@pi/common';

export const listRunsQuery = Joi.object({ ...schemas.pagination });
