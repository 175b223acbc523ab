/**
 * What a service's start loads (docs/operations/benchmarks.md, "Start-up"): libraries that only some requests
 * need are loaded by the first such request, not by every start. pdfkit (a label sheet as PDF), yaml (the
 * OpenAPI document as YAML), zxcvbn-ts (a new password's strength) and nodemailer (an email over SMTP) cost
 * 40–200 ms of CPU each to load; the suites of those features show that they still work (labels, openapi,
 * password policy, email delivery).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { ServiceName, ServiceProcesses, startServiceProcesses } from '../support/service-processes';

const PROBE = path.resolve(__dirname, '../support/loaded-packages-probe.js');
const LOADED_ON_FIRST_USE = ['pdfkit', 'yaml', '@zxcvbn-ts/core', 'nodemailer'];
const SERVICES: ServiceName[] = ['inventory', 'qr', 'monitor', 'notifier', 'gateway'];

describe('service start-up', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-start-up-'));
  const fileOf = (service: ServiceName) => path.join(dir, `${service}.txt`);
  let running: ServiceProcesses | undefined;

  after(async () => {
    await running?.stop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('loads no library that only some requests need, in any service', async function () {
    this.timeout(120_000);
    const probeEnv = (service: ServiceName) => ({ NODE_OPTIONS: `--require ${PROBE}`, LOADED_PACKAGES_FILE: fileOf(service) });
    // Each service's own settings, the gateway's included.
    running = await startServiceProcesses(SERVICES, {}, Object.fromEntries(SERVICES.map((service) => [service, probeEnv(service)])));
    // Stopped as an operator would (SIGTERM): the probe writes its list as the process exits.
    for (const service of SERVICES) {
      const stopped = await running.processes[service]!.stop('SIGTERM');
      expect(stopped.code, `${service} exit code`).to.equal(0);
    }
    for (const service of SERVICES) {
      const loaded = fs.readFileSync(fileOf(service), 'utf8').split('\n');
      // The probe saw the service's start: its web framework and database driver are there.
      expect(loaded, service).to.include.members(['express', 'pg']);
      expect(
        loaded.filter((name) => LOADED_ON_FIRST_USE.includes(name)),
        service,
      ).to.deep.equal([]);
    }
  });
});
