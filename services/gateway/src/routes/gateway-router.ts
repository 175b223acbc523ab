/**
 * The Express router of the gateway's own endpoints. Unlike a service's, whose callers the gateway has already
 * authenticated, each is authenticated here first, as its documented `security` says, then `endpointRouter`
 * does the rest (admin check, validation, owned filters, the handler).
 */
import type { RequestHandler, Router } from 'express';
import { endpointRouter, type ApiOperation, type Endpoint } from '@pi/common';
import { authenticateApiKey, authenticateUser } from '../auth/authenticate';
import type { GatewayContext } from '../context';

export function gatewayRouter(ctx: GatewayContext, list: Endpoint<GatewayContext>[]): Router {
  const { config, credentials, usage } = ctx;
  const authenticators: Record<ApiOperation['security'], RequestHandler[]> = {
    none: [],
    bearer: [authenticateUser(config.JWT_SECRET, credentials)],
    // The gateway's one key operation, signing in inside a scan, changes nothing the key could reach by itself: a `read` scan signs in too.
    api_key: [authenticateApiKey(usage, new URL(config.PUBLIC_BASE_URL).origin, credentials, 'read')],
  };
  return endpointRouter(
    ctx,
    list.map((endpoint) => ({ ...endpoint, before: [...authenticators[endpoint.security], ...(endpoint.before ?? [])] })),
  );
}
