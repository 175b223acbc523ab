/**
 * The real thing, where a container engine runs: `docker build` of the Dockerfile, `docker compose up` of
 * docker-compose.yml with generated secrets, then a registration and a login through the published gateway
 * port and a check_rules run by hand. Where no engine answers (`docker info` fails: these machines have the
 * Docker client only), the suite says so loudly and is skipped; image.test.ts runs the same image layout
 * without an engine.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import { freePort } from '@pi/db';
import { ROOT } from './support/files';
import { skipLoudly } from '../../support/skip';
import { eventually } from '../../support/wait';
import { buildCompany } from '../../support/builders';
import { runToExit } from '../../support/processes';
import { sampleValue } from './support/settings';

function engineProblem(): string | undefined {
  const docker = spawnSync('docker', ['info', '--format', '{{.ServerVersion}}'], { encoding: 'utf8', timeout: 20_000 });
  if (docker.error) return `no docker command (${docker.error.message})`;
  if (docker.status !== 0) return `docker info failed: ${(docker.stderr || docker.stdout).trim().split('\n').slice(-1)[0]}`;
  const compose = spawnSync('docker', ['compose', 'version'], { encoding: 'utf8', timeout: 20_000 });
  if (compose.status !== 0) return `docker compose is missing: ${(compose.stderr || compose.stdout).trim().split('\n')[0]}`;
  return undefined;
}

describe('deployment: docker build and docker compose up (needs a container engine)', function () {
  this.timeout(30 * 60_000);
  const project = `pi-test-${randomBytes(3).toString('hex')}`;
  const image = `pi-inventory:${project}`;
  let envFile: string | undefined;
  let port = 0;
  const compose = (...args: string[]) => ['compose', '-p', project, '-f', path.join(ROOT, 'docker-compose.yml'), '--env-file', envFile!, ...args];
  const env = () => ({ ...process.env, PI_IMAGE: image, PI_HTTP_PORT: String(port) }) as Record<string, string>;

  before(async function () {
    const problem = engineProblem();
    if (problem) {
      skipLoudly(
        this,
        `NO CONTAINER ENGINE: ${problem}`,
        `SKIPPING "docker build" and "docker compose up" (image.test.ts checks the image's layout without one)`,
      );
    }
    port = await freePort();
    envFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'pi-compose-')), '.env');
    const secrets = ['POSTGRES_PASSWORD', 'INTERNAL_JWT_SECRET', 'JWT_SECRET', 'QR_TOKEN_SECRET', 'SECRET_ENCRYPTION_KEY'];
    fs.writeFileSync(envFile, secrets.map((name) => `${name}=${sampleValue(name)}`).join('\n') + '\nPASSWORD_HASH_COST=14\n', { mode: 0o600 });
  });

  after(function () {
    if (!envFile) return;
    this.timeout(5 * 60_000);
    spawnSync('docker', compose('down', '--volumes', '--remove-orphans'), { env: env(), stdio: 'inherit', timeout: 180_000 });
    spawnSync('docker', ['image', 'rm', '--force', image], { stdio: 'ignore', timeout: 60_000 });
    fs.rmSync(path.dirname(envFile), { recursive: true, force: true });
  });

  it('builds the image, starts the system, answers a login on the gateway port, and runs check_rules by hand', async () => {
    execFileSync('docker', ['build', '--tag', image, ROOT], { stdio: 'inherit', timeout: 20 * 60_000 });
    const size = Number(execFileSync('docker', ['image', 'inspect', '--format', '{{.Size}}', image], { encoding: 'utf8' }).trim());
    process.stdout.write(`      image ${image}: ${(size / 1e6).toFixed(0)} MB\n`);
    expect(execFileSync('docker', ['image', 'inspect', '--format', '{{.Config.User}}', image], { encoding: 'utf8' }).trim()).to.equal('1000:1000');

    execFileSync('docker', compose('up', '--detach'), { env: env(), stdio: 'inherit', timeout: 10 * 60_000 });
    const gateway = `http://127.0.0.1:${port}`;
    await eventually(
      async () =>
        (await fetch(`${gateway}/readyz`).then(
          (r) => r.status,
          () => 0,
        )) === 200,
      'the gateway to be ready',
      5 * 60_000,
      2000,
    );
    const company = await buildCompany({ baseUrl: gateway });
    expect(company.token).to.be.a('string');
    const locations = await fetch(`${gateway}/api/v1/locations/`, { headers: { authorization: `Bearer ${company.token}` } });
    expect(locations.status).to.equal(200);

    const ps = execFileSync('docker', compose('ps', '--all', '--format', '{{.Service}} {{.State}} {{.ExitCode}}'), { env: env(), encoding: 'utf8' });
    expect(ps).to.match(/^migrate exited 0$/m);
    for (const service of ['gateway', 'inventory', 'qr', 'monitor', 'notifier', 'scheduler']) expect(ps).to.match(new RegExp(`^${service} running`, 'm'));

    const run = await runToExit('docker', compose('run', '--rm', '--no-deps', 'scheduler', 'check_rules'), { env: env(), timeoutMs: 120_000 });
    expect(run.code, run.text).to.equal(0);
    expect(run.text).to.match(/^companies: \d+$/m);
  });
});
