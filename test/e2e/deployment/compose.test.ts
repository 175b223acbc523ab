/**
 * docker-compose.yml: the system on one host. The file is read as compose reads it (merge keys, `${VAR…}`
 * from .env), and checked against the services' config modules; its commands (the one-shot migrations, the
 * check_rules schedule) are run the way its containers run them, from the image's layout
 * (support/runtime-tree.ts), on a database of their own.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { TestDatabase, createTestDatabase } from '../../support/database';
import { ROOT, composeEnvironment, interpolate, loadCompose, variablesOf } from './support/files';
import { runPi, startPi } from './support/image';
import { eventually } from '../../support/wait';
import { ProcessSpec, SERVICES, configProblems, knownBySchema, processSpecs, requiredByProcess, sampleValue } from './support/settings';

const APP_SERVICES = [...SERVICES, 'migrate', 'scheduler'];
const compose = loadCompose();

/** Every variable the file requires (`${VAR:?…}`), with a sample value: what an operator's .env holds. */
function sampleDotenv(): Record<string, string> {
  const required = new Set<string>();
  const visit = (v: unknown): void => {
    if (typeof v === 'string') {
      for (const found of variablesOf(v)) if (found.required) required.add(found.name);
    } else if (Array.isArray(v)) v.forEach(visit);
    else if (v && typeof v === 'object') Object.values(v).forEach(visit);
  };
  visit(compose.services);
  return Object.fromEntries([...required].map((name) => [name, sampleValue(name) || 'sample']));
}

/** The process a compose service runs: its command through the image's `pi` (the scheduler's loop runs check_rules). */
function processOf(name: string): ProcessSpec {
  const command: string[] = compose.services[name].command;
  const specs = Object.values(processSpecs());
  const direct = specs.find((s) => command.length === 1 && s.command === command[0]);
  if (direct) return direct;
  const script = command.join(' ');
  const looped = specs.find((s) => new RegExp(`\\bpi ${s.command}\\b`).test(script));
  if (!looped) throw new Error(`compose service ${name} runs ${JSON.stringify(command)}, no process of ours`);
  return looped;
}

