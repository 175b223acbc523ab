/** The gateway's own operations in the OpenAPI document: tokens, registration, users, API keys, the audit log, health, docs. */
import type { ServiceApi } from '@pi/common';
import { docsOperations } from './docs/operations';
import { apiKeysOperations } from './routes/api-keys/openapi';
import { auditLogOperations } from './routes/audit-log/openapi';
import { healthOperations } from './routes/health/openapi';
import { registerOperations } from './routes/register/openapi';
import { scanSessionsOperations } from './routes/scan-sessions/openapi';
import { tokenOperations } from './routes/token/openapi';
import { usersOperations } from './routes/users/openapi';

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
  operations: [
    ...tokenOperations,
    ...registerOperations,
    ...usersOperations,
    ...apiKeysOperations,
    ...auditLogOperations,
    ...scanSessionsOperations,
    ...healthOperations,
    ...docsOperations,
  ],
};
