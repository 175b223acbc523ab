/**
 * `engine_config` of a product model, validated with joi on create and update. The profile is the tracking
 * mode and `engine_type` must match it; every problem is reported, as `{path, message}` pairs, in one 400
 * `invalid_engine_config` answer (docs/api/catalog-and-records.md).
 */
import Joi from 'joi';
import { ACCEPTED_TRIGGER_TYPES, AppError, ENGINE_TYPE_OF, Profile, SEVERITIES, Severity, dateOffsetCondition, stockLevel, thresholdBounds } from '@pi/common';

export const ENGINE_TYPES = ['counter', 'serialized', 'batch', 'dimensional'] as const;
export const DIMENSIONAL_UNITS = ['mm', 'cm', 'm', 'km', 'in', 'ft', 'yd', 'cm2', 'm2', 'ft2', 'cm3', 'm3', 'ml', 'l', 'g', 'kg', 't', 'oz', 'lb'] as const;

export interface MonitoringRuleConfig {
  trigger_type: (typeof ACCEPTED_TRIGGER_TYPES)[number];
  condition_config: Record<string, unknown>;
  severity: Severity;
}

export interface EngineConfig {
  engine_type: (typeof ENGINE_TYPES)[number];
  unit: string;
  decimals: number;
  min_stock?: number;
  min_threshold?: number;
  max_stock?: number;
  monitoring_rules?: MonitoringRuleConfig[];
}

export interface EngineConfigProblem {
  path: string;
  message: string;
}

export class InvalidEngineConfigError extends AppError {
  constructor(readonly problems: EngineConfigProblem[]) {
    super(
      400,
      'invalid_engine_config',
      'The engine config is invalid.',
      { engine_config: problems.map((p) => `${p.path}: ${p.message}`).join('; ') },
      {
        validation_errors: problems,
      },
    );
  }
}

const monitoringRule = Joi.object({
  trigger_type: Joi.string()
    .valid(...ACCEPTED_TRIGGER_TYPES)
    .required(),
  condition_config: Joi.when('trigger_type', {
    switch: [
      { is: 'THRESHOLD', then: thresholdBounds.required() },
      { is: 'DATE_OFFSET', then: dateOffsetCondition.required() },
    ],
    otherwise: Joi.object().default({}),
  }),
  severity: Joi.string()
    .valid(...SEVERITIES)
    .default('WARNING'),
});

function buildSchema(profile: Profile) {
  const dimensional = profile === 'DIMENSIONAL';
  return Joi.object({
    engine_type: Joi.string()
      .valid(...ENGINE_TYPES)
      .required(),
    unit: dimensional
      ? Joi.string()
          .valid(...DIMENSIONAL_UNITS)
          .required()
      : Joi.string()
          .min(1)
          .max(16)
          .pattern(/^[\p{L}\p{N} _%/.-]+$/u)
          .default('pcs'),
    decimals:
      profile === 'SERIALIZED'
        ? Joi.number().strict().valid(0).default(0)
        : Joi.number()
            .strict()
            .integer()
            .min(0)
            .max(6)
            .default(dimensional ? 2 : 0),
    min_stock: stockLevel,
    min_threshold: stockLevel,
    max_stock: stockLevel,
    monitoring_rules: Joi.array().items(monitoringRule).max(20),
  });
}

/**
 * One schema per profile, built on first use: building one costs more than validating with it (a 5,000-row
 * import spent about 1.3 s of CPU building its profile's schema again for every row).
 */
const schemas = new Map<Profile, Joi.ObjectSchema>();
function schemaFor(profile: Profile): Joi.ObjectSchema {
  let schema = schemas.get(profile);
  if (!schema) schemas.set(profile, (schema = buildSchema(profile)));
  return schema;
}

const isNumber = (v: unknown): v is number => typeof v === 'number' && Number.isFinite(v);
const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/**
 * Rules joi cannot express alone: the profile/engine match, bounds, rules only some profiles support. It
 * runs on joi's output even when joi found problems (so that every problem is listed at once), so it checks
 * the type of each value it reads: a wrongly typed value has been reported by joi already.
 */
function crossFieldProblems(profile: Profile, config: EngineConfig): EngineConfigProblem[] {
  const problems: EngineConfigProblem[] = [];
  const expected = ENGINE_TYPE_OF[profile];
  if (config.engine_type && config.engine_type !== expected) {
    problems.push({ path: 'engine_type', message: `engine_type '${config.engine_type}' does not match profile ${profile} (expected '${expected}')` });
  }
  if (isNumber(config.max_stock)) {
    const max = config.max_stock;
    const mins = [config.min_stock, config.min_threshold].filter(isNumber);
    if (mins.some((min) => min > max)) problems.push({ path: 'max_stock', message: 'max_stock must not be below min_stock / min_threshold' });
  }
  const rules: unknown[] = Array.isArray(config.monitoring_rules) ? config.monitoring_rules : [];
  rules.forEach((rule, i) => {
    if (!isObject(rule)) return;
    const where = `monitoring_rules.${i}`;
    if (rule.trigger_type === 'CUSTOM') problems.push({ path: `${where}.trigger_type`, message: 'CUSTOM rules are reserved and not implemented' });
    if (rule.trigger_type === 'DATE_OFFSET' && profile !== 'BATCH') {
      problems.push({ path: `${where}.trigger_type`, message: 'DATE_OFFSET rules need a product with batches (profile BATCH)' });
    }
    const c = isObject(rule.condition_config) ? rule.condition_config : {};
    if (rule.trigger_type === 'THRESHOLD' && isNumber(c.min) && isNumber(c.max) && c.min > c.max) {
      problems.push({ path: `${where}.condition_config.max`, message: 'max must not be below min' });
    }
  });
  return problems;
}

/** Validates and completes (defaults) an engine config for `profile`; throws InvalidEngineConfigError. */
export function validateEngineConfig(profile: Profile, raw: unknown): EngineConfig {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new InvalidEngineConfigError([{ path: '', message: 'engine_config must be an object' }]);
  }
  const result: Joi.ValidationResult<unknown> = schemaFor(profile).validate(raw, { abortEarly: false, errors: { wrap: { label: false } } });
  const { error } = result;
  const value: unknown = result.value;
  const problems: EngineConfigProblem[] = (error?.details ?? []).map((d) => ({ path: d.path.join('.'), message: d.message }));
  problems.push(...crossFieldProblems(profile, value as EngineConfig));
  if (problems.length) throw new InvalidEngineConfigError(problems);
  return value as EngineConfig;
}
