/** POST /api/token/ (login) and POST /api/token/refresh/ (docs/api/authentication.md). */
import Joi from 'joi';
import { endpoints, type Call } from '@pi/common';
import { logIn, refreshAccess } from '../../commands/sessions';
import type { GatewayContext } from '../../context';
import { loginBody, refreshBody } from './schema';

export const tokenPairSchema = Joi.object({
  access: Joi.string().required().description('Access token (HS256 JWT, 900 s): `Authorization: Bearer <access>`.'),
  refresh: Joi.string().required().description('Refresh token (HS256 JWT, 604800 s), for `POST /api/token/refresh/` only.'),
}).id('TokenPair');

export const accessTokenSchema = Joi.object({
  access: Joi.string().required().description('A new access token (900 s).'),
}).id('AccessToken');

export const tokenEndpoints = endpoints<GatewayContext>(
  {
    method: 'post',
    path: '/api/token/',
    operationId: 'obtainToken',
    rateLimits: ['login'],
    tag: 'tokens',
    summary: 'Log in: an access and a refresh token',
    description:
      'A wrong password, an unknown user and a deactivated user all answer the same 401 `authentication_failed`. ' +
      'Limited to 10 attempts per minute (the login limit).',
    security: 'none',
    request: { body: loginBody },
    responses: { 200: { description: 'The token pair.', schema: tokenPairSchema } },
    errors: [401],
    handle: async (ctx, { body }: Call<unknown, { username: string; password: string }>) => logIn(ctx, body.username, body.password),
  },
  {
    method: 'post',
    path: '/api/token/refresh/',
    operationId: 'refreshToken',
    rateLimits: ['login'],
    tag: 'tokens',
    summary: 'A new access token from a refresh token',
    description: 'An access token is refused here (and a refresh token as an access token); so is the token of a deactivated user.',
    security: 'none',
    request: { body: refreshBody },
    responses: { 200: { description: 'The new access token.', schema: accessTokenSchema } },
    errors: [401],
    handle: async (ctx, { body }: Call<unknown, { refresh: string }>) => refreshAccess(ctx, body.refresh),
  },
);
