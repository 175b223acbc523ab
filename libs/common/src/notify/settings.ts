/**
 * Delivery settings shared by the monitor (check_rules, channel tests) and the notifier: the key that
 * decrypts channel secrets, Redis, and the email transport with SPEC.md's defaults. Validated at start
 * with the rest of each process's config.
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
  /** `console` (log the message) or `smtp`; default console when DEBUG, else smtp (SPEC.md). */
  EMAIL_BACKEND: 'console' | 'smtp';
  EMAIL_HOST: string;
  EMAIL_PORT: number;
  EMAIL_HOST_USER: string;
  EMAIL_HOST_PASSWORD: string;
  EMAIL_USE_TLS: boolean;
  DEFAULT_FROM_EMAIL: string;
}

export const deliveryEnv: Record<keyof DeliverySettings, Joi.Schema> = {
  SECRET_ENCRYPTION_KEY: Joi.string().base64().required(),
  REDIS_URL: Joi.string().uri({ scheme: ['redis', 'rediss'] }),
  ALLOW_LOOPBACK_WEBHOOKS: Joi.boolean().default(false).when('NODE_ENV', {
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
};
