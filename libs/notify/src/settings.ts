/**
 * Delivery settings shared by the monitor (check_rules, channel tests) and the notifier: the key that
 * decrypts channel secrets, Redis, the email transport with its documented defaults (docs/operations/configuration.md), and how channels are kept
 * apart (docs/api/monitoring-and-notifications.md "Delivery guarantees"). Validated at start with the rest of each process's config.
 */
import Joi from 'joi';

export interface DeliverySettings {
  /** Base64 of 32 bytes; decrypts channel secrets (AES-256-GCM). */
  SECRET_ENCRYPTION_KEY: string;
  /** Unset: no queue; deliveries are sent synchronously by check_rules (the standalone default). */
  REDIS_URL?: string;
  /** Webhooks to loopback addresses, for development and tests only; refused when NODE_ENV=production. */
  ALLOW_LOOPBACK_WEBHOOKS: boolean;
  DEBUG: boolean;
  /** `console` (log the message) or `smtp`; default console when DEBUG, else smtp (docs/operations/configuration.md). */
  EMAIL_BACKEND: 'console' | 'smtp';
  EMAIL_HOST: string;
  EMAIL_PORT: number;
  EMAIL_HOST_USER: string;
  EMAIL_HOST_PASSWORD: string;
  EMAIL_USE_TLS: boolean;
  DEFAULT_FROM_EMAIL: string;
  /** Sends in flight to one channel at once, across every notifier (and check_rules). */
  CHANNEL_MAX_CONCURRENT_SENDS: number;
  /** Failed attempts in a row after which a channel is paused (its deliveries wait). */
  CHANNEL_PAUSE_AFTER_FAILURES: number;
  /** While a channel is paused, how often one of its deliveries is tried as a probe. */
  CHANNEL_PROBE_INTERVAL_MS: number;
}

export const CHANNEL_DEFAULTS = {
  CHANNEL_MAX_CONCURRENT_SENDS: 2,
  CHANNEL_PAUSE_AFTER_FAILURES: 5,
  CHANNEL_PROBE_INTERVAL_MS: 60_000,
} as const;

export const deliveryEnv: Record<keyof DeliverySettings, Joi.Schema> = {
  SECRET_ENCRYPTION_KEY: Joi.string().base64().required(),
  REDIS_URL: Joi.string().uri({ scheme: ['redis', 'rediss'] }),
  ALLOW_LOOPBACK_WEBHOOKS: Joi.boolean()
    .default(false)
    .when('NODE_ENV', {
      is: 'production',
      then: Joi.valid(false).messages({ 'any.only': 'ALLOW_LOOPBACK_WEBHOOKS must not be true in production' }),
    }),
  DEBUG: Joi.boolean().default(false),
  EMAIL_BACKEND: Joi.string()
    .valid('console', 'smtp')
    .default((parent: { DEBUG?: boolean | string }) => (parent.DEBUG === true || parent.DEBUG === 'true' ? 'console' : 'smtp')),
  EMAIL_HOST: Joi.string().default('localhost'),
  EMAIL_PORT: Joi.number().port().default(587),
  EMAIL_HOST_USER: Joi.string().allow('').default(''),
  EMAIL_HOST_PASSWORD: Joi.string().allow('').default(''),
  EMAIL_USE_TLS: Joi.boolean().default(true),
  DEFAULT_FROM_EMAIL: Joi.string().default('inventory@localhost'),
  CHANNEL_MAX_CONCURRENT_SENDS: Joi.number().integer().min(1).max(50).default(CHANNEL_DEFAULTS.CHANNEL_MAX_CONCURRENT_SENDS),
  CHANNEL_PAUSE_AFTER_FAILURES: Joi.number().integer().min(1).max(1000).default(CHANNEL_DEFAULTS.CHANNEL_PAUSE_AFTER_FAILURES),
  CHANNEL_PROBE_INTERVAL_MS: Joi.number().integer().min(1000).max(86_400_000).default(CHANNEL_DEFAULTS.CHANNEL_PROBE_INTERVAL_MS),
};