describe('deployment: docker compose (docker-compose.yml)', function () {
  this.timeout(120_000);
  let database: TestDatabase | undefined;

  after(async function () {
    this.timeout(30_000);
    await database?.drop();
  });

  it('parses, and runs PostgreSQL, Redis, a mail catcher, the migrations, the five services and the check_rules scheduler', () => {
    expect(Object.keys(compose.services).sort()).to.deep.equal([
      'gateway',
      'inventory',
      'mailpit',
      'migrate',
      'monitor',
      'notifier',
      'postgres',
      'qr',
      'redis',
      'scheduler',
    ]);
    for (const name of APP_SERVICES) {
      expect(compose.services[name].image, name).to.equal('${PI_IMAGE:-pi-inventory:local}');
      expect(compose.services[name].build, name).to.deep.equal({ context: '.' });
    }
    expect(compose.services.postgres.image).to.match(/^postgres:\d+/);
    expect(compose.services.redis.image).to.match(/^redis:\d+/);
    expect(compose.services.mailpit.image).to.match(/^axllent\/mailpit:/);
  });

  it('publishes a port for the gateway only, the one it listens on', () => {
    for (const [name, service] of Object.entries<any>(compose.services)) {
      expect(service.network_mode, name).to.equal(undefined);
      if (name !== 'gateway') expect(service.ports, `${name} publishes no port`).to.equal(undefined);
    }
    const [published] = compose.services.gateway.ports.map((p: string) => interpolate(p, {}));
    expect(compose.services.gateway.ports).to.have.length(1);
    const gatewayPort = composeEnvironment(compose.services.gateway, sampleDotenv()).GATEWAY_PORT;
    expect(published).to.equal(`8000:${gatewayPort}`);
    expect(interpolate(compose.services.gateway.ports[0], { PI_HTTP_PORT: '8080' })).to.equal(`8080:${gatewayPort}`);
  });

  it('gives each process every setting its config module requires, in an environment its config validation accepts in production mode', async () => {
    const dotenv = sampleDotenv();
    expect(Object.keys(dotenv).sort()).to.deep.equal(['INTERNAL_JWT_SECRET', 'JWT_SECRET', 'POSTGRES_PASSWORD', 'QR_TOKEN_SECRET', 'SECRET_ENCRYPTION_KEY']);
    const specs = processSpecs();
    await Promise.all(Object.values(specs).map(requiredByProcess)); // in parallel: each starts a process or three
    for (const name of APP_SERVICES) {
      const spec = processOf(name);
      const env = composeEnvironment(compose.services[name], dotenv);
      expect(Object.keys(env), `${name} names every setting \`pi ${spec.command}\` requires`).to.include.members(await requiredByProcess(spec));
      expect(configProblems(spec, env), name).to.deep.equal([]);
      expect(env.NODE_ENV, name).to.equal('production');
      if (knownBySchema(spec.schema).includes('REDIS_URL')) expect(env.REDIS_URL, `${name} REDIS_URL`).to.equal('redis://redis:6379');
      if (knownBySchema(spec.schema).includes('EMAIL_HOST'))
        expect(env, name).to.include({ EMAIL_HOST: 'mailpit', EMAIL_PORT: '1025', EMAIL_USE_TLS: 'false' });
      if (env.DATABASE_URL) expect(new URL(env.DATABASE_URL).host, name).to.equal('postgres:5432');
    }
    expect(APP_SERVICES.map((n) => processOf(n).command).sort()).to.deep.equal(['check_rules', 'gateway', 'inventory', 'migrate', 'monitor', 'notifier', 'qr']);
    // The gateway finds each service where that service listens.
    const gateway = composeEnvironment(compose.services.gateway, dotenv);
    for (const name of SERVICES.filter((s) => s !== 'gateway')) {
      const port = composeEnvironment(compose.services[name], dotenv)[specs[name].portVariable!];
      expect(gateway[`${name.toUpperCase()}_URL`], name).to.equal(`http://${name}:${port}`);
    }
    // What is unset in .env falls back to the defaults of the configuration table (docs/operations/configuration.md), or stops compose.
    expect(() => composeEnvironment(compose.services.qr, { ...dotenv, QR_TOKEN_SECRET: '' })).to.throw(/QR_TOKEN_SECRET/);
  });

  it('gives each service a stop grace period that covers its SIGTERM handling (the HTTP drain, and the notifier its jobs)', () => {
    const seconds = (v: string) => Number(/^(\d+)s$/.exec(v)?.[1] ?? NaN);
    for (const name of SERVICES) {
      // libs/common serve.ts drains requests for up to 20 s; a notifier job takes up to 40 s (email timeouts).
      const needed = 20 + (name === 'notifier' ? 40 : 0);
      expect(seconds(compose.services[name].stop_grace_period), name).to.be.at.least(needed + 5);
    }
    // The image's PID 1 (tini) forwards the signal; compose adds no init of its own.
    for (const name of APP_SERVICES) expect(compose.services[name].init, name).to.equal(false);
    expect(compose.services.scheduler.environment.TINI_KILL_PROCESS_GROUP, 'a run in progress stops with the loop').to.equal('1');
  });

  it('holds no secret: each comes from .env without a default, and .env stays out of git and of the build context', () => {
    const secretLike = /(SECRET|PASSWORD|_KEY)$/;
    for (const [name, service] of Object.entries<any>(compose.services)) {
      for (const [key, value] of Object.entries<any>(service.environment ?? {})) {
        if (!secretLike.test(key) || key === 'EMAIL_HOST_PASSWORD') continue;
        const vars = variablesOf(String(value));
        expect(vars.length, `${name}.${key} comes from .env`).to.be.greaterThan(0);
        expect(
          vars.every((v) => v.required && !v.hasDefault),
          `${name}.${key} has no default`,
        ).to.equal(true);
      }
      const url = service.environment?.DATABASE_URL;
      if (url)
        expect(
          variablesOf(url).map((v) => [v.name, v.required]),
          `${name} DATABASE_URL`,
        ).to.deep.equal([['POSTGRES_PASSWORD', true]]);
    }
    expect(fs.readFileSync(path.join(ROOT, '.gitignore'), 'utf8').split('\n')).to.include('.env');
    expect(fs.readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n')).to.include('.env');
  });

  it('runs the migrations first: a one-shot service after a healthy PostgreSQL, which every other process waits for', async function () {
    this.timeout(120_000);
    const migrate = compose.services.migrate;
    expect(migrate.command).to.deep.equal(['migrate']);
    expect(migrate.restart).to.equal('no');
    expect(migrate.depends_on).to.deep.equal({ postgres: { condition: 'service_healthy' } });
    expect(compose.services.postgres.healthcheck.test.join(' ')).to.include('pg_isready');
    for (const name of APP_SERVICES.filter((n) => n !== 'migrate')) {
      expect(compose.services[name].depends_on?.migrate, `${name} waits for migrate`).to.deep.equal({ condition: 'service_completed_successfully' });
    }
    for (const name of SERVICES) {
      expect(compose.services[name].healthcheck, `${name} keeps the image's HEALTHCHECK`).to.equal(undefined);
      expect(compose.services[name].restart, name).to.equal('unless-stopped');
    }

    // Run as compose runs it, on an empty database of its own: it applies everything, then nothing.
    database = await createTestDatabase();
    const env = { ...composeEnvironment(migrate, sampleDotenv()), DATABASE_URL: database.url };
    const first = await runPi(migrate.command, env);
    expect(first.code, first.text).to.equal(0);
    expect(first.text).to.match(/^applied: 0001-identity\.js, /m);
    const again = await runPi(migrate.command, env);
    expect(again.code, again.text).to.equal(0);
    expect(again.text).to.include('schema is up to date');
  });

  it('keeps every Redis key (noeviction), and runs check_rules every CHECK_RULES_INTERVAL seconds in the scheduler, or by hand', async function () {
    this.timeout(60_000);
    const redis = compose.services.redis.command as string[];
    expect(redis[redis.indexOf('--maxmemory-policy') + 1]).to.equal('noeviction');
    const scheduler = compose.services.scheduler;
    expect(scheduler.ports).to.equal(undefined);
    expect(scheduler.healthcheck).to.deep.equal({ disable: true });
    expect(composeEnvironment(scheduler, sampleDotenv()).CHECK_RULES_INTERVAL).to.equal('300');

    // The loop, with a one-second interval, on the migrated database of the previous test (no companies:
    // nothing of the shared test database is touched). By hand it is `pi check_rules`, the same run.
    if (!database) this.skip();
    const env = { ...composeEnvironment(scheduler, sampleDotenv()), DATABASE_URL: database.url, CHECK_RULES_INTERVAL: '1' };
    delete (env as Record<string, string>).REDIS_URL; // no Redis named `redis` here: deliveries would be sent synchronously
    const loop = await startPi(
      'scheduler',
      scheduler.command.map((c: string) => interpolate(c, {})),
      env,
      { waitFor: false },
    );
    try {
      await eventually(() => (loop.output().match(/^companies: 0$/gm) ?? []).length >= 2, 'two check_rules runs', 30_000);
    } finally {
      await loop.stop('SIGTERM', 10_000);
    }
    const byHand = await runPi(['check_rules'], env);
    expect(byHand.code, byHand.text).to.equal(0);
    expect(byHand.text).to.include('companies: 0');
  });
});
