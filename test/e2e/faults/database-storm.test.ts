/**
 * PostgreSQL dropping the services' connections during a booking load (issue 13 §1 and §5), with every service
 * a real process: the sessions of the gateway, inventory, qr, monitor, notifier and `check_rules` on the
 * run's own test database are terminated (`pg_terminate_backend`, chosen by `application_name`) every
 * 150–400 ms while clients book stock through the gateway, each booking with an `Idempotency-Key` and retried
 * with it after a 503 or 504, as docs/api/deadlines-and-retries.md tells clients to.
 *
 * What must hold: every process is still up and ready afterwards; no answer is a 500 (everything lost was
 * retried where that is safe, or answered 503/504 where it is not); every booking a client was told happened
 * is in the ledger exactly once and nothing else is; `stock:verify` finds no difference; `check_rules` runs
 * during the storm finish. And once the storm is over, a connection PostgreSQL dropped while it sat idle in a
 * pool never turns the next request into an error.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { api } from '../../support/api';
import { TestCompany, TestProduct, buildCompany, buildLocation, buildProduct } from '../../support/builders';
import { system, testDatabaseUrl } from '../../support/hooks';
import { SessionKiller } from '../../support/pg-faults';
import { runToExit } from '../../support/processes';
import { CHECK_RULES_ENTRY, ServiceName, ServiceProcesses, VERIFY_STOCK_ENTRY, sessionNameOf, startServiceProcesses } from '../../support/service-processes';
import { count } from '../../support/sql';
import { sleep } from '../../support/wait';

const SERVICES: ServiceName[] = ['inventory', 'qr', 'monitor', 'notifier', 'gateway'];
const SESSIONS = [...SERVICES.map(sessionNameOf), 'pi-check-rules'];
const STORM_MS = 6000;
const CALM_MS = 2000;
const BOOKING_CLIENTS = 6;
/** A client gives up on one booking after this many answers of 503/504 (none should come near it). */
const MAX_TRIES = 40;

/** Every answer a client got, by status and code. */
class Answers {
  readonly byKind = new Map<string, number>();
  add(status: number, code?: string) {
    const kind = status >= 400 ? `${status} ${code ?? '?'}` : String(status);
    this.byKind.set(kind, (this.byKind.get(kind) ?? 0) + 1);
  }
  /** Kinds other than 2xx and the retryable 503/504. */
  unexpected(): string[] {
    return [...this.byKind.keys()].filter((k) => !/^2\d\d$/.test(k) && !/^(503 service_unavailable|503 outcome_unknown|504 upstream_timeout)$/.test(k));
  }
  toString() {
    return [...this.byKind].map(([k, n]) => `${k}: ${n}`).join(', ');
  }
}

