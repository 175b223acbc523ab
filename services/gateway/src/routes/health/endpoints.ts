/** The gateway's own probes: alive, and able to reach the database (it authenticates against it). */
import Joi from 'joi';
import { endpoints, reply } from '@pi/common';
import type { GatewayContext } from '../../context';

export const healthSchema = Joi.object({ status: Joi.string().valid('ok').required() }).id('Health');
export const readySchema = Joi.object({ status: Joi.string().valid('ready').required() }).id('Ready');
export const unavailableSchema = Joi.object({ status: Joi.string().valid('unavailable').required() }).id('Unavailable');

export const healthEndpoints = endpoints<GatewayContext>(
  {
    method: 'get',
    path: '/healthz',
    operationId: 'getHealth',
    tag: 'health',
    summary: 'Liveness',
    description: 'The gateway process is up. Not rate limited.',
    security: 'none',
    responses: { 200: { description: 'Alive.', schema: healthSchema } },
    handle: () => Promise.resolve({ status: 'ok' }),
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
    handle: async ({ sequelize }) => {
      try {
        await sequelize.query('SELECT 1');
        return { status: 'ready' };
      } catch {
        return reply(503, { status: 'unavailable' });
      }
    },
  },
);
