/**
 * Two (or more) replicas of every service as real processes, the way a deployment with several machines runs
 * them: each its own `services/<name>/dist/src/main.js`, all on the run's test database and one Redis, with
 * rate limits on and deliveries through one BullMQ queue. The gateway config names one URL per service
 * (INVENTORY_URL, …), so replica set `i` is a gateway pointed at the inventory, qr, monitor and notifier of
 * the same index (docs/operations/scaling.md); a deployment puts a Service or load balancer in front instead.
 */
import { randomBytes } from 'node:crypto';
import { system, testDatabaseUrl } from '../../support/hooks';
import { RunningProcess, killAll, startOnFreePort } from '../../support/processes';
import { REDIS_URL } from '../../support/redis';
import { ServiceName, entryOf } from '../../support/service-processes';

const PORT_VARIABLE: Record<ServiceName, string> = {
  gateway: 'GATEWAY_PORT',
  inventory: 'INVENTORY_PORT',
  qr: 'QR_PORT',
  monitor: 'MONITOR_PORT',
  notifier: 'NOTIFIER_PORT',
};

export interface Replica {
  /** `gateway-1`, `inventory-2`, … */
  name: string;
  service: ServiceName;
  url: string;
  process: RunningProcess;
}

export interface ReplicaSet {
  /** Every process, by `<service>-<index>` (index from 1). */
  replicas: Replica[];
  of(service: ServiceName): Replica[];
  /** The gateways' base URLs, in index order. */
  gateways: string[];
  /** The queue the monitors and check_rules fill and the notifiers drain. */
  queue: { name: string; prefix: string };
  /** The Redis key prefix of the gateways' shared rate-limit counters. */
  rateLimitPrefix: string;
  /** The settings a `check_rules` process needs to enqueue on this set's queue. */
  checkRulesEnv(): Record<string, string>;
  /** Processes that exited (none should), with the tail of their output. */
  exited(): string[];
  stop(): Promise<void>;
}

export interface ReplicaSetOptions {
  count?: number;
  /** RATE_LIMIT_OVERRIDES of every gateway. */
  rateLimitOverrides?: string;
}

/** Starts `count` (default 2) replicas of each service; gateway `i` is pointed at the other services' replica `i`. */
export async function startReplicaSet(opts: ReplicaSetOptions = {}): Promise<ReplicaSet> {
  const count = opts.count ?? 2;
  const sys = system();
  const tag = randomBytes(4).toString('hex');
  const queue = { name: `deliveries-replicas-${tag}`, prefix: `pi-replicas-${tag}` };
  const rateLimitPrefix = `pi-replicas-rl-${tag}`;
  const common = {
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATABASE_URL: testDatabaseUrl(),
    DATABASE_POOL_MAX: '4',
    INTERNAL_JWT_SECRET: sys.internalJwtSecret,
  };
  const delivery = {
    SECRET_ENCRYPTION_KEY: sys.secretEncryptionKey,
    EMAIL_BACKEND: 'console',
    ALLOW_LOOPBACK_WEBHOOKS: 'true',
    REDIS_URL,
    DELIVERY_QUEUE_NAME: queue.name,
    DELIVERY_QUEUE_PREFIX: queue.prefix,
  };
  const own: Record<ServiceName, Record<string, string>> = {
    gateway: {
      JWT_SECRET: sys.jwtSecret,
      PASSWORD_HASH_COST: '14',
      API_KEY_USAGE_FLUSH_MS: '200',
      REDIS_URL,
      RATE_LIMITS: 'on',
      RATE_LIMIT_KEY_PREFIX: rateLimitPrefix,
      RATE_LIMIT_OVERRIDES: opts.rateLimitOverrides ?? '',
    },
    inventory: {},
    qr: { QR_TOKEN_SECRET: sys.qrTokenSecret },
    monitor: delivery,
    notifier: delivery,
  };
  const replicas: Replica[] = [];
  const started: RunningProcess[] = [];
  const start = async (service: ServiceName, index: number, extra: Record<string, string> = {}) => {
    const name = `${service}-${index}`;
    const { process: child, url } = await startOnFreePort(
      name,
      process.execPath,
      [entryOf(service)],
      { ...common, ...own[service], ...extra },
      PORT_VARIABLE[service],
      { timeoutMs: 60_000 },
    );
    started.push(child);
    const replica = { name, service, url, process: child };
    replicas.push(replica);
    return replica;
  };
  const indexes = Array.from({ length: count }, (_, i) => i + 1);
  try {
    // Two at a time: ten node processes starting at once on a shared machine take longer than one by one.
    for (const service of ['inventory', 'qr', 'monitor', 'notifier'] as const) await Promise.all(indexes.map((i) => start(service, i)));
    const urlOf = (service: ServiceName, index: number) => replicas.find((r) => r.name === `${service}-${index}`)!.url;
    for (const i of indexes) {
      await start('gateway', i, {
        INVENTORY_URL: urlOf('inventory', i),
        QR_URL: urlOf('qr', i),
        MONITOR_URL: urlOf('monitor', i),
        NOTIFIER_URL: urlOf('notifier', i),
      });
    }
  } catch (err) {
    await killAll(started);
    throw err;
  }
  const of = (service: ServiceName) => replicas.filter((r) => r.service === service);
  return {
    replicas,
    of,
    gateways: of('gateway').map((g) => g.url),
    queue,
    rateLimitPrefix,
    checkRulesEnv: () => ({ ...common, ...delivery }),
    exited: () =>
      started
        .filter((p) => p.child.exitCode !== null || p.child.signalCode !== null)
        .map((p) => `${p.name} (${p.child.exitCode ?? p.child.signalCode}):\n${p.output().slice(-3000)}`),
    stop: () => killAll(started),
  };
}
