/** The gateway's probes (routes/health.ts). */
import Joi from 'joi';
import { operations } from '@pi/common';

export const healthSchema = Joi.object({ status: Joi.string().valid('ok').required() }).id('Health');
export const readySchema = Joi.object({ status: Joi.string().valid('ready').required() }).id('Ready');
export const unavailableSchema = Joi.object({ status: Joi.string().valid('unavailable').required() }).id('Unavailable');

export const healthOperations = operations(
  {
    method: 'get',
    path: '/healthz',
    operationId: 'getHealth',
    tag: 'health',
    summary: 'Liveness',
    description: 'The gateway process is up. Not rate limited.',
    security: 'none',
    responses: { 200: { description: 'Alive.', schema: healthSchema } },
  },
  {
    method: 'get',
    path: '/readyz',
    operationId: 'getReadiness',
    tag: 'health',
    summary: 'Readiness',
    description: 'The gateway reaches its database. Not rate limited.',
    security: 'none',
    responses: {
      200: { description: 'Ready to serve.', schema: readySchema },
      503: { description: 'The database cannot be reached.', schema: unavailableSchema },
    },
  },
);
