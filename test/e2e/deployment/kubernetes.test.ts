/**
 * k8s/base: every manifest is a valid Kubernetes object, and what they describe is what the processes do: each
 * service's Deployment probes the paths it answers on the port it listens on, applies the migrations in its
 * init container and stops within its grace period, every container's environment passes its process's own
 * config validation, the CronJob runs the real check_rules, the NetworkPolicies allow exactly the traffic the
 * issue names, every Deployment has a disruption budget, and no Secret holds a value. The overlays
 * (k8s/overlays) and the KEDA component render with `kubectl kustomize` into valid objects with their own
 * images, replicas and budgets.
 * Commands are run the way the containers run them: the image's `pi` command in the image's layout
 * (support/runtime-tree.ts), against the run's test database.
 */
import { randomUUID } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { expect } from 'chai';
import YAML from 'yaml';
import { DeliveryQueue } from '@pi/notify';
import { buildCompany, buildLocation, buildProduct } from '../../support/builders';
import { createTestDatabase } from '../../support/database';
import { system, testDatabaseUrl } from '../../support/hooks';
import { REDIS_URL, redisAvailable } from '../../support/redis';
import { skipLoudly } from '../../support/skip';
import { sleep } from '../../support/wait';
import { K8S_DIR, K8S_OVERLAYS_DIR, K8sObject, ROOT, loadManifestDocs, parseDockerfile, parseYamlDocs, podSpecOf, selects } from './support/files';
import { runPi, startPi } from './support/image';
import { unknownFields, validateWithModel } from './support/k8s-schema';
import { ProcessSpec, SERVICES, configProblems, knownBySchema, processSpecs, requiredByProcess, requiredBySchema, sampleValue } from './support/settings';

const NAMESPACE = 'pi-inventory';
const SECRET_NAME = 'pi-inventory-secrets';
const SECRET_TEMPLATE = 'secret.template.yaml';
/** libs/common/src/http/serve.ts: closeServer's default grace for in-flight requests. */
const HTTP_DRAIN_SECONDS = 20;
/** The longest a notifier job can take once started: the email timeouts (libs/notify email.ts, 10 + 10 + 20 s). */
const NOTIFIER_JOB_SECONDS = 40;

const docs = loadManifestDocs();
/** What the kustomization applies: everything but itself and the Secret template. */
const objects = docs.filter((d) => d.object.kind !== 'Kustomization' && d.file !== SECRET_TEMPLATE).map((d) => d.object);
const find = (kind: string, name: string): K8sObject => {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (!found) throw new Error(`no ${kind} ${name} in k8s/base`);
  return found;
};
const configMap = () => find('ConfigMap', 'pi-inventory-config');
const secretTemplate = () => parseYamlDocs(fs.readFileSync(path.join(K8S_DIR, SECRET_TEMPLATE), 'utf8'), SECRET_TEMPLATE)[0].object;

/** The `pi` command a container runs (args after the image's entrypoint), mapped to the process it starts. */
function processOf(container: any): ProcessSpec | 'wait-for-migrations' {
  expect(container.command, `${container.name} keeps the image's entrypoint (tini, pi)`).to.equal(undefined);
  const [command] = container.args ?? [];
  if (command === 'wait-for-migrations') return command;
  const spec = Object.values(processSpecs()).find((s) => s.command === command);
  if (!spec) throw new Error(`container ${container.name} runs \`pi ${command}\`, no process of ours`);
  return spec;
}

/** A container's environment as Kubernetes gives it: ConfigMaps (envFrom), then `env`, secrets from `secrets`. */
function environmentOf(container: any, secrets: (key: string) => string): Record<string, string> {
  const env: Record<string, string> = {};
  for (const from of container.envFrom ?? []) {
    expect(from.configMapRef?.name, `${container.name} envFrom`).to.equal('pi-inventory-config');
    Object.assign(env, configMap().data);
  }
  for (const e of container.env ?? []) {
    if (e.value !== undefined) env[e.name] = String(e.value);
    else if (e.valueFrom?.secretKeyRef) {
      expect(e.valueFrom.secretKeyRef.name, `${container.name} ${e.name}`).to.equal(SECRET_NAME);
      env[e.name] = secrets(e.valueFrom.secretKeyRef.key);
    } else throw new Error(`${container.name}: ${e.name} comes from neither a value nor the Secret`);
  }
  return env;
}

const workloads = () => objects.filter((o) => podSpecOf(o));
const containersOf = (o: K8sObject): any[] => [...(podSpecOf(o)!.spec.initContainers ?? []), ...podSpecOf(o)!.spec.containers];

/**
 * Every Deployment has exactly one PodDisruptionBudget, which keeps a pod of it up through drains yet lets a
 * drain evict one: `minAvailable` below the fewest replicas it runs (its autoscaler's minimum, or replicas),
 * or `maxUnavailable` of at least 1.
 */
function expectDisruptionBudgets(all: K8sObject[]): void {
  const pdbs = all.filter((o) => o.kind === 'PodDisruptionBudget');
  for (const deployment of all.filter((o) => o.kind === 'Deployment')) {
    const name = deployment.metadata.name;
    const budgets = pdbs.filter((p) => selects(p.spec.selector, deployment.spec.template.metadata.labels));
    expect(budgets, `${name}: one PodDisruptionBudget`).to.have.length(1);
    const scaler = all.find((o) => (o.kind === 'HorizontalPodAutoscaler' || o.kind === 'ScaledObject') && o.spec.scaleTargetRef.name === name);
    const fewest = scaler?.spec.minReplicas ?? scaler?.spec.minReplicaCount ?? deployment.spec.replicas ?? 1;
    const { minAvailable, maxUnavailable } = budgets[0].spec;
    if (maxUnavailable !== undefined) expect(maxUnavailable, `${name} maxUnavailable`).to.be.at.least(1);
    else expect(minAvailable, `${name} minAvailable, with at least ${fewest} replicas`).to.be.at.least(1).and.below(fewest);
  }
}

