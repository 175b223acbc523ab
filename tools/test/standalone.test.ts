/**
 * The `npm start` launcher and the admin CLI, end to end, as separate processes: embedded PostgreSQL in a
 * temporary DATA_DIR (no DATABASE_URL, no REDIS_URL), five services on free ports, registration and login
 * through the gateway, the stop of everything when the database is killed under it (exit 1, nothing left
 * running), the admin CLI on the stopped system, and a second start on the same DATA_DIR that still has
 * everything and stops cleanly.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { chromium } from 'playwright-core';
import { CHROMIUM_ARGS, CHROMIUM_PATH, loudBanner } from './chromium';
import {
  CHECK_RULES_CLI,
  Launcher,
  cleanUp,
  describeOutput,
  distinctFreePorts,
  exitWithin,
  expectNothingLeft,
  http,
  logIn,
  processesLeftAfter,
  runCli,
  startLauncher,
  stopLauncher,
  waitForReady,
} from './launcher';

describe('standalone launcher and admin CLI (separate processes, embedded PostgreSQL)', function () {
  this.timeout(180_000);

  let dataDir: string;
  let env: NodeJS.ProcessEnv;
  let baseUrl: string;
  let launcher: Launcher | undefined;

  const first = { company: `Standalone Co ${process.pid}`, username: `first_admin_${process.pid}`, password: 'first-admin-password-1' };
  const cli = { company: `CLI Co ${process.pid}`, username: `cli_admin_${process.pid}` };
  let cliOutput: {
    company: { id: string; name: string };
    user: { id: string; username: string };
    password: string;
    api_key: { id: string; key: string; tier: string };
  };

  before(async function () {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-standalone-test-'));
    const [gateway, inventory, qr, monitor, notifier, pg] = await distinctFreePorts(6);
    env = { ...process.env };
    for (const name of [
      'DATABASE_URL',
      'REDIS_URL',
      'JWT_SECRET',
      'INTERNAL_JWT_SECRET',
      'SECRET_ENCRYPTION_KEY',
      'PUBLIC_BASE_URL',
      'TEST_DATABASE',
      'NODE_ENV',
    ]) {
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
      // The check_rules run by hand below must be the only one (standalone-monitoring.test.ts tests the schedule).
      CHECK_RULES_INTERVAL_SECONDS: '0',
    });
    baseUrl = `http://127.0.0.1:${gateway}`;
  });

  after(async function () {
    this.timeout(60_000);
    await cleanUp(dataDir, launcher);
  });

  it('starts on an empty DATA_DIR, serves registration and the two VIRTUAL locations, and stops everything, exit 1, when its database is killed', async () => {
    launcher = startLauncher(env);
    await waitForReady(launcher);
    expect(launcher.stdout()).to.include(`starting embedded PostgreSQL in ${path.join(dataDir, 'postgres')} (port ${env.EMBEDDED_PG_PORT})`);
    expect(launcher.stdout()).to.match(/applied migrations: /);
    const state = JSON.parse(fs.readFileSync(path.join(dataDir, 'standalone.json'), 'utf8'));
    expect(state.postgres.port).to.equal(Number(env.EMBEDDED_PG_PORT));
    expect(fs.statSync(path.join(dataDir, 'standalone.json')).mode & 0o777).to.equal(0o600);

    const reg = await http(baseUrl, 'POST', '/api/v1/register/', {
      body: { company_name: first.company, username: first.username, password: first.password },
    });
    expect(reg.status, JSON.stringify(reg.body)).to.equal(201);
    expect(reg.body.company.name).to.equal(first.company);
    expect(reg.body.user.username).to.equal(first.username);
    expect(reg.body.api_key.key).to.be.a('string').that.is.not.empty;

    const token = await logIn(baseUrl, first.username, first.password);
    const locations = await http(baseUrl, 'GET', '/api/v1/locations/', { token });
    expect(locations.status, JSON.stringify(locations.body)).to.equal(200);
    expect(locations.body.count).to.equal(2);
    const virtual = (locations.body.results as { name: string; type: string; is_system: boolean }[]).filter((l) => l.type === 'VIRTUAL');
    expect(virtual.map((l) => l.name).sort()).to.deep.equal(['Inbound', 'Outbound']);
    expect(virtual.every((l) => l.is_system)).to.equal(true);

    const unauthenticated = await http(baseUrl, 'GET', '/api/v1/locations/');
    expect(unauthenticated.status).to.equal(401);

    // The database dies under the running system (a kill -9, the out-of-memory killer). The services would
    // answer 503 for good; the launcher stops them and exits 1, so that its supervisor starts it again.
    // (SIGTERM's clean stop: standalone-monitoring.test.ts; SIGINT's: below.)
    const postmaster = Number(fs.readFileSync(path.join(dataDir, 'postgres', 'postmaster.pid'), 'utf8').split('\n')[0]);
    process.kill(postmaster, 'SIGKILL');
    const exit = await exitWithin(launcher, 30_000);
    expect(exit, describeOutput(launcher)).to.deep.equal({ code: 1, signal: null });
    expect(launcher.stdout()).to.include('[standalone] embedded PostgreSQL exited unexpectedly (SIGKILL); stopping everything');
    expect(launcher.stdout()).to.include('[standalone] stopped');
    expect(await processesLeftAfter(dataDir, 15_000), 'processes left').to.equal('');
  });

  it('admin CLI creates a company on the stopped system and sets an API key tier', async () => {
    const created = await runCli(['create-company', '--name', cli.company, '--username', cli.username], env);
    expect(created.code, created.stderr).to.equal(0);
    cliOutput = JSON.parse(created.stdout);
    expect(cliOutput.company.name).to.equal(cli.company);
    expect(cliOutput.company.id).to.match(/^[0-9a-f-]{36}$/);
    expect(cliOutput.user.username).to.equal(cli.username);
    expect(cliOutput.password).to.be.a('string').with.length.greaterThan(8);
    expect(cliOutput.api_key.key).to.be.a('string').that.is.not.empty;
    expect(cliOutput.api_key.id).to.match(/^[0-9a-f-]{36}$/);
    expect(cliOutput.api_key.tier).to.not.equal('premium');
    // The CLI started the embedded PostgreSQL for itself; it must have stopped it again.
    expectNothingLeft(dataDir);

    const premium = await runCli(['set-tier', cliOutput.api_key.id, 'premium'], env);
    expect(premium.code, premium.stderr).to.equal(0);
    expect(JSON.parse(premium.stdout)).to.deep.equal({ id: cliOutput.api_key.id, tier: 'premium' });

    const gold = await runCli(['set-tier', cliOutput.api_key.id, 'gold'], env);
    expect(gold.code, `stdout: ${gold.stdout}`).to.not.equal(0);
    expect(gold.code).to.not.equal(null);
    // The error names the argument and the valid tiers (and is a one-line message, not a stack trace).
    expect(gold.stderr).to.match(/^admin: /);
    expect(gold.stderr).to.include('{"tier":"tier must be one of [free, standard, premium]"}');
    expect(gold.stderr).to.not.match(/\n\s+at /);
    expect(gold.stdout).to.not.include('"tier"');
    expectNothingLeft(dataDir);
  });

  it('starts again on the same DATA_DIR with both companies and the new tier, and stops cleanly on SIGINT', async () => {
    expect(cliOutput, 'the CLI test must have run').to.not.equal(undefined);
    // Logging to files, and only fatal messages, in the cluster's own settings, as `ALTER SYSTEM` leaves them:
    // the launcher still sees the server come up (with either, it used to wait forever).
    const autoConf = path.join(dataDir, 'postgres', 'postgresql.auto.conf');
    fs.appendFileSync(autoConf, "logging_collector = on\nlog_destination = 'csvlog'\nlog_min_messages = 'fatal'\n");
    launcher = startLauncher(env);
    await waitForReady(launcher);
    expect(launcher.stdout()).to.include('database schema is up to date');
    expect(launcher.stdout()).to.include('check_rules is not scheduled (CHECK_RULES_INTERVAL_SECONDS=0)');

    // Registered before the database was killed: committed, so recovered.
    const firstToken = await logIn(baseUrl, first.username, first.password);
    const cliToken = await logIn(baseUrl, cli.username, cliOutput.password);

    const keys = await http(baseUrl, 'GET', '/api/v1/api-keys/', { token: cliToken });
    expect(keys.status, JSON.stringify(keys.body)).to.equal(200);
    const key = (keys.body.results as { id: string; tier: string }[]).find((k) => k.id === cliOutput.api_key.id);
    expect(key, JSON.stringify(keys.body)).to.not.equal(undefined);
    expect(key!.tier).to.equal('premium');

    // Each company sees only its own keys.
    const firstKeys = await http(baseUrl, 'GET', '/api/v1/api-keys/', { token: firstToken });
    expect(firstKeys.status, JSON.stringify(firstKeys.body)).to.equal(200);
    expect((firstKeys.body.results as { id: string }[]).map((k) => k.id)).to.not.include(cliOutput.api_key.id);
    expect(firstKeys.body.count).to.be.greaterThan(0);

    // The pages of the system as the README starts it (npm start): the dashboard signs in, the widget page loads.
    await expectPagesWork(baseUrl, first.username, first.password);

    // check_rules finds the running standalone database and its secrets through DATA_DIR alone.
    const checkRules = await runCli([], env, 90_000, CHECK_RULES_CLI);
    expect(checkRules.code, checkRules.stderr).to.equal(0);
    expect(checkRules.stdout).to.match(/^companies: 2$/m);
    expect(checkRules.stdout).to.include('deliveries sent: 0');

    const exit = await stopLauncher(launcher, 'SIGINT');
    expect(exit, describeOutput(launcher)).to.deep.equal({ code: 0, signal: null });
    expect(launcher.stdout()).to.include('[standalone] stopped');
    expectNothingLeft(dataDir);
  });
});

/**
 * Signs in to the dashboard and opens the widget (which asks for a scan), in Debian's headless Chromium
 * (skipped, loudly, where it is not installed; .ci/run installs it). Only the launcher's gateway is reachable.
 */
