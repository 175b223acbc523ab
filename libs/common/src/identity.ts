/**
 * Who is calling. The gateway authenticates the caller and forwards this identity to the services inside a
 * signed internal token (auth/internal-token.ts); services read it as `req.identity`.
 */
export const PERMISSIONS = ['read', 'write', 'delete'] as const;
export type Permission = (typeof PERMISSIONS)[number];

export const TIERS = ['free', 'standard', 'premium'] as const;
export type Tier = (typeof TIERS)[number];

/** `viewer` reads what a member reads and changes nothing (docs/api/roles-and-audit-log.md). */
export const ROLES = ['admin', 'member', 'viewer'] as const;
export type Role = (typeof ROLES)[number];

/** What a scan lets its key do (docs/api/scanning.md): see stock, book that target's stock, or book only once a user signed in. */
export const SCAN_POLICIES = ['read', 'book', 'staff'] as const;
export type ScanPolicy = (typeof SCAN_POLICIES)[number];

/**
 * The reach of a key minted by a QR scan: the code, its target when it was scanned (none for a VIRGIN code)
 * and that target's product, the policy, and the user who signed in inside the widget, if one did.
 */
export interface ScanScope {
  code: string;
  policy: ScanPolicy;
  targetType: 'PRODUCT' | 'ITEM' | 'WORK_ORDER' | null;
  targetId: string | null;
  productId: string | null;
  userId: string | null;
}

export interface Identity {
  companyId: string;
  principal: { kind: 'user' | 'api_key'; id: string };
  permissions: Permission[];
  /** Set for users. */
  role?: Role;
  /** Set for API keys. */
  tier?: Tier;
  /** Set for API keys (gateway only, never forwarded): the key whose rate limits this request counts against,
   *  i.e. the widget key a QR scan key was minted from, or the key itself. */
  budgetKeyId?: string;
  /** Set for keys minted by a QR scan: all they may reach. Services check it on every widget endpoint. */
  scan?: ScanScope;
}

/** The permission an HTTP method requires (docs/api/authentication.md). */
export function permissionForMethod(method: string): Permission {
  switch (method.toUpperCase()) {
    case 'GET':
    case 'HEAD':
    case 'OPTIONS':
      return 'read';
    case 'DELETE':
      return 'delete';
    default:
      return 'write';
  }
}

/** A viewer holds only `read`: every write is refused at the gateway and again by every service. */
export function permissionsOfRole(role: Role): Permission[] {
  return role === 'viewer' ? ['read'] : [...PERMISSIONS];
}

/** The request id (set by http/request-id.ts). */
export function requestIdOf(req: object): string {
  const { id } = req as { id?: unknown };
  return typeof id === 'string' || typeof id === 'number' ? String(id) : '';
}

declare global {
  // eslint-disable-next-line @typescript-eslint/no-namespace
  namespace Express {
    interface Request {
      identity?: Identity;
      /** Set by http/request-id.ts on every request. */
      id?: string;
    }
  }
}