/** `kubectl kustomize <dir>` as objects. */
const kustomize = (dir: string): K8sObject[] =>
  parseYamlDocs(execFileSync('kubectl', ['kustomize', dir], { encoding: 'utf8' }), `kustomize ${dir}`).map((d) => d.object);

function requireKubectl(ctx: Mocha.Context): void {
  try {
    execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
  } catch {
    skipLoudly(ctx, 'NO kubectl ON THIS MACHINE: SKIPPING the rendering of the kustomize overlays');
  }
}

/** A copy of k8s/ to change before rendering; removed afterwards. */
function withK8sCopy<T>(change: (dir: string) => void, use: (dir: string) => T): T {
  const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-k8s-'));
  try {
    fs.cpSync(path.join(ROOT, 'k8s'), copy, { recursive: true });
    change(copy);
    return use(copy);
  } finally {
    fs.rmSync(copy, { recursive: true, force: true });
  }
}

/** Every object valid for its Kubernetes (or KEDA) schema, with no unknown field, in the namespace. */
function expectValidObjects(rendered: K8sObject[], where: string): void {
  const problems: string[] = [];
  for (const o of rendered) {
    const at = `${where}: ${o.kind}/${o.metadata.name}`;
    for (const p of validateWithModel(o)) problems.push(`${at}: ${p}`);
    for (const p of unknownFields(o, rendered)) problems.push(`${at}: unknown field ${p}`);
    if (o.kind !== 'Namespace') expect(o.metadata.namespace, at).to.equal(NAMESPACE);
  }
  expect(problems).to.deep.equal([]);
}

const imagesOf = (rendered: K8sObject[]) => new Set(rendered.filter((o) => podSpecOf(o)).flatMap((o) => containersOf(o).map((c) => c.image)));

