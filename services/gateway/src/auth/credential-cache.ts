/**
 * What authentication reads on every request, cached for a few seconds (AUTH_CACHE_TTL_MS): API keys by
 * the hash of their value and users by id, read with one plain query of the columns authentication needs.
 *
 * A change takes effect at once on every gateway replica: the database notifies each change (triggers of
 * migration 0010; see auth-changes.ts) and every replica drops that entry. Caching is only trusted while the
 * notifications are known to arrive: without a listener, or while its connection is down, every lookup reads
 * the database. A lookup that raced with a change never stores what it read before the change (`epoch`).
 * Only rows that exist are cached, so nothing a client sends can grow the cache past the keys and users in use.
 * docs/api/authentication.md "Credential cache".
 */
import { QueryTypes, Sequelize } from 'sequelize';
import type { Logger, Permission, Role, ScanScope, Tier } from '@pi/common';
import { AuthChangeListener } from './auth-changes';

export interface CachedApiKey {
  id: string;
  companyId: string;
  permissions: Permission[];
  allowedDomains: string[];
  tier: Tier;
  expiresAt: Date | null;
  revokedAt: Date | null;
  parentKeyId: string | null;
  /** Keys minted by a QR scan: their reach (migration 0012). */
  scan: ScanScope | null;
  /** A scan a user signed in to: that user's token version at the sign-in (migration 0023; none counts as 0). */
  scanUserTokenVersion: number;
}

export interface CachedUser {
  id: string;
  companyId: string;
  role: Role;
  isActive: boolean;
  tokenVersion: number;
}

interface Entry<V> {
  value: V;
  companyId: string;
  expiresAt: number;
}

/** Far above the keys and users a gateway sees within a TTL; the oldest entry goes first past it. */
const MAX_ENTRIES = 50_000;

class Entries<V extends { companyId: string }> {
  private readonly map = new Map<string, Entry<V>>();

  /** The entry while it is fresh: stored less than `ttlMs` ago (also if the clock was set back since). */
  get(id: string, now: number, ttlMs: number): Entry<V> | undefined {
    const entry = this.map.get(id);
    if (!entry) return undefined;
    if (entry.expiresAt > now && entry.expiresAt - now <= ttlMs) return entry;
    this.map.delete(id);
    return undefined;
  }

  set(id: string, value: V, expiresAt: number): void {
    this.map.delete(id);
    if (this.map.size >= MAX_ENTRIES) this.map.delete(this.map.keys().next().value!);
    this.map.set(id, { value, companyId: value.companyId, expiresAt });
  }

  delete(id: string): void {
    this.map.delete(id);
  }

  deleteCompany(companyId: string): void {
    for (const [id, entry] of this.map) if (entry.companyId === companyId) this.map.delete(id);
  }

  clear(): void {
    this.map.clear();
  }
}

interface ApiKeyRow {
  id: string;
  company_id: string;
  permissions: Permission[];
  allowed_domains: string[];
  tier: Tier;
  expires_at: Date | null;
  revoked_at: Date | null;
  parent_key_id: string | null;
  qr_code: string | null;
  scan_policy: ScanScope['policy'] | null;
  scan_target_type: ScanScope['targetType'];
  scan_target_id: string | null;
  scan_product_id: string | null;
  scan_user_id: string | null;
  scan_user_token_version: number | null;
}

interface UserRow {
  id: string;
  company_id: string;
  role: Role;
  is_active: boolean;
  token_version: number;
}

export interface CredentialCacheOptions {
  /** 0: no caching. */
  ttlMs: number;
  /** The database to LISTEN on; without it nothing is cached (nothing would tell this gateway of changes). */
  databaseUrl?: string;
  logger?: Logger;
}

export class CredentialCache {
  private readonly keys = new Entries<CachedApiKey>();
  private readonly users = new Entries<CachedUser>();
  private readonly listener?: AuthChangeListener;
  private readonly ttlMs: number;
  /** Bumped by every invalidation: a lookup stores its row only if nothing was invalidated while it read. */
  private epoch = 0;

