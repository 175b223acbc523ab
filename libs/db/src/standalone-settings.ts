/**
 * The settings a standalone system (`npm start`) shares with its commands (`npm run check_rules`, `admin`,
 * `migrate`, `stock:verify`): the launcher records what it gave its services in DATA_DIR/standalone.json,
 * and a command run without DATABASE_URL starts from those, so nothing has to be repeated
 * (docs/operations/configuration.md). With DATABASE_URL set a command is in deployed mode and uses its own environment only.
 *
 * Debug mode, for standalone: NODE_ENV unset or `development` (what `npm start` runs as) means DEBUG=true,
 * so email goes to the console backend unless SMTP is asked for: EMAIL_BACKEND, or an EMAIL_HOST (which
 * means SMTP).
 */
import path from 'node:path';
import { readStandaloneState } from './standalone';

/** Settings recorded by the launcher and read by the commands (secrets included: the file is mode 0600). */
export const SHARED_SETTINGS = [
  'NODE_ENV',
  'DATABASE_URL',
  'REDIS_URL',
  'INTERNAL_JWT_SECRET',
  'JWT_SECRET',
  'QR_TOKEN_SECRET',
  'SECRET_ENCRYPTION_KEY',
  'PUBLIC_BASE_URL',
  'PASSWORD_HASH_COST',
  'DELIVERY_QUEUE_NAME',
  'DELIVERY_QUEUE_PREFIX',
  'ALLOW_LOOPBACK_WEBHOOKS',
  'DEBUG',
  'EMAIL_BACKEND',
  'EMAIL_HOST',
  'EMAIL_PORT',
  'EMAIL_HOST_USER',
  'EMAIL_HOST_PASSWORD',
  'EMAIL_USE_TLS',
  'DEFAULT_FROM_EMAIL',
] as const;

export const dataDirOf = (env: NodeJS.ProcessEnv) => path.resolve(env.DATA_DIR ?? './data');

/** Standalone's defaults on top of the services' own: debug mode in development, SMTP when a mail server is named. */
export function standaloneDefaults(env: NodeJS.ProcessEnv): Record<string, string> {
  const defaults: Record<string, string> = {};
  const development = !env.NODE_ENV || env.NODE_ENV === 'development';
  if (development && env.DEBUG === undefined) defaults.DEBUG = 'true';
  if (env.EMAIL_BACKEND === undefined && env.EMAIL_HOST) defaults.EMAIL_BACKEND = 'smtp';
  return defaults;
}

/** The shared settings the launcher gives its services and records: its environment's, over standalone's defaults. */
export function sharedSettingsOf(env: NodeJS.ProcessEnv): Record<string, string> {
  const given = Object.fromEntries(SHARED_SETTINGS.filter((name) => env[name] !== undefined).map((name) => [name, env[name]!]));
  return { ...standaloneDefaults(env), ...given };
}

/**
 * For command-line tools: their environment, completed from DATA_DIR's standalone state when DATABASE_URL is
 * unset: the generated secrets, then what the last `npm start` ran with, then the command's own environment
 * (which wins). DATABASE_URL set: the environment as it is (deployed mode).
 */
export function standaloneEnvironment(env: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
  if (env.DATABASE_URL) return env;
  const state = readStandaloneState(dataDirOf(env));
  if (!state) return env;
  return { ...state.secrets, ...(state.settings ?? standaloneDefaults(env)), ...env };
}

/** The former name of standaloneEnvironment (it filled in the generated secrets only). */
export const withStandaloneSecrets = standaloneEnvironment;
