/**
 * Which service owns which public path, and how its callers authenticate. The gateway's own routes
 * (tokens, registration, users, API keys, docs, pages) are mounted before this table is consulted.
 */
export type ServiceName = 'inventory' | 'qr' | 'monitor';
export type AuthKind = 'none' | 'user' | 'api_key';

export interface ServiceRoute {
  pattern: RegExp;
  service: ServiceName;
  auth: AuthKind;
}

const under = (...names: string[]) => new RegExp(`^/api/v1/(${names.join('|')})(/.*)?$`);

export const SERVICE_ROUTES: ServiceRoute[] = [
  { pattern: /^\/api\/v1\/widget\/exchange_token\/?$/, service: 'qr', auth: 'none' },
  { pattern: /^\/api\/v1\/widget\/(qr_info|configure_qr|lock_qr)\/?$/, service: 'qr', auth: 'api_key' },
  { pattern: /^\/api\/v1\/widget(\/.*)?$/, service: 'inventory', auth: 'api_key' },
  { pattern: /^\/go\/[^/]+\/?$/, service: 'qr', auth: 'none' },
  { pattern: under('qr-codes'), service: 'qr', auth: 'user' },
  { pattern: under('monitoring-rules', 'events', 'notification-channels', 'notification-deliveries', 'check-rules'), service: 'monitor', auth: 'user' },
  {
    pattern: under('product-models', 'stock', 'movements', 'locations', 'items', 'batches', 'work-orders', 'export'),
    service: 'inventory',
    auth: 'user',
  },
];

export function routeFor(path: string): ServiceRoute | undefined {
  return SERVICE_ROUTES.find((r) => r.pattern.test(path));
}