describe('deployment: Kubernetes manifests (k8s/base, the overlays)', function () {
  this.timeout(120_000);

  it('parse, and every object validates against the Kubernetes schemas (kubernetes-models) with no unknown field, in the namespace', () => {
    expect(objects.length).to.be.greaterThan(10);
    const problems: string[] = [];
    for (const { file, index, object } of docs) {
      if (object.kind === 'Kustomization') continue;
      const where = `${file}#${index + 1} ${object.kind}/${object.metadata?.name}`;
      for (const p of validateWithModel(object)) problems.push(`${where}: ${p}`);
      for (const p of unknownFields(
        object,
        docs.map((d) => d.object).filter((o) => o.kind !== 'Kustomization'),
      ))
        problems.push(`${where}: unknown field ${p}`);
      if (object.kind === 'Namespace') expect(object.metadata.name).to.equal(NAMESPACE);
      else expect(object.metadata.namespace, where).to.equal(NAMESPACE);
      expect(object.metadata.labels?.['app.kubernetes.io/part-of'], where).to.equal('pi-inventory');
    }
    expect(problems).to.deep.equal([]);

    // The check itself finds a misspelt field and a wrong type.
    const deployment = structuredClone(find('Deployment', 'gateway'));
    deployment.spec.template.spec.containers[0].readinesProbe = deployment.spec.template.spec.containers[0].readinessProbe;
    deployment.spec.template.spec.containers[0].ports[0].containerPort = '8000';
    expect(unknownFields(deployment, objects)).to.deep.equal(['Deployment.spec.template.spec.containers[0].readinesProbe']);
    expect(validateWithModel(deployment).join()).to.match(/containerPort must be integer/);
  });

  it('are applied by the kustomization: every manifest but the Secret template, in the namespace, with the CronJob schedule from the ConfigMap', () => {
    const kustomization = docs.find((d) => d.object.kind === 'Kustomization')!.object as any;
    expect(kustomization.apiVersion).to.equal('kustomize.config.k8s.io/v1beta1');
    expect(kustomization.namespace).to.equal(NAMESPACE);
    const manifests = fs.readdirSync(K8S_DIR).filter((f) => /\.ya?ml$/.test(f) && f !== 'kustomization.yaml' && f !== SECRET_TEMPLATE);
    expect([...kustomization.resources].sort()).to.deep.equal(manifests.sort());
    expect(kustomization.resources).to.not.include(SECRET_TEMPLATE);
    expect(kustomization.replacements).to.deep.equal([
      {
        source: { kind: 'ConfigMap', name: 'pi-inventory-config', fieldPath: 'data.CHECK_RULES_SCHEDULE' },
        targets: [{ select: { kind: 'CronJob', name: 'check-rules' }, fieldPaths: ['spec.schedule'] }],
      },
    ]);
    // The plain manifests (kubectl apply -f) carry the same default.
    expect(find('CronJob', 'check-rules').spec.schedule).to.equal(configMap().data.CHECK_RULES_SCHEDULE);
  });

  it('render with `kubectl kustomize`, and a schedule changed in the ConfigMap reaches the CronJob', function () {
    try {
      execFileSync('kubectl', ['version', '--client'], { stdio: 'ignore' });
    } catch {
      skipLoudly(this, 'NO kubectl ON THIS MACHINE: SKIPPING the kustomize rendering test (the kustomization is still checked above)');
    }
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-k8s-'));
    try {
      fs.cpSync(K8S_DIR, copy, { recursive: true });
      const file = path.join(copy, 'configmap.yaml');
      fs.writeFileSync(file, fs.readFileSync(file, 'utf8').replace(/CHECK_RULES_SCHEDULE: ".*"/, 'CHECK_RULES_SCHEDULE: "17 3 * * 1"'));
      const rendered = parseYamlDocs(execFileSync('kubectl', ['kustomize', copy], { encoding: 'utf8' }), 'kustomize output').map((d) => d.object);
      expect(rendered.map((o) => `${o.kind}/${o.metadata.name}`).sort()).to.deep.equal(objects.map((o) => `${o.kind}/${o.metadata.name}`).sort());
      expect(rendered.find((o) => o.kind === 'CronJob')!.spec.schedule).to.equal('17 3 * * 1');
      for (const o of rendered) {
        if (o.kind !== 'Namespace') expect(o.metadata.namespace, `${o.kind}/${o.metadata.name}`).to.equal(NAMESPACE);
        expect(validateWithModel(o), `${o.kind}/${o.metadata.name}`).to.deep.equal([]);
      }
    } finally {
      fs.rmSync(copy, { recursive: true, force: true });
    }
  });

  it('give each service a Deployment and a Service, probed on /readyz and /healthz at the port it listens on, with a grace period that covers its SIGTERM handling', async () => {
    const specs = processSpecs();
    for (const name of SERVICES) {
      const spec = specs[name];
      const deployment = find('Deployment', name);
      const pod = deployment.spec.template;
      expect(selects(deployment.spec.selector, pod.metadata.labels), `${name} selector`).to.equal(true);
      expect(pod.metadata.labels['app.kubernetes.io/component']).to.equal(name);
      const [container] = pod.spec.containers;
      expect(pod.spec.containers).to.have.length(1);
      expect(container.args).to.deep.equal([name]);

      // The port the service listens on, as its config module reads it from this environment.
      const env = environmentOf(container, sampleValue);
      expect(configProblems(spec, env), `${name} config`).to.deep.equal([]);
      const portNumber = Number(env[spec.portVariable!]);
      const http = container.ports.find((p: any) => p.name === 'http');
      expect(http, `${name} port`).to.deep.include({ containerPort: portNumber, protocol: 'TCP' });
      const portOf = (probe: any) =>
        typeof probe.httpGet.port === 'string' ? container.ports.find((p: any) => p.name === probe.httpGet.port)?.containerPort : probe.httpGet.port;
      expect(container.readinessProbe.httpGet.path, `${name} readiness`).to.equal('/readyz');
      expect(portOf(container.readinessProbe), `${name} readiness port`).to.equal(portNumber);
      expect(container.livenessProbe.httpGet.path, `${name} liveness`).to.equal('/healthz');
      expect(portOf(container.livenessProbe), `${name} liveness port`).to.equal(portNumber);

      const service = find('Service', name);
      expect(selects({ matchLabels: service.spec.selector }, pod.metadata.labels), `${name} Service selects its pods`).to.equal(true);
      expect(service.spec.ports).to.deep.equal([{ name: 'http', port: portNumber, targetPort: 'http', protocol: 'TCP' }]);
      if (name !== 'gateway') expect(configMap().data[`${name.toUpperCase()}_URL`], `the gateway's way to ${name}`).to.equal(`http://${name}:${portNumber}`);

      // SIGTERM (libs/common serve.ts): after the preStop pause, the HTTP drain, and for the notifier its jobs.
      const preStop = container.lifecycle.preStop.exec.command;
      expect(preStop.slice(0, 1), `${name} preStop`).to.deep.equal(['sleep']);
      const needed = Number(preStop[1]) + HTTP_DRAIN_SECONDS + (name === 'notifier' ? NOTIFIER_JOB_SECONDS : 0);
      expect(pod.spec.terminationGracePeriodSeconds, `${name} grace period`).to.be.at.least(needed + 5);
    }
    // The paths are the ones the services answer (the run's system, in process), without credentials.
    const urls = { gateway: system().url, ...system().serviceUrls };
    for (const [name, url] of Object.entries(urls)) {
      for (const probe of ['/healthz', '/readyz']) expect((await fetch(`${url}${probe}`)).status, `${name} ${probe}`).to.equal(200);
    }
    expect(
      objects
        .filter((o) => o.kind === 'Deployment')
        .map((o) => o.metadata.name)
        .sort(),
    ).to.deep.equal([...SERVICES].sort());
  });

  it('run every pod as non-root on a read-only file system, without service links, with resource requests and limits for every container', () => {
    const namespace = find('Namespace', NAMESPACE);
    expect(namespace.metadata.labels?.['pod-security.kubernetes.io/enforce']).to.equal('restricted');
    for (const workload of workloads()) {
      const where = `${workload.kind}/${workload.metadata.name}`;
      const spec = podSpecOf(workload)!.spec;
      expect(spec.securityContext, where).to.deep.include({ runAsNonRoot: true, runAsUser: 1000 });
      expect(spec.securityContext.seccompProfile, where).to.deep.equal({ type: 'RuntimeDefault' });
      expect(spec.enableServiceLinks, `${where}: INVENTORY_PORT=tcp://… would reach the services`).to.equal(false);
      expect(spec.automountServiceAccountToken, where).to.equal(false);
      for (const c of containersOf(workload)) {
        expect(c.securityContext, `${where} ${c.name}`).to.deep.equal({
          allowPrivilegeEscalation: false,
          readOnlyRootFilesystem: true,
          capabilities: { drop: ['ALL'] },
        });
        expect(Object.keys(c.resources.requests ?? {}).sort(), `${where} ${c.name} requests`).to.deep.equal(['cpu', 'memory']);
        expect(Object.keys(c.resources.limits ?? {}).sort(), `${where} ${c.name} limits`).to.deep.equal(['cpu', 'memory']);
        // A bare name: each overlay points it at an image that exists (no base image "no registry has").
        expect(c.image, `${where} ${c.name}`).to.equal('pi-inventory');
      }
    }
  });

  it('give every container each setting its process requires, and an environment its config validation accepts in production mode', async () => {
    const specs = processSpecs();
    // The config modules' required settings are the ones the real processes refuse to start without.
    await Promise.all(Object.values(specs).map(requiredByProcess)); // in parallel: each starts a process or three
    for (const spec of Object.values(specs)) {
      expect(await requiredByProcess(spec), `${spec.command} refuses to start without`).to.deep.equal(
        [...new Set([...requiredBySchema(spec.schema), ...spec.alsoRequired])].sort(),
      );
    }
    const template = secretTemplate();
    const templateKeys = Object.keys(template.stringData ?? template.data ?? {});
    const used = new Set<string>();
    const ran = new Set<string>();
    for (const workload of workloads()) {
      for (const container of containersOf(workload)) {
        const where = `${workload.kind}/${workload.metadata.name} ${container.name}`;
        const proc = processOf(container);
        const env = environmentOf(container, (key) => {
          expect(templateKeys, `${where} reads ${key} from the Secret`).to.include(key);
          used.add(key);
          return sampleValue(key);
        });
        if (proc === 'wait-for-migrations') {
          expect(Object.keys(env), where).to.include('DATABASE_URL');
          continue;
        }
        expect(env.NODE_ENV, where).to.equal('production');
        ran.add(proc.command);
        const required = [...requiredBySchema(proc.schema), ...proc.alsoRequired];
        expect(Object.keys(env), `${where} names every setting \`pi ${proc.command}\` requires`).to.include.members(required);
        expect(configProblems(proc, env), where).to.deep.equal([]);
        // Deployed mode: rate limits shared by replicas, deliveries through the queue.
        if (knownBySchema(proc.schema).includes('REDIS_URL')) expect(env.REDIS_URL, `${where} REDIS_URL`).to.be.a('string').and.not.equal('');
        expect(env.ALLOW_LOOPBACK_WEBHOOKS, where).to.equal(undefined);
      }
    }
    expect([...ran].sort()).to.deep.equal(['check_rules', 'gateway', 'inventory', 'migrate', 'monitor', 'notifier', 'qr']);
    expect([...used].sort(), 'every key of the Secret template is used').to.deep.equal([...templateKeys].sort());
  });

  it('hold no real value in any Secret, and no secret in the ConfigMap', () => {
    const secrets = [...objects, secretTemplate()].filter((o) => o.kind === 'Secret');
    expect(secrets.length).to.be.at.least(1);
    for (const secret of secrets) {
      for (const [key, value] of Object.entries({ ...(secret.data ?? {}), ...(secret.stringData ?? {}) })) {
        expect(value, `${secret.metadata.name}.${key} must be empty in the repository`).to.equal('');
      }
    }
    expect(
      objects.filter((o) => o.kind === 'Secret'),
      'the kustomization applies no Secret (it would overwrite the real one)',
    ).to.deep.equal([]);
    const secretKeys = Object.keys(secretTemplate().stringData);
    for (const key of Object.keys(configMap().data)) {
      expect(secretKeys, 'a secret in the ConfigMap').to.not.include(key);
      expect(key, 'a secret in the ConfigMap').to.not.match(/(SECRET|PASSWORD|ENCRYPTION_KEY)$|^(DATABASE|REDIS)_URL$/);
    }
  });

  it("run the real check_rules from the CronJob (concurrencyPolicy Forbid) once its image's migrations are in, and the migrations in every Deployment's init container, with no Job to delete before an upgrade", async function () {
    const cron = find('CronJob', 'check-rules');
    expect(cron.spec.concurrencyPolicy).to.equal('Forbid');
    const pod = cron.spec.jobTemplate.spec.template.spec;
    expect(pod.restartPolicy).to.equal('Never');
    const [container] = pod.containers;
    const spec = processOf(container) as ProcessSpec;
    expect(spec.command).to.equal('check_rules');
    // The image's `pi check_rules` is `npm run check_rules`'s file.
    const pi = parseDockerfile()
      .stage('runtime')
      .instructions.find((i) => i.heredocs.some((h) => h.body.includes('check_rules)')))!.heredocs[0].body;
    expect(pi).to.include(`check_rules) exec node ${spec.entry} "$@"`);

    // Run it as the CronJob does, scoped to a company of its own (the test database is shared by every suite).
    const company = await buildCompany();
    await buildProduct(company, { engine_config: { engine_type: 'counter', min_stock: 5 } });
    await buildLocation(company);
    const queue = `deliveries-deploy-${Date.now()}`;
    const secrets: Record<string, string> = { DATABASE_URL: testDatabaseUrl(), SECRET_ENCRYPTION_KEY: system().secretEncryptionKey, REDIS_URL: REDIS_URL };
    const env = environmentOf(container, (key) => secrets[key] ?? '');
    if (!(await redisAvailable())) delete env.REDIS_URL;
    const run = await runPi([...container.args, '--company', company.id], { ...env, DELIVERY_QUEUE_NAME: queue });
    expect(run.code, run.text).to.equal(0);
    expect(run.text).to.include('companies: 1').and.include('products evaluated: 1').and.include('events opened: 1');

    // No Job (immutable once created, so it had to be deleted before each upgrade): each Deployment's init
    // container applies the migrations, under umzug's advisory lock, before its service starts.
    expect(objects.filter((o) => o.kind === 'Job')).to.deep.equal([]);
    for (const name of SERVICES) {
      const init = find('Deployment', name).spec.template.spec.initContainers;
      expect(
        init.map((c: any) => c.args),
        name,
      ).to.deep.equal([['migrate']]);
      expect(find('Deployment', name).spec.strategy.rollingUpdate.maxUnavailable, `${name}: the old pods serve while the new ones migrate`).to.equal(0);
    }
    const init = find('Deployment', 'gateway').spec.template.spec.initContainers[0];
    const migrated = await runPi(
      init.args,
      environmentOf(init, (key) => secrets[key] ?? ''),
    );
    expect(migrated.code, migrated.text).to.equal(0);
    expect(migrated.text).to.include('schema is up to date');

    // The CronJob never migrates: after an upgrade its next run may start before any Deployment's init
    // container has migrated, so its own init container waits for the migrations of its image.
    const cronInit = pod.initContainers ?? [];
    expect(
      cronInit.map((c: any) => c.args),
      "the CronJob's init containers",
    ).to.deep.equal([['wait-for-migrations']]);
    const cronInitEnv = (url: string) => ({
      ...environmentOf(cronInit[0], (key) => (key === 'DATABASE_URL' ? url : '')),
      WAIT_FOR_MIGRATIONS_INTERVAL_MS: '200',
    });
    const ready = await runPi(cronInit[0].args, cronInitEnv(testDatabaseUrl()), 20_000);
    expect(ready.code, ready.text).to.equal(0);
    expect(ready.text).to.match(/the schema has all \d+ migrations of this image/);

    // On a new database: the first pod's init container applies every migration; two starting at once
    // apply each one once (the advisory lock), and the next finds the schema up to date.
    const fresh = await createTestDatabase();
    let waiting: Awaited<ReturnType<typeof startPi>> | undefined;
    try {
      const freshEnv = environmentOf(init, (key) => (key === 'DATABASE_URL' ? fresh.url : ''));
      // The CronJob's run waits on the empty database, and starts once a Deployment has migrated it.
      waiting = await startPi('wait-for-migrations', cronInit[0].args, cronInitEnv(fresh.url), {
        waitFor: /waiting for the migrations \(no schema_migrations table yet\)/,
      });
      await sleep(600);
      expect(waiting.child.exitCode, 'still waiting on an empty database').to.equal(null);
      const [first, second] = await Promise.all([runPi(init.args, freshEnv), runPi(init.args, freshEnv)]);
      const waited = await Promise.race([waiting.exited, sleep(10_000).then(() => 'still waiting' as const)]);
      expect(waited, waiting.output()).to.deep.equal({ code: 0, signal: null });
      expect(waiting.output()).to.match(/the schema has all \d+ migrations of this image/);
      expect(first.code, first.text).to.equal(0);
      expect(second.code, second.text).to.equal(0);
      const applied = [first.text, second.text].map((t) => /applied: (.*)/.exec(t)?.[1]).filter(Boolean);
      expect(applied, `${first.text}\n${second.text}`).to.have.length(1);
      expect([first.text, second.text].join('\n')).to.include('schema is up to date');
      const again = await runPi(init.args, freshEnv);
      expect(again.text).to.include('schema is up to date');
    } finally {
      if (waiting && waiting.child.exitCode === null && waiting.child.signalCode === null) await waiting.stop('SIGKILL');
      await fresh.drop();
    }
  });

  describe('NetworkPolicies', () => {
    const policies = () => objects.filter((o) => o.kind === 'NetworkPolicy');
    const component = (c: string) => ({
      'app.kubernetes.io/name': 'pi-inventory',
      'app.kubernetes.io/component': c,
      'app.kubernetes.io/part-of': 'pi-inventory',
    });
    const COMPONENTS = ['gateway', 'inventory', 'qr', 'monitor', 'notifier', 'check-rules'];
    const stranger = { app: 'something-else' };
    const POSTGRES = { 'app.kubernetes.io/name': 'postgresql' };
    const REDIS = { 'app.kubernetes.io/name': 'redis' };
    const KUBE_DNS = { namespace: 'kube-system', labels: { 'k8s-app': 'kube-dns' } };

    type Peer = { namespace?: string; labels: Record<string, string> } | { ip: string };

    function peerMatches(rulePeers: any[] | undefined, peer: Peer): boolean {
      if (!rulePeers || rulePeers.length === 0) return true;
      return rulePeers.some((p) => {
        if ('ip' in peer) {
          if (!p.ipBlock) return false;
          const inBlock = (cidr: string) => {
            const [address, prefix] = cidr.split('/');
            const type = net.isIPv6(address) ? 'ipv6' : 'ipv4';
            const list = new net.BlockList();
            list.addSubnet(address, Number(prefix), type);
            return list.check(peer.ip, net.isIPv6(peer.ip) ? 'ipv6' : 'ipv4');
          };
          return inBlock(p.ipBlock.cidr) && !(p.ipBlock.except ?? []).some(inBlock);
        }
        if (p.ipBlock) return false;
        const namespace = peer.namespace ?? NAMESPACE;
        const namespaceOk = p.namespaceSelector ? selects(p.namespaceSelector, { 'kubernetes.io/metadata.name': namespace }) : namespace === NAMESPACE;
        const podOk = p.podSelector ? selects(p.podSelector, peer.labels) : true;
        return namespaceOk && podOk;
      });
    }

    const portMatches = (ports: any[] | undefined, port: number, protocol = 'TCP') =>
      !ports || ports.length === 0 || ports.some((p) => (p.protocol ?? 'TCP') === protocol && (p.port === undefined || p.port === port));

    /** Kubernetes semantics: isolated by any policy selecting the pod for that direction; allowed by any rule of one. */
    function allowed(direction: 'Ingress' | 'Egress', pod: Record<string, string>, peer: Peer, port: number, protocol = 'TCP'): boolean {
      const selecting = policies().filter((p) => selects(p.spec.podSelector, pod) && (p.spec.policyTypes ?? ['Ingress']).includes(direction));
      if (selecting.length === 0) return true;
      const key = direction === 'Ingress' ? 'ingress' : 'egress';
      const peersKey = direction === 'Ingress' ? 'from' : 'to';
      return selecting.some((p) => (p.spec[key] ?? []).some((rule: any) => peerMatches(rule[peersKey], peer) && portMatches(rule.ports, port, protocol)));
    }

    it('cover every service: only the gateway reaches inventory, qr, monitor and notifier, and anyone reaches the gateway', () => {
      for (const deployment of objects.filter((o) => o.kind === 'Deployment')) {
        const pod = deployment.spec.template.metadata.labels;
        const isolating = policies().filter((p) => selects(p.spec.podSelector, pod) && (p.spec.policyTypes ?? ['Ingress']).includes('Ingress'));
        expect(isolating.length, `${deployment.metadata.name} is selected by an ingress policy`).to.be.at.least(1);
      }
      for (const name of SERVICES) {
        const port = find('Service', name).spec.ports[0].port;
        const pod = component(name);
        if (name === 'gateway') {
          expect(allowed('Ingress', pod, { namespace: 'ingress-nginx', labels: { 'app.kubernetes.io/name': 'ingress-nginx' } }, port)).to.equal(true);
          expect(allowed('Ingress', pod, { ip: '203.0.113.7' }, port)).to.equal(true);
          expect(allowed('Ingress', pod, { labels: stranger }, port + 1), 'another port of the gateway').to.equal(false);
          continue;
        }
        expect(allowed('Ingress', pod, { labels: component('gateway') }, port), `gateway → ${name}`).to.equal(true);
        for (const other of COMPONENTS.filter((c) => c !== 'gateway'))
          expect(allowed('Ingress', pod, { labels: component(other) }, port), `${other} → ${name}`).to.equal(false);
        expect(allowed('Ingress', pod, { labels: stranger }, port), `a stranger → ${name}`).to.equal(false);
        expect(allowed('Ingress', pod, { namespace: 'default', labels: component('gateway') }, port), `a "gateway" of another namespace → ${name}`).to.equal(
          false,
        );
        expect(allowed('Ingress', pod, { ip: '203.0.113.7' }, port), `outside → ${name}`).to.equal(false);
      }
    });

    it('let Prometheus scrape every service at the port its annotations name, the gateway only on its metrics port (docs/operations/metrics.md)', () => {
      const prometheus = { namespace: 'monitoring', labels: { 'app.kubernetes.io/name': 'prometheus' } };
      const gatewayMetricsPort = Number(configMap().data.GATEWAY_METRICS_PORT);
      for (const name of SERVICES) {
        const deployment = find('Deployment', name);
        const annotations = deployment.spec.template.metadata.annotations ?? {};
        const [container] = deployment.spec.template.spec.containers;
        const port = Number(annotations['prometheus.io/port']);
        expect(annotations, name).to.deep.include({ 'prometheus.io/scrape': 'true', 'prometheus.io/path': '/metrics' });
        expect(
          container.ports.map((p: any) => p.containerPort),
          `${name} declares the scraped port`,
        ).to.include(port);
        if (name === 'gateway') {
          // The metrics listener is not the public port, and neither the Service nor the Ingress leads to it.
          expect(port).to.equal(gatewayMetricsPort).and.not.equal(Number(configMap().data.GATEWAY_PORT));
          expect(find('Service', name).spec.ports.map((p: any) => p.port)).to.not.include(port);
          expect(allowed('Ingress', component(name), { ip: '203.0.113.7' }, port), 'outside → the gateway metrics port').to.equal(false);
          expect(allowed('Ingress', component(name), { labels: stranger }, port), 'a stranger → the gateway metrics port').to.equal(false);
        } else {
          expect(port, `${name} scraped on its own port`).to.equal(find('Service', name).spec.ports[0].port);
        }
        expect(allowed('Ingress', component(name), prometheus, port), `Prometheus → ${name}`).to.equal(true);
        expect(
          allowed('Ingress', component(name), { namespace: 'default', labels: prometheus.labels }, port),
          `a "prometheus" of another namespace → ${name}`,
        ).to.equal(false);
        expect(allowed('Ingress', component(name), { namespace: 'monitoring', labels: stranger }, port), `another pod of monitoring → ${name}`).to.equal(false);
      }
    });

    it('let only the processes that use them reach PostgreSQL and Redis', () => {
      const specs = processSpecs();
      const processOfComponent: Record<string, ProcessSpec> = { ...specs, 'check-rules': specs.check_rules };
      for (const c of COMPONENTS) {
        const spec = processOfComponent[c];
        expect(allowed('Ingress', POSTGRES, { labels: component(c) }, 5432), `${c} → PostgreSQL`).to.equal(true);
        const usesRedis = knownBySchema(spec.schema).includes('REDIS_URL');
        expect(allowed('Ingress', REDIS, { labels: component(c) }, 6379), `${c} → Redis`).to.equal(usesRedis);
      }
      for (const backing of [
        [POSTGRES, 5432],
        [REDIS, 6379],
      ] as const) {
        expect(allowed('Ingress', backing[0], { labels: stranger }, backing[1]), 'a stranger').to.equal(false);
        expect(allowed('Ingress', backing[0], { namespace: 'default', labels: component('gateway') }, backing[1]), 'another namespace').to.equal(false);
      }
    });

    it("keep the notifier's egress away from cluster-internal and metadata addresses, open to public ones, DNS, PostgreSQL and Redis", () => {
      const notifier = component('notifier');
      const internal = [
        '10.0.0.1',
        '10.96.0.10',
        '172.16.0.1',
        '172.31.255.254',
        '192.168.1.10',
        '100.64.0.1',
        '127.0.0.1',
        '169.254.169.254',
        '169.254.170.2',
        '0.0.0.0',
        '::1',
        'fd00:ec2::254',
        'fc00::1',
        'fe80::1',
        '::ffff:10.0.0.1',
        '::ffff:169.254.169.254',
      ];
      for (const ip of internal)
        for (const port of [80, 443, 5432, 6379, 8001]) expect(allowed('Egress', notifier, { ip }, port), `notifier → ${ip}:${port}`).to.equal(false);
      for (const ip of ['93.184.216.34', '8.8.8.8', '2606:2800:220:1:248:1893:25c8:1946'])
        for (const port of [443, 8443, 587]) expect(allowed('Egress', notifier, { ip }, port), `notifier → ${ip}:${port}`).to.equal(true);
      expect(allowed('Egress', notifier, KUBE_DNS, 53, 'UDP'), 'DNS').to.equal(true);
      expect(allowed('Egress', notifier, { labels: POSTGRES }, 5432), 'PostgreSQL').to.equal(true);
      expect(allowed('Egress', notifier, { labels: REDIS }, 6379), 'Redis').to.equal(true);
      expect(allowed('Egress', notifier, { labels: component('inventory') }, 8001), 'another service').to.equal(false);
    });
  });

  it('expose only the gateway through an Ingress, scale the gateway and the notifier with HorizontalPodAutoscalers, and keep every service through disruptions', () => {
    const ingresses = objects.filter((o) => o.kind === 'Ingress');
    expect(ingresses).to.have.length(1);
    const backends = ingresses[0].spec.rules.flatMap((r: any) => r.http.paths.map((p: any) => p.backend.service));
    expect(backends).to.deep.equal([{ name: 'gateway', port: { name: 'http' } }]);
    expect(find('Service', 'gateway').spec.ports.map((p: any) => p.name)).to.include('http');
    for (const o of objects.filter((o) => o.kind === 'Service')) expect(o.spec.type ?? 'ClusterIP', `${o.metadata.name} is not exposed`).to.equal('ClusterIP');

    const hpas = objects.filter((o) => o.kind === 'HorizontalPodAutoscaler');
    expect(hpas.map((h) => h.spec.scaleTargetRef).sort((a, b) => a.name.localeCompare(b.name))).to.deep.equal([
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'gateway' },
      { apiVersion: 'apps/v1', kind: 'Deployment', name: 'notifier' },
    ]);
    for (const hpa of hpas) {
      expect(hpa.spec.minReplicas, hpa.metadata.name).to.be.at.least(2);
      expect(hpa.spec.maxReplicas).to.be.greaterThan(hpa.spec.minReplicas);
      // An apply must not reset what the autoscaler chose.
      expect(find('Deployment', hpa.spec.scaleTargetRef.name).spec.replicas, hpa.metadata.name).to.equal(undefined);
      // Utilization is relative to the requests.
      expect(find('Deployment', hpa.spec.scaleTargetRef.name).spec.template.spec.containers[0].resources.requests.cpu).to.be.a('string');
    }

    expectDisruptionBudgets(objects);
  });

  describe('overlays (k8s/overlays) and the KEDA component', () => {
    const OVERLAYS = {
      development: { image: 'pi-inventory:local', replicas: { inventory: 1, qr: 1, monitor: 1 }, hpaMin: { gateway: 1, notifier: 1 } },
      production: { image: 'registry.example.com/pi-inventory:0.1.0', replicas: { inventory: 3, qr: 2, monitor: 2 }, hpaMin: { gateway: 3, notifier: 2 } },
    };

    it("are the two overlays, each rendering into the base's objects, valid, with its own image (never the base's bare name), replicas and budgets that let drains through", function () {
      requireKubectl(this);
      expect(fs.readdirSync(K8S_OVERLAYS_DIR).sort()).to.deep.equal(Object.keys(OVERLAYS).sort());
      for (const [name, want] of Object.entries(OVERLAYS)) {
        const rendered = kustomize(path.join(K8S_OVERLAYS_DIR, name));
        expect(rendered.map((o) => `${o.kind}/${o.metadata.name}`).sort(), name).to.deep.equal(objects.map((o) => `${o.kind}/${o.metadata.name}`).sort());
        expectValidObjects(rendered, name);
        expect([...imagesOf(rendered)], `${name} images`).to.deep.equal([want.image]);
        const get = (kind: string, n: string) => rendered.find((o) => o.kind === kind && o.metadata.name === n)!;
        for (const [deployment, count] of Object.entries(want.replicas))
          expect(get('Deployment', deployment).spec.replicas, `${name} ${deployment}`).to.equal(count);
        for (const [target, min] of Object.entries(want.hpaMin))
          expect(get('HorizontalPodAutoscaler', target).spec.minReplicas, `${name} ${target} HPA`).to.equal(min);
        for (const autoscaled of ['gateway', 'notifier'])
          expect(get('Deployment', autoscaled).spec.replicas, `${name}: the HPA owns ${autoscaled}'s replicas`).to.equal(undefined);
        expectDisruptionBudgets(rendered);
      }
    });

    it('carry a CHECK_RULES_SCHEDULE changed in an overlay into the CronJob', function () {
      requireKubectl(this);
      const rendered = withK8sCopy(
        (dir) => {
          const file = path.join(dir, 'overlays', 'production', 'kustomization.yaml');
          const kustomization = YAML.parse(fs.readFileSync(file, 'utf8'));
          kustomization.patches.push({
            target: { kind: 'ConfigMap', name: 'pi-inventory-config' },
            patch: '- {op: replace, path: /data/CHECK_RULES_SCHEDULE, value: "17 3 * * 1"}',
          });
          fs.writeFileSync(file, YAML.stringify(kustomization));
        },
        (dir) => kustomize(path.join(dir, 'overlays', 'production')),
      );
      expect(rendered.find((o) => o.kind === 'CronJob')!.spec.schedule).to.equal('17 3 * * 1');
    });

    it('scale the notifier on its BullMQ wait list with KEDA when the component is added, in place of its CPU autoscaler', async function () {
      requireKubectl(this);
      const rendered = withK8sCopy(
        (dir) => {
          const file = path.join(dir, 'overlays', 'production', 'kustomization.yaml');
          const text = fs.readFileSync(file, 'utf8');
          expect(text, 'the production overlay offers the component').to.include('# - ../../components/keda-notifier');
          fs.writeFileSync(file, text.replace('# - ../../components/keda-notifier', '- ../../components/keda-notifier'));
        },
        (dir) => kustomize(path.join(dir, 'overlays', 'production')),
      );
      expectValidObjects(rendered, 'production + keda-notifier');
      const scaled = rendered.filter((o) => o.kind === 'ScaledObject');
      expect(scaled).to.have.length(1);
      expect(scaled[0].spec.scaleTargetRef).to.deep.include({ kind: 'Deployment', name: 'notifier' });
      // Two autoscalers must never drive one Deployment: the notifier's HPA is gone, the gateway's stays.
      expect(rendered.filter((o) => o.kind === 'HorizontalPodAutoscaler').map((o) => o.spec.scaleTargetRef.name)).to.deep.equal(['gateway']);
      expect(scaled[0].spec.minReplicaCount).to.be.at.least(2);
      expect(scaled[0].spec.fallback.replicas, 'replicas while Redis cannot be read').to.be.at.least(2);
      expectDisruptionBudgets(rendered);

      const [trigger] = scaled[0].spec.triggers;
      expect(trigger.type).to.equal('redis');
      const auth = rendered.find((o) => o.kind === 'TriggerAuthentication' && o.metadata.name === trigger.authenticationRef.name);
      expect(auth, "the trigger's TriggerAuthentication").to.not.equal(undefined);
      expect(auth!.spec.secretTargetRef.map((r: any) => r.parameter).sort()).to.deep.equal(['address', 'password']);
      for (const ref of auth!.spec.secretTargetRef) expect(ref.name, "a Secret of its own, not the services'").to.not.equal(SECRET_NAME);

      // The list it measures is the queue's: <DELIVERY_QUEUE_PREFIX>:<DELIVERY_QUEUE_NAME>:wait of the ConfigMap,
      // the key where BullMQ keeps the deliveries waiting for a notifier (checked on a real queue).
      const config = rendered.find((o) => o.kind === 'ConfigMap')!.data;
      expect(trigger.metadata.listName).to.equal(`${config.DELIVERY_QUEUE_PREFIX}:${config.DELIVERY_QUEUE_NAME}:wait`);
      if (!(await redisAvailable())) return skipLoudly(this, 'NO REDIS: the BullMQ wait-list key of the KEDA trigger is not checked against a real queue');
      const name = `keda-${Date.now()}`;
      const queue = new DeliveryQueue(REDIS_URL, { name, prefix: config.DELIVERY_QUEUE_PREFIX });
      try {
        await queue.enqueue([
          { id: randomUUID(), attempts: 0 },
          { id: randomUUID(), attempts: 0 },
        ]);
        const key = trigger.metadata.listName.replace(`:${config.DELIVERY_QUEUE_NAME}:`, `:${name}:`);
        const client = await (queue.queue as any).client;
        expect(await client.type(key)).to.equal('list');
        expect(await client.llen(key)).to.equal(2);
      } finally {
        await queue.queue.obliterate({ force: true });
        await queue.close();
      }
    });
  });
});
