import type { ChannelView } from '../commands/channels';

/**
 * A notification channel, as its company's admins see it (only they reach these endpoints), with the plain
 * signing `secret` receivers verify `X-PI-Signature` with.
 */
export function presentChannel({ channel: c, secret }: ChannelView) {
  return {
    id: c.id,
    name: c.name,
    kind: c.kind,
    url: c.url,
    recipients: c.recipients,
    events: c.events,
    max_attempts: c.maxAttempts,
    is_active: c.isActive,
    secret,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
}
