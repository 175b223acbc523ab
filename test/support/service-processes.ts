/**
 * The services as real processes (their dist/src/main.js, as the image and `npm start` run them) on the run's
 * test database, for the fault suites: a crash only shows in a process of its own, and SIGSTOP freezes only
 * the process it is sent to. The gateway checks tokens and keys against the same database as the test system,
 * so companies built through the test system work through it too.
 */
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { system, testDatabaseUrl } from './hooks';
import { ROOT, RunningProcess, killAll, startOnFreePort, startProcess } from './processes';

export type ServiceName = 'gateway' | 'inventory' | 'qr' | 'monitor' | 'notifier';

/** The `application_name` of a process's database sessions (libs/common runService, gateway main.ts). */
export const sessionNameOf = (service: ServiceName) => `pi-${service}`;

export const entryOf = (service: string) => path.join(ROOT, `services/${service}/dist/src/main.js`);

/** The `check_rules` command's file (`npm run check_rules`, the CronJob, the launcher's schedule). */
export const CHECK_RULES_ENTRY = path.join(ROOT, 'services/monitor/dist/src/check-rules/cli.js');

/** The ledger check's file (`npm run stock:verify`). */
export const VERIFY_STOCK_ENTRY = path.join(ROOT, 'services/inventory/dist/src/cli/verify-stock.js');

export interface ServiceProcesses {
  processes: Partial<Record<ServiceName, RunningProcess>>;
  urls: Partial<Record<ServiceName, string>>;
  /** The processes that exited, with how (none should). */
  exited(): string[];
  /** Starts `service` again, after it died, with its settings and on its port, as a supervisor would. */
  startAgain(service: ServiceName): Promise<RunningProcess>;
  stop(): Promise<void>;
}

const PORT_VARIABLE: Record<ServiceName, string> = {
  gateway: 'GATEWAY_PORT',
  inventory: 'INVENTORY_PORT',
  qr: 'QR_PORT',
  monitor: 'MONITOR_PORT',
  notifier: 'NOTIFIER_PORT',
};

/**
 * Starts `services` (the gateway last, pointed at the ones started here, else at the test system's) with
 * `gatewayEnv` added to the gateway's settings and `env` to each service's.
 */
export async function startServiceProcesses(
  services: ServiceName[],
  gatewayEnv: Record<string, string> = {},
  env: Partial<Record<ServiceName, Record<string, string>>> = {},
): Promise<ServiceProcesses> {
  const sys = system();
  const common = {
    NODE_ENV: 'test',
    DATABASE_URL: testDatabaseUrl(),
    DATABASE_POOL_MAX: '4',
    INTERNAL_JWT_SECRET: sys.internalJwtSecret,
  };
  const own: Record<ServiceName, Record<string, string>> = {
    gateway: { JWT_SECRET: sys.jwtSecret, RATE_LIMITS: 'off', API_KEY_USAGE_FLUSH_MS: '200', PASSWORD_HASH_COST: '10', ...gatewayEnv },
    inventory: {},
    qr: { QR_TOKEN_SECRET: randomBytes(32).toString('hex') },
    monitor: { SECRET_ENCRYPTION_KEY: sys.secretEncryptionKey, EMAIL_BACKEND: 'console' },
    notifier: { SECRET_ENCRYPTION_KEY: sys.secretEncryptionKey, EMAIL_BACKEND: 'console' },
  };
  const running: Partial<Record<ServiceName, RunningProcess>> = {};
  const urls: Partial<Record<ServiceName, string>> = {};
  const settings: Partial<Record<ServiceName, Record<string, string>>> = {};
  const all: RunningProcess[] = [];
  try {
    const start = async (service: ServiceName, extra: Record<string, string> = {}) => {
      settings[service] = { ...common, ...own[service], ...env[service], ...extra };
      const { process: child, url } = await startOnFreePort(
        service,
        process.execPath,
        [entryOf(service)],
        settings[service],
        PORT_VARIABLE[service],
        // Several Node processes starting at once on a loaded machine can take a while each.
        { timeoutMs: 60_000 },
      );
      all.push(child);
      running[service] = child;
      urls[service] = url;
    };
    await Promise.all(services.filter((s) => s !== 'gateway').map((s) => start(s)));
    if (services.includes('gateway')) {
      await start('gateway', {
        INVENTORY_URL: urls.inventory ?? sys.serviceUrls.inventory,
        QR_URL: urls.qr ?? sys.serviceUrls.qr,
        MONITOR_URL: urls.monitor ?? sys.serviceUrls.monitor,
        NOTIFIER_URL: urls.notifier ?? sys.serviceUrls.notifier,
        ...own.gateway,
      });
    }
  } catch (err) {
    await killAll(all);
    throw err;
  }
  return {
    processes: running,
    urls,
    exited: () =>
      all
        .filter((p) => p.child.exitCode !== null || p.child.signalCode !== null)
        .map((p) => `${p.name} (${p.child.exitCode ?? p.child.signalCode}):\n${p.output().slice(-3000)}`),
    startAgain: async (service) => {
      const port = new URL(urls[service]!).port;
      const child = await startProcess(
        service,
        process.execPath,
        [entryOf(service)],
        { ...settings[service]!, [PORT_VARIABLE[service]]: port },
        { timeoutMs: 60_000 },
      );
      all.push(child);
      running[service] = child;
      return child;
    },
    stop: () => killAll(all),
  };
}
