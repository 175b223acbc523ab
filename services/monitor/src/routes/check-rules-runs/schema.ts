/** HTTP shapes of /api/v1/check-rules/runs/. */
import Joi from 'joi';
import { orderingQuery, schemas } from '@pi/common';
import { RUN_ORDERING } from '../../commands/orderings';

export const listRunsQuery = Joi.object({ ...schemas.pagination, ordering: orderingQuery(RUN_ORDERING) });
