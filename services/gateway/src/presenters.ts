/** The JSON of each identity resource, decided in one place. Key values appear only where they are created. */
import type { ApiKey, Company, User } from '@pi/common';

type Row<T> = Pick<T, Extract<keyof T, string>>;

export function presentCompany(c: Pick<Company, 'id' | 'name'>) {
  return { id: c.id, name: c.name };
}

export function presentUser(u: Pick<User, 'id' | 'username' | 'email' | 'role' | 'isActive'> & { createdAt?: Date }) {
  return { id: u.id, username: u.username, email: u.email, role: u.role, is_active: u.isActive, created_at: u.createdAt ?? null };
}

export function presentApiKey(k: Row<ApiKey>, value?: string) {
  return {
    id: k.id,
    name: k.name,
    prefix: k.prefix,
    ...(value !== undefined ? { key: value } : {}),
    permissions: k.permissions,
    tier: k.tier,
    allowed_domains: k.allowedDomains,
    expires_at: k.expiresAt,
    is_widget_key: k.isWidgetKey,
    minted_from: k.parentKeyId ?? null,
    qr_code: k.qrCode ?? null,
    revoked_at: k.revokedAt,
    last_used_at: k.lastUsedAt,
    usage_count: Number(k.usageCount),
    created_at: k.createdAt,
  };
}
