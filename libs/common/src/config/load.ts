/**
 * Configuration is read once per process, from the environment, and validated with joi. Every problem is
 * reported at once; a process with a bad setting refuses to start and names the variable.
 */
import Joi from 'joi';

export class ConfigError extends Error {
  constructor(readonly problems: string[]) {
    super(`Invalid configuration:\n  - ${problems.join('\n  - ')}`);
    this.name = 'ConfigError';
  }
}

/** Validates `env` against `schema` (keys are environment variable names) and returns the converted values. */
export function loadConfig<T>(schema: Joi.ObjectSchema<T>, env: NodeJS.ProcessEnv = process.env): T {
  const result = schema.validate(env, { abortEarly: false, allowUnknown: true, stripUnknown: true, convert: true });
  if (result.error) throw new ConfigError(result.error.details.map((d) => d.message));
  return result.value;
}

/** Variables every process reads. Secrets have no defaults: the standalone launcher generates them. */
export const commonEnv = {
  NODE_ENV: Joi.string().valid('development', 'test', 'production').default('development'),
  LOG_LEVEL: Joi.string().valid('fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent').default('info'),
  DATABASE_URL: Joi.string()
    .uri({ scheme: ['postgres', 'postgresql'] })
    .required(),
  DATABASE_POOL_MAX: Joi.number().integer().min(1).max(200).default(10),
  INTERNAL_JWT_SECRET: Joi.string().min(32).required(),
  PUBLIC_BASE_URL: Joi.string()
    .uri({ scheme: ['http', 'https'] })
    .default('http://localhost:8000'),
  /** When set, `/metrics` answers only this bearer token (docs/operations/metrics.md); unset: the network alone guards it. */
  METRICS_TOKEN: Joi.string().min(32),
};

/** Exits the process with the config problems printed, the way every `main.ts` wants it. */
export function loadConfigOrExit<T>(schema: Joi.ObjectSchema<T>, service: string): T {
  try {
    return loadConfig(schema);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`${service}: ${err.message}\n`);
      process.exit(78); // EX_CONFIG
    }
    throw err;
  }
}
