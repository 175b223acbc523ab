/**
 * What a service's start loads (docs/operations/benchmarks.md, "Start-up"): libraries that only some requests
 * need are loaded by the first such request, not by every start. pdfkit (a label sheet as PDF), yaml (the
 * OpenAPI document as YAML), zxcvbn-ts (a new password's strength) and nodemailer (an email over SMTP) cost
 * 40–200 ms of CPU each to load; the suites of those features show that they still work (labels, openapi,
 * password policy, email delivery). The check_rules command loads no HTTP server's packages at all
 * (`@pi/common/core`).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { buildCompany, buildLocation, buildProduct } from '../support/builders';
import { system, testDatabaseUrl } from '../support/hooks';
import { runToExit } from '../support/processes';
import { CHECK_RULES_ENTRY, ServiceName, ServiceProcesses, startServiceProcesses } from '../support/service-processes';

const PROBE = path.resolve(__dirname, '../support/loaded-packages-probe.js');
const LOADED_ON_FIRST_USE = ['pdfkit', 'yaml', '@zxcvbn-ts/core', 'nodemailer'];
const SERVICES: ServiceName[] = ['inventory', 'qr', 'monitor', 'notifier', 'gateway'];
/** What only a process that serves HTTP needs: a command never loads them (libs/common src/core.ts). */
const HTTP_SERVER_PACKAGES = ['express', 'prom-client', 'jsonwebtoken', 'passport', 'passport-jwt'];

describe('service start-up', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-start-up-'));
  /** The file where the probe lists what the process `name` loaded. */
  const fileOf = (name: string) => path.join(dir, `${name}.txt`);
  /** The settings that preload the probe into the process `name`. */
  const probeEnv = (name: string) => ({ NODE_OPTIONS: `--require ${PROBE}`, LOADED_PACKAGES_FILE: fileOf(name) });
  /** The packages the process `name` had loaded when it exited. */
  const loadedBy = (name: string) => fs.readFileSync(fileOf(name), 'utf8').split('\n');
  let running: ServiceProcesses | undefined;

  after(async () => {
    await running?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('loads no library that only some requests need, in any service', async function () {
    this.timeout(120_000);
    // Each service's own settings, the gateway's included.
    running = await startServiceProcesses(SERVICES, {}, Object.fromEntries(SERVICES.map((service) => [service, probeEnv(service)])));
    // Stopped as an operator would (SIGTERM): the probe writes its list as the process exits.
    for (const service of SERVICES) {
      const stopped = await running.processes[service]!.stop('SIGTERM');
      expect(stopped.code, `${service} exit code`).to.equal(0);
    }
    for (const service of SERVICES) {
      const loaded = loadedBy(service);
      // The probe saw the service's start: its web framework and database driver are there.
      expect(loaded, service).to.include.members(['express', 'pg']);
      expect(
        loaded.filter((name) => LOADED_ON_FIRST_USE.includes(name)),
        service,
      ).to.deep.equal([]);
    }
  });

  it('check_rules, a command, loads no package of an HTTP server', async function () {
    this.timeout(60_000);
    const company = await buildCompany();
    await buildProduct(company, { engine_config: { engine_type: 'counter', min_stock: 1 } });
    await buildLocation(company);
    const env = {
      PATH: process.env.PATH,
      ...probeEnv('check-rules'),
      DATABASE_URL: testDatabaseUrl(),
      SECRET_ENCRYPTION_KEY: system().secretEncryptionKey,
      EMAIL_BACKEND: 'console',
    };
    const run = await runToExit(process.execPath, [CHECK_RULES_ENTRY, '--company', company.id], { env });
    expect(run.code, run.text).to.equal(0);
    // The run did its work (an event opened), so what it loaded is what a run needs.
    expect(run.text).to.include('events opened: 1');
    const loaded = loadedBy('check-rules');
    expect(loaded).to.include.members(['sequelize', 'pg']);
    expect(loaded.filter((name) => HTTP_SERVER_PACKAGES.includes(name))).to.deep.equal([]);
  });
});
