/**
 * What each deployed process reads, taken from the config modules themselves: the joi schemas the services
 * export (gatewayConfigSchema, qrEnv, monitorEnv, notifierEnv, and the common and delivery variables of
 * libs/common), and the processes' own refusal to start without a setting (their real entry points, run with
 * an empty environment). The suites check the compose file and the manifests against these.
 */
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Joi from 'joi';
import { ConfigError, commonEnv, loadConfig } from '@pi/common';
import { deliveryEnv } from '@pi/notify';
import { gatewayConfigSchema } from '@pi/gateway';
import { monitorEnv } from '@pi/monitor';
import { notifierEnv } from '@pi/notifier';
import { qrEnv } from '@pi/qr';
import { runToExit } from '../../../support/processes';
import { ROOT } from './files';

export const SERVICES = ['gateway', 'inventory', 'qr', 'monitor', 'notifier'] as const;
export type ServiceName = (typeof SERVICES)[number];

/** A process of a deployment: a service, or a one-shot command. */
export interface ProcessSpec {
  /** What the image's `pi` command calls it (the Dockerfile). */
  command: string;
  /** Its entry point, relative to the repository (and to /app in the image). */
  entry: string;
  /** The joi schema of its settings; validating a deployment's environment with it must succeed. */
  schema: Joi.ObjectSchema;
  /** The variable holding its port (services). */
  portVariable?: string;
  /** Settings the schema does not check but the process needs (check_rules and migrate find DATABASE_URL themselves). */
  alsoRequired: string[];
}

/** The port variable as runService reads it (its default aside: deployments set every port). */
const port = () => Joi.number().port();

/** The npm script's `node <file>`: where `npm run <name>` starts (root package.json). */
export function scriptEntry(name: string): string {
  const scripts = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts;
  const m = /(?:^|&&\s*)node\s+(\S+\.js)\s*$/.exec(scripts[name] ?? '');
  if (!m) throw new Error(`package.json script "${name}" does not end in \`node <file>\``);
  return m[1];
}

/** The services' schemas are built the way libs/common's runService builds them: common + own + port. */
export function processSpecs(): Record<ServiceName | 'check_rules' | 'migrate', ProcessSpec> {
  const service = (name: string, env: Record<string, Joi.Schema>): ProcessSpec => {
    const portVariable = `${name.toUpperCase()}_PORT`;
    return {
      command: name,
      entry: `services/${name}/dist/src/main.js`,
      schema: Joi.object({ ...commonEnv, ...env, [portVariable]: port() }),
      portVariable,
      alsoRequired: [],
    };
  };
  return {
    gateway: { command: 'gateway', entry: 'services/gateway/dist/src/main.js', schema: gatewayConfigSchema, portVariable: 'GATEWAY_PORT', alsoRequired: [] },
    inventory: service('inventory', {}),
    qr: service('qr', qrEnv),
    monitor: service('monitor', monitorEnv),
    notifier: service('notifier', notifierEnv),
    check_rules: {
      command: 'check_rules',
      entry: scriptEntry('check_rules'),
      schema: Joi.object({ NODE_ENV: commonEnv.NODE_ENV, ...deliveryEnv }),
      alsoRequired: ['DATABASE_URL'],
    },
    migrate: { command: 'migrate', entry: scriptEntry('migrate'), schema: Joi.object({ NODE_ENV: commonEnv.NODE_ENV }), alsoRequired: ['DATABASE_URL'] },
  };
}

/** The keys a joi object schema marks as required. */
export function requiredBySchema(schema: Joi.ObjectSchema): string[] {
  const keys = (schema.describe().keys ?? {}) as Record<string, { flags?: { presence?: string } }>;
  return Object.entries(keys)
    .filter(([, d]) => d.flags?.presence === 'required')
    .map(([k]) => k)
    .sort();
}

/** Every key a joi object schema knows. */
export function knownBySchema(schema: Joi.ObjectSchema): string[] {
  return Object.keys(schema.describe().keys ?? {}).sort();
}

/** Validates `env` with `spec`'s schema; answers the problems (empty when it would start). */
export function configProblems(spec: ProcessSpec, env: Record<string, string>): string[] {
  const problems = spec.alsoRequired.filter((k) => !env[k]).map((k) => `"${k}" is required`);
  try {
    loadConfig(spec.schema, env);
  } catch (err) {
    if (err instanceof ConfigError) problems.push(...err.problems);
    else throw err;
  }
  return problems;
}

/** A well-formed stand-in for a secret or an address, by its variable name. */
export function sampleValue(name: string): string {
  if (name === 'DATABASE_URL') return 'postgres://pi:sample-password@postgresql:5432/inventory';
  if (name === 'REDIS_URL') return 'redis://:sample-password@redis:6379';
  if (name === 'SECRET_ENCRYPTION_KEY') return randomBytes(32).toString('base64');
  if (name.endsWith('_SECRET')) return randomBytes(32).toString('hex');
  if (name === 'POSTGRES_PASSWORD') return randomBytes(16).toString('hex');
  return '';
}

/**
 * Runs a process's real entry point with an empty environment (and an empty working directory, so no
 * standalone data is found), then again with what it asked for, and answers every setting it refused to start
 * without. One-shot commands only past the first round: a service given all it requires would start.
 */
export function requiredByProcess(spec: ProcessSpec): Promise<string[]> {
  let found = requiredCache.get(spec.entry);
  if (!found) requiredCache.set(spec.entry, (found = findRequired(spec, spec.portVariable ? 1 : 3)));
  return found;
}

const requiredCache = new Map<string, Promise<string[]>>();

async function findRequired(spec: ProcessSpec, rounds: number): Promise<string[]> {
  const cwd = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-required-'));
  const required = new Set<string>();
  try {
    for (let round = 0; round < rounds; round++) {
      const env: Record<string, string> = { PATH: process.env.PATH ?? '' };
      for (const name of required) env[name] = name === 'DATABASE_URL' ? 'postgres://nobody@127.0.0.1:1/none' : sampleValue(name) || 'x';
      // Generous: seven entry points start at once, and a loaded machine takes seconds to load each one.
      const output = await runToExit(process.execPath, [path.join(ROOT, spec.entry)], { cwd, env, timeoutMs: 60_000 });
      const before = required.size;
      for (const m of output.text.matchAll(/"([A-Z][A-Z0-9_]*)" is required/g)) required.add(m[1]);
      for (const m of output.text.matchAll(/\bNo ([A-Z][A-Z0-9_]*) and no standalone data/g)) required.add(m[1]);
      if (required.size === before) break;
    }
  } finally {
    fs.rmSync(cwd, { recursive: true, force: true });
  }
  return [...required].sort();
}
