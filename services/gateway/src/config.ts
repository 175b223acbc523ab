/** Gateway settings, read and validated once at start (see docs/operations/configuration.md). */
import Joi from 'joi';
import { commonEnv, loadConfig } from '@pi/common';
import { parseRateLimitOverrides } from './rate-limits/limits';
import { parseDashboardOrigins } from './http/cors';

/** log2 of scrypt's N for new password hashes; also read by `npm run admin -- create-company` (cli/admin.ts). */
export const passwordHashCost = Joi.number().integer().min(14).max(20).default(16);

/**
 * The gateway's own: with NODE_ENV=test it may go down to 10 (2 ms a hash instead of 40 ms at 14), because the
 * test suite builds thousands of companies, each with a registration and a login (docs/operations/testing.md).
 * Anywhere else 14 is the floor.
 */
const gatewayPasswordHashCost = passwordHashCost.when('NODE_ENV', { is: 'test', then: Joi.number().min(10) });

const schema = Joi.object({
  ...commonEnv,
  GATEWAY_PORT: Joi.number().port().default(8000),
  GATEWAY_METRICS_PORT: Joi.number().port(),
  JWT_SECRET: Joi.string().min(32).required(),
  INVENTORY_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default('http://127.0.0.1:8001'),
  QR_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default('http://127.0.0.1:8002'),
  MONITOR_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default('http://127.0.0.1:8003'),
  NOTIFIER_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default('http://127.0.0.1:8004'),
  REGISTRATION_OPEN: Joi.boolean().default(true),
  BODY_LIMIT: Joi.string()
    .pattern(/^\d+(b|kb|mb)$/i)
    .default('1mb'),
  PASSWORD_HASH_COST: gatewayPasswordHashCost,
  PROXY_TIMEOUT_MS: Joi.number().integer().min(100).default(30_000),
  API_KEY_USAGE_FLUSH_MS: Joi.number().integer().min(50).max(2000).default(1000),
  AUTH_CACHE_TTL_MS: Joi.number().integer().min(0).max(60_000).default(5000),
  QR_API_KEY_URL_SUNSET: Joi.string().isoDate().default('2027-06-30'),
  RATE_LIMITS: Joi.string().valid('on', 'off').default('on'),
  RATE_LIMIT_OVERRIDES: Joi.string()
    .allow('')
    .default('')
    .custom((value: string) => {
      parseRateLimitOverrides(value);
      return value;
    }),
  RATE_LIMIT_KEY_PREFIX: Joi.string()
    .pattern(/^[A-Za-z0-9:_-]+$/)
    .default('pi:rl'),
  REDIS_URL: Joi.string().uri({ scheme: ['redis', 'rediss'] }),
  TRUSTED_PROXIES: Joi.string().allow('').default(''),
  DASHBOARD_ORIGINS: Joi.string()
    .allow('')
    .default('')
    .custom((value: string, helpers) => {
      try {
        parseDashboardOrigins(value);
      } catch {
        return helpers.error('any.invalid');
      }
      return value;
    })
    .messages({ 'any.invalid': '{{#label}} must be comma-separated http(s) origins such as https://admin.example.com' }),
});

export interface GatewayConfig {
  NODE_ENV: 'development' | 'test' | 'production';
  LOG_LEVEL: string;
  DATABASE_URL: string;
  DATABASE_POOL_MAX: number;
  INTERNAL_JWT_SECRET: string;
  PUBLIC_BASE_URL: string;
  GATEWAY_PORT: number;
  /** The internal listener of `/metrics` (never the public port); unset: the gateway's metrics are not served. */
  GATEWAY_METRICS_PORT?: number;
  /** Bearer token `/metrics` requires when set. */
  METRICS_TOKEN?: string;
  JWT_SECRET: string;
  INVENTORY_URL: string;
  QR_URL: string;
  MONITOR_URL: string;
  NOTIFIER_URL: string;
  REGISTRATION_OPEN: boolean;
  BODY_LIMIT: string;
  /** log2 of scrypt's N for new password hashes. */
  PASSWORD_HASH_COST: number;
  PROXY_TIMEOUT_MS: number;
  API_KEY_USAGE_FLUSH_MS: number;
  /** How long API keys and users stay in the credential cache (changes empty it at once); 0: no cache. */
  AUTH_CACHE_TTL_MS: number;
  /** `X-API-Sunset` of the deprecated `?api_key=` QR URLs (ISO 8601 date). */
  QR_API_KEY_URL_SUNSET: string;
  /** `off` disables every rate limit (the default test gateway); `on` elsewhere. */
  RATE_LIMITS: 'on' | 'off';
  /** `scope=points[/seconds]`, comma-separated, over the documented values (rate-limits/limits.ts). */
  RATE_LIMIT_OVERRIDES: string;
  /** Prefix of the Redis keys of the rate limit counters. */
  RATE_LIMIT_KEY_PREFIX: string;
  /** Counters live here when set (shared by replicas); in memory otherwise. */
  REDIS_URL?: string;
  /** Comma-separated addresses/CIDRs whose X-Forwarded-For is believed (Express `trust proxy`). */
  TRUSTED_PROXIES: string;
  /** Comma-separated origins (`https://admin.example.com`) allowed to call the core API cross-origin; empty: none. */
  DASHBOARD_ORIGINS: string;
}

export const gatewayConfigSchema = schema as Joi.ObjectSchema<GatewayConfig>;

export function loadGatewayConfig(env: NodeJS.ProcessEnv = process.env): GatewayConfig {
  return loadConfig(gatewayConfigSchema, env);
}
