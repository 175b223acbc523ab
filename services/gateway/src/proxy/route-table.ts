/**
 * Which part of the system owns which public path, and how its callers authenticate. There is no list of
 * patterns here any more: it is the public path table (http/public-paths.ts), built from the operations each
 * service documents beside its routes, so the proxy, the policies and the routers cannot disagree on a path.
 */
import { SERVICE_APIS } from '../docs/apis';
import { DOCS_ASSET_MOUNTS } from '../docs/ui';
import { AuthKind, PublicMount, PublicPaths, ServiceName } from '../http/public-paths';
import { PAGE_ASSET_MOUNTS } from '../pages/router';

export type { AuthKind, ServiceName } from '../http/public-paths';

/** The static mounts beside the documented operations: the pages' and the documentation UIs' assets. */
export const PUBLIC_MOUNTS: PublicMount[] = [
  ...PAGE_ASSET_MOUNTS.map((prefix) => ({ prefix, owner: 'pages' as const })),
  ...DOCS_ASSET_MOUNTS.map((prefix) => ({ prefix, owner: 'gateway' as const })),
];

let table: PublicPaths | undefined;

/** The gateway's public path table, built once. */
export function publicPathTable(): PublicPaths {
  table ??= new PublicPaths(SERVICE_APIS, PUBLIC_MOUNTS);
  return table;
}

/** The service a raw path is proxied to and how its callers authenticate; undefined for the gateway's own paths and unknown ones. */
export function routeFor(path: string): { service: ServiceName; auth: AuthKind } | undefined {
  const result = publicPathTable().resolve(path);
  if ('reason' in result) return undefined;
  const service = result.resolved.service;
  return service ? { service, auth: result.resolved.route.auth } : undefined;
}
