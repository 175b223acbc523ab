/** The gateway's own operations in the OpenAPI document: tokens, registration, users, API keys, the audit log, health, docs. */
import type { Endpoint, ServiceApi } from '@pi/common';
import type { GatewayContext } from './context';
import { docsOperations } from './docs/operations';
import { apiKeysEndpoints } from './routes/api-keys/endpoints';
import { auditLogEndpoints } from './routes/audit-log/endpoints';
import { healthEndpoints } from './routes/health/endpoints';
import { registerEndpoints } from './routes/register/endpoints';
import { scanSessionsEndpoints } from './routes/scan-sessions/endpoints';
import { tokenEndpoints } from './routes/token/endpoints';
import { usersEndpoints } from './routes/users/endpoints';

/** Signing in and registering: without a signed-in user, before the limiter of a user's own routes (app.ts). */
export const signInEndpoints: Endpoint<GatewayContext>[] = [...tokenEndpoints, ...registerEndpoints];

/** The company's accounts, keys, audit log and scan sessions: behind that limiter. */
export const accountEndpoints: Endpoint<GatewayContext>[] = [...usersEndpoints, ...apiKeysEndpoints, ...auditLogEndpoints, ...scanSessionsEndpoints];

export const gatewayApi: ServiceApi = {
  service: 'gateway',
  tags: [
    { name: 'tokens', description: 'Bearer tokens for dashboard users and server integrations: log in, refresh.' },
    { name: 'registration', description: 'A new company with its admin user and first API key.' },
    { name: 'users', description: "The company's users; any user reads, admins write. Users are deactivated, never deleted." },
    { name: 'api-keys', description: "The company's API keys, for admins: create (the value is shown once), rotate, revoke, restrict by origin, expire." },
    { name: 'audit-log', description: 'Who changed which user, key, channel, rule, product or location, and how; for admins.' },
    { name: 'scanning', description: 'What a QR scan may reach: scan settings, scan sessions (list, revoke) and signing in inside a scanned widget.' },
    { name: 'health', description: 'Liveness and readiness probes of the gateway.' },
    { name: 'docs', description: 'This document and its two renderings.' },
  ],
  operations: [...signInEndpoints, ...accountEndpoints, ...healthEndpoints, ...docsOperations],
};