async function expectPagesWork(baseUrl: string, username: string, password: string): Promise<void> {
  if (!fs.existsSync(CHROMIUM_PATH)) {
    loudBanner(`CHROMIUM IS NOT INSTALLED at ${CHROMIUM_PATH}: the standalone pages check is SKIPPED`);
    return;
  }
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS });
  try {
    const page = await browser.newPage();
    const outside: string[] = [];
    await page.route('**/*', (route) =>
      new URL(route.request().url()).origin === baseUrl ? route.continue() : (outside.push(route.request().url()), route.abort()),
    );
    const errors: string[] = [];
    page.on('pageerror', (err) => errors.push(err.message));
    await page.goto(`${baseUrl}/dashboard/`);
    await page.getByLabel('Username').fill(username);
    await page.getByLabel('Password').fill(password);
    await page.keyboard.press('Enter');
    // The first screen after signing in is the overview (docs/api/overview-and-appearance.md).
    await page.getByRole('heading', { level: 1, name: 'Overview' }).waitFor({ timeout: 15_000 });

    const stored = await page.evaluate(() =>
      (globalThis as unknown as { sessionStorage: { getItem(key: string): string | null } }).sessionStorage.getItem('pi-dashboard.tokens'),
    );
    expect(Object.keys(JSON.parse(stored ?? '{}')), 'the dashboard keeps its tokens in sessionStorage').to.include('access');

    // The widget without a scan token (or an embedding key) asks for a scan.
    await page.goto(`${baseUrl}/widget/`);
    await page.getByRole('heading', { name: 'Scan a QR code' }).waitFor({ timeout: 15_000 });
    expect(errors).to.deep.equal([]);
    expect(outside).to.deep.equal([]);
  } finally {
    await browser.close();
  }
}