  constructor(
    private readonly sequelize: Sequelize,
    opts: CredentialCacheOptions,
  ) {
    this.ttlMs = opts.ttlMs;
    if (opts.databaseUrl && opts.ttlMs > 0 && opts.logger) {
      this.listener = new AuthChangeListener({
        databaseUrl: opts.databaseUrl,
        logger: opts.logger,
        handlers: { change: (payload) => this.changed(payload), reset: () => this.reset() },
      });
    }
  }

  /** Starts listening (in the background: until it listens, lookups read the database). */
  async start(): Promise<void> {
    await this.listener?.start();
  }

  async stop(): Promise<void> {
    await this.listener?.stop();
    this.reset();
  }

  /**
   * After a change this gateway made (a key revoked, a user deactivated): resolves once this gateway has
   * received every change notification up to now, so its own next request cannot be served from before it.
   */
  async settle(): Promise<void> {
    await this.listener?.fence();
  }

  private get caching(): boolean {
    return this.listener?.isListening ?? false;
  }

  /**
   * The key whose value hashes to `hash` (revoked and expired keys included: the caller decides). `fresh`
   * reads the database whatever is cached (and caches what it read).
   */
  apiKey(hash: string, { fresh = false } = {}): Promise<CachedApiKey | undefined> {
    return this.lookup(this.keys, hash, () => this.readApiKey(hash), fresh);
  }

  user(id: string): Promise<CachedUser | undefined> {
    return this.lookup(this.users, id, () => this.readUser(id));
  }

  private async lookup<V extends { companyId: string }>(
    entries: Entries<V>,
    id: string,
    read: () => Promise<V | undefined>,
    fresh = false,
  ): Promise<V | undefined> {
    if (this.caching && !fresh) {
      const entry = entries.get(id, Date.now(), this.ttlMs);
      if (entry) return entry.value;
    }
    const epoch = this.epoch;
    const value = await read();
    if (value && this.caching && this.epoch === epoch) entries.set(id, value, Date.now() + this.ttlMs);
    return value;
  }

  private changed(payload: string): void {
    this.epoch += 1;
    const colon = payload.indexOf(':');
    const kind = payload.slice(0, colon);
    const id = payload.slice(colon + 1);
    if (kind === 'key') this.keys.delete(id);
    else if (kind === 'user') this.users.delete(id);
    else if (kind === 'company') {
      this.keys.deleteCompany(id);
      this.users.deleteCompany(id);
    } else this.reset();
  }

  private reset(): void {
    this.epoch += 1;
    this.keys.clear();
    this.users.clear();
  }

  private async readApiKey(hash: string): Promise<CachedApiKey | undefined> {
    const [row] = await this.sequelize.query<ApiKeyRow>(
      `SELECT id, company_id, permissions, allowed_domains, tier, expires_at, revoked_at, parent_key_id,
              qr_code, scan_policy, scan_target_type, scan_target_id, scan_product_id, scan_user_id, scan_user_token_version
         FROM api_keys WHERE key_hash = $1`,
      { bind: [hash], type: QueryTypes.SELECT },
    );
    if (!row) return undefined;
    return {
      id: row.id,
      companyId: row.company_id,
      permissions: row.permissions,
      allowedDomains: row.allowed_domains,
      tier: row.tier,
      expiresAt: row.expires_at,
      revokedAt: row.revoked_at,
      parentKeyId: row.parent_key_id,
      scan:
        row.qr_code && row.scan_policy
          ? {
              code: row.qr_code,
              policy: row.scan_policy,
              targetType: row.scan_target_type,
              targetId: row.scan_target_id,
              productId: row.scan_product_id,
              userId: row.scan_user_id,
            }
          : null,
      scanUserTokenVersion: row.scan_user_token_version ?? 0,
    };
  }

  private async readUser(id: string): Promise<CachedUser | undefined> {
    const [row] = await this.sequelize.query<UserRow>('SELECT id, company_id, role, is_active, token_version FROM users WHERE id = $1', {
      bind: [id],
      type: QueryTypes.SELECT,
    });
    if (!row) return undefined;
    return { id: row.id, companyId: row.company_id, role: row.role, isActive: row.is_active, tokenVersion: row.token_version };
  }
}