describe("faults: PostgreSQL terminating the services' sessions during a booking load (real processes)", function () {
  this.timeout(120_000);
  let killer: SessionKiller;
  let services: ServiceProcesses;
  let company: TestCompany;
  let product: TestProduct;
  let location: { id: string };
  let gateway: string;

  before(async () => {
    killer = await SessionKiller.open();
    services = await startServiceProcesses(SERVICES);
    gateway = services.urls.gateway!;
    company = await buildCompany();
    product = await buildProduct(company);
    location = await buildLocation(company);
  });

  after(async () => {
    await services?.stop();
    await killer?.close();
  });

  /** Books one unit with its own key until a 2xx, retrying the same key after each 503/504; the key once booked. */
  async function bookOnce(answers: Answers, tries: number[]): Promise<string> {
    const key = randomUUID();
    for (let attempt = 1; attempt <= MAX_TRIES; attempt++) {
      const res = await api('POST', `/api/v1/widget/${product.id}/transaction/`, {
        baseUrl: gateway,
        apiKey: company.apiKey,
        headers: { 'idempotency-key': key },
        body: { operation: 'add', quantity: 1, location_id: location.id, reason: 'storm' },
      });
      answers.add(res.status, res.body?.code);
      if (res.status === 200) {
        tries.push(attempt);
        return key;
      }
      if (res.status !== 503 && res.status !== 504) throw new Error(`booking answered ${res.status}: ${JSON.stringify(res.body)}`);
      await sleep(20);
    }
    throw new Error(`a booking still failed after ${MAX_TRIES} tries`);
  }

  /** Reads through each service and the gateway's own routes until `until`. */
  async function readLoop(until: number, answers: Answers) {
    const reads = [
      { path: `/api/v1/widget/${product.id}/`, auth: { apiKey: company.apiKey } },
      { path: '/api/v1/qr-codes/', auth: { token: company.token } },
      { path: '/api/v1/monitoring-rules/', auth: { token: company.token } },
      { path: '/api/v1/users/', auth: { token: company.token } },
    ];
    for (let i = 0; Date.now() < until; i++) {
      const { path: p, auth } = reads[i % reads.length];
      const res = await api('GET', p, { baseUrl: gateway, ...auth });
      answers.add(res.status, res.body?.code);
    }
  }

  /** `check_rules` runs, one after another, until `until`; their exit codes and output. */
  async function checkRulesLoop(until: number) {
    const runs: Array<{ code: number | null; text: string }> = [];
    const env = {
      PATH: process.env.PATH ?? '',
      NODE_ENV: 'test',
      DATABASE_URL: testDatabaseUrl(),
      SECRET_ENCRYPTION_KEY: system().secretEncryptionKey,
      EMAIL_BACKEND: 'console',
    };
    while (Date.now() < until) {
      const run = await runToExit(process.execPath, [CHECK_RULES_ENTRY, '--company', company.id], {
        env,
        timeoutMs: 30_000,
      });
      runs.push({ code: run.code, text: run.text });
    }
    return runs;
  }

  it('every process stays up, no answer is a 500, every booking told 2xx is in the ledger once, stock:verify is clean', async () => {
    // The same load without faults first, for comparison.
    const calm = { answers: new Answers(), booked: [] as string[], tries: [] as number[], until: Date.now() + CALM_MS };
    await Promise.all(
      Array.from({ length: BOOKING_CLIENTS }, async () => {
        while (Date.now() < calm.until) calm.booked.push(await bookOnce(calm.answers, calm.tries));
      }),
    );
    const bookings = new Answers();
    const reads = new Answers();
    const booked: string[] = [];
    const tries: number[] = [];
    const started = Date.now();
    const until = started + STORM_MS;
    const storm = killer.storm(SESSIONS, 150, 400);
    const clients = Array.from({ length: BOOKING_CLIENTS }, async () => {
      while (Date.now() < until) booked.push(await bookOnce(bookings, tries));
    });
    const [checkRuns] = await Promise.all([checkRulesLoop(until), readLoop(until, reads), ...clients]);
    const { rounds, terminated } = await storm.stop();
    const elapsed = Date.now() - started;

    expect(services.exited(), 'no process may die').to.deep.equal([]);
    for (const [name, url] of Object.entries(services.urls)) {
      const ready = await fetch(`${url}/readyz`);
      expect(ready.status, `${name} /readyz after the storm`).to.equal(200);
    }
    const crashes = Object.values(services.processes).filter((p) => /Unhandled 'error' event|uncaughtException|unhandledRejection/.test(p.output()));
    expect(
      crashes.map((p) => p.name),
      'an unhandled error in a log',
    ).to.deep.equal([]);

    expect(bookings.unexpected(), `booking answers: ${bookings.toString()}`).to.deep.equal([]);
    expect(reads.unexpected(), `read answers: ${reads.toString()}`).to.deep.equal([]);
    expect(terminated, 'sessions were terminated').to.be.greaterThan(rounds);

    // The ledger against what the clients were told: each key booked exactly once, nothing else booked.
    const all = [...calm.booked, ...booked];
    expect(new Set(all).size).to.equal(all.length);
    expect(await count('SELECT count(*) FROM stock_movements WHERE product_id = $1', [product.id]), 'movements').to.equal(all.length);
    expect(await count('SELECT COALESCE(SUM(quantity), 0) AS count FROM stock_balances WHERE product_id = $1', [product.id]), 'stock').to.equal(all.length);
    const keyed = await count('SELECT count(*) FROM idempotency_keys WHERE company_id = $1 AND key = ANY($2) AND response_status = 200', [company.id, all]);
    expect(keyed, 'every booked key remembers its answer').to.equal(all.length);
    const verify = await runToExit(process.execPath, [VERIFY_STOCK_ENTRY, '--company', company.id], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: testDatabaseUrl() },
    });
    expect(verify.code, verify.text).to.equal(0);

    expect(checkRuns.length, 'check_rules ran during the storm').to.be.greaterThan(0);
    for (const run of checkRuns) expect(run.code, `check_rules under the storm:\n${run.text}`).to.equal(0);

    const retried = tries.filter((t) => t > 1).length;
    process.stdout.write(
      `      calm: ${calm.booked.length} bookings in ${CALM_MS} ms (answers ${calm.answers.toString()})\n` +
        `      storm: ${elapsed} ms, ${rounds} rounds, ${terminated} sessions terminated; ${booked.length} bookings (${retried} needed a retry, ` +
        `at most ${Math.max(...tries)} tries); booking answers ${bookings.toString()}; read answers ${reads.toString()}; ${checkRuns.length} check_rules runs\n`,
    );
  });

  it('a connection PostgreSQL dropped while idle never turns the next request into an error', async () => {
    const requests = () => [
      api('GET', `/api/v1/widget/${product.id}/`, { baseUrl: gateway, apiKey: company.apiKey }),
      api('POST', `/api/v1/widget/${product.id}/transaction/`, {
        baseUrl: gateway,
        apiKey: company.apiKey,
        body: { operation: 'add', quantity: 1, location_id: location.id, reason: 'after an idle drop' },
      }),
      api('POST', '/api/v1/locations/', { baseUrl: gateway, token: company.token, body: { name: `After drop ${randomUUID()}`, type: 'SHELF' } }),
      api('GET', '/api/v1/qr-codes/', { baseUrl: gateway, token: company.token }),
      api('GET', '/api/v1/monitoring-rules/', { baseUrl: gateway, token: company.token }),
      api('GET', '/api/v1/users/', { baseUrl: gateway, token: company.token }),
    ];
    const before = await count('SELECT count(*) FROM stock_movements WHERE product_id = $1', [product.id]);
    for (let round = 1; round <= 3; round++) {
      await Promise.all(requests()); // every pool holds idle connections
      expect(await killer.terminateIdle(SESSIONS), 'idle sessions to drop').to.be.greaterThan(0);
      // At once: the processes have not yet read that their connections are gone.
      const answers = await Promise.all(requests());
      for (const res of answers) expect(res.status, `round ${round}: ${JSON.stringify(res.body)}`).to.be.within(200, 201);
    }
    expect((await count('SELECT count(*) FROM stock_movements WHERE product_id = $1', [product.id])) - before).to.equal(6);
    expect(services.exited()).to.deep.equal([]);
  });
});
