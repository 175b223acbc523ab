/**
 * A frozen inventory service (SIGSTOP on its real process) behind the gateway (issue 13 §2 and §5): no client
 * is told a booking failed when it committed.
 *
 * - Frozen before the request reaches it: the gateway answers 504 `upstream_timeout` (outcome unknown); when
 *   the service resumes, the request's deadline has passed and it books nothing; the client's retry with the
 *   same `Idempotency-Key` books once, and a second retry answers that same booking again.
 * - Frozen in the middle of a booking's transaction (a batch product books in several statements; frozen
 *   after them, before COMMIT): PostgreSQL ends the stalled session at the deadline, and the resumed service
 *   commits nothing.
 * - Frozen while a one-statement booking (a standard product) runs on the server: the server finishes and
 *   commits it in time, the gateway cannot know and answers 504; the retry with the same key answers that
 *   booking, booked once.
 * - A booking that cannot finish before the deadline (its stock is locked by someone else) is abandoned by
 *   the service in time to say so: 503 `service_unavailable`, and indeed nothing was booked — on either
 *   booking path.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Client } from 'pg';
import { deadlineMarginMs } from '@pi/common';
import { api } from '../../support/api';
import { TestCompany, TestProduct, buildCompany, buildLocation, buildProduct } from '../../support/builders';
import { system, testDatabaseUrl } from '../../support/hooks';
import { SessionKiller } from '../../support/pg-faults';
import { ServiceProcesses, sessionNameOf, startServiceProcesses } from '../../support/service-processes';
import { count } from '../../support/sql';
import type { RunningGateway } from '../../support/system';
import { eventually, sleep } from '../../support/wait';

/** Long enough that the margin (a tenth) covers a rollback and an answer on a busy machine. */
const PROXY_TIMEOUT_MS = 5000;

describe('faults: a frozen inventory service behind the gateway (real process, SIGSTOP)', function () {
  this.timeout(60_000);
  let services: ServiceProcesses;
  let gateway: RunningGateway;
  let killer: SessionKiller;
  let company: TestCompany;
  let location: { id: string };

  const inventory = () => services.processes.inventory!;
  const movements = (product: TestProduct) => count('SELECT count(*) FROM stock_movements WHERE product_id = $1', [product.id]);
  const book = (product: TestProduct, key: string | undefined, requestId: string) =>
    api('POST', `/api/v1/widget/${product.id}/transaction/`, {
      baseUrl: gateway.url,
      apiKey: company.apiKey,
      headers: { ...(key ? { 'idempotency-key': key } : {}), 'x-request-id': requestId },
      body: {
        operation: 'add',
        quantity: 1,
        location_id: location.id,
        reason: 'frozen service',
        ...(product.profile === 'BATCH' ? { batch: { code: `LOT-${product.id.slice(0, 8)}` } } : {}),
      },
    });
  /** Holds the stock lock both booking paths take for (product, location) until `release`. */
  const holdStock = async (product: TestProduct) => {
    const holder = new Client({ connectionString: testDatabaseUrl() });
    await holder.connect();
    await holder.query('BEGIN');
    await holder.query('SELECT pg_advisory_xact_lock(ledger_lock_key($1, $2))', [product.id, location.id]);
    return {
      release: () => holder.query('COMMIT'),
      end: () => holder.end().catch(() => {}),
    };
  };
  /** Waits for the service's own access-log line of a request: it has finished with it. */
  const handled = (requestId: string) =>
    eventually(
      () =>
        inventory()
          .output()
          .split('\n')
          .find((l) => l.includes(`"id":"${requestId}"`) && l.includes('"statusCode"')),
      `the service to finish request ${requestId}`,
      15_000,
    );

  before(async () => {
    killer = await SessionKiller.open();
    services = await startServiceProcesses(['inventory']);
    gateway = await system().startGateway({ INVENTORY_URL: services.urls.inventory!, PROXY_TIMEOUT_MS: String(PROXY_TIMEOUT_MS) });
    company = await buildCompany();
    location = await buildLocation(company);
  });

  afterEach(() => {
    if (inventory().child.exitCode === null) inventory().child.kill('SIGCONT');
  });

  after(async () => {
    await gateway?.close();
    await services?.stop();
    await killer?.close();
  });

  it('frozen before the request: 504 upstream_timeout; nothing is booked after it resumes; the retry with the same key books once', async () => {
    const product = await buildProduct(company);
    const key = randomUUID();
    inventory().child.kill('SIGSTOP');
    const sent = Date.now();
    const first = await book(product, key, `frozen-before-${randomUUID()}`);
    const answeredAfter = Date.now() - sent;
    expect(first.status, JSON.stringify(first.body)).to.equal(504);
    expect(first.body).to.include({ code: 'upstream_timeout' });
    expect(first.body.error).to.include('outcome of this request is unknown').and.include('same Idempotency-Key');

    inventory().child.kill('SIGCONT');
    const line = await handled(first.headers.get('x-request-id')!);
    expect(JSON.parse(line).res.statusCode, 'the resumed service refuses the stale request').to.not.equal(200);
    expect(await movements(product), 'nothing booked after the gateway gave up').to.equal(0);

    const retry = await book(product, key, `retry-${randomUUID()}`);
    expect(retry.status, JSON.stringify(retry.body)).to.equal(200);
    expect(retry.headers.get('idempotent-replayed')).to.equal(null);
    const again = await book(product, key, `retry-${randomUUID()}`);
    expect(again.status).to.equal(200);
    expect(again.headers.get('idempotent-replayed')).to.equal('true');
    expect(again.body).to.deep.equal(retry.body);
    expect(await movements(product), 'one booking').to.equal(1);
    expect(services.exited()).to.deep.equal([]);
    process.stdout.write(`      frozen service: 504 after ${answeredAfter} ms (PROXY_TIMEOUT_MS ${PROXY_TIMEOUT_MS})\n`);
  });

  it('frozen inside the transaction of a batch booking, before COMMIT: PostgreSQL ends the stalled session and the resumed service commits nothing', async () => {
    const product = await buildProduct(company, { profile: 'BATCH' });
    expect((await book(product, undefined, `setup-${randomUUID()}`)).status).to.equal(200); // the batch exists
    const holder = await holdStock(product);
    try {
      const key = randomUUID();
      const answer = book(product, key, `frozen-inside-${randomUUID()}`);
      await eventually(() => killer.sessions([sessionNameOf('inventory')], "wait_event_type = 'Lock'"), 'the booking to wait for the stock lock');
      inventory().child.kill('SIGSTOP');
      await holder.release(); // the booking's statement goes on in PostgreSQL; its process cannot send the rest
      const first = await answer;
      expect(first.status, JSON.stringify(first.body)).to.equal(504);
      expect(first.body).to.include({ code: 'upstream_timeout' });
      // PostgreSQL ended the session that sat idle in its transaction past the deadline.
      await eventually(
        async () => (await killer.sessions([sessionNameOf('inventory')], "state LIKE 'idle in transaction%'")) === 0,
        'the stalled session to end',
      );

      inventory().child.kill('SIGCONT');
      await handled(first.headers.get('x-request-id')!);
      expect(await movements(product), 'nothing committed after the gateway gave up').to.equal(1);

      const retry = await book(product, key, `retry-${randomUUID()}`);
      expect(retry.status, JSON.stringify(retry.body)).to.equal(200);
      expect(retry.headers.get('idempotent-replayed')).to.equal(null);
      expect(retry.body.new_stock_display).to.equal('2 pcs');
      expect(await movements(product)).to.equal(2);
    } finally {
      await holder.end();
    }
  });

  it('frozen while its one booking statement runs: the server commits it in time, the gateway answers 504, the retry with the same key answers that booking', async () => {
    const product = await buildProduct(company);
    expect((await book(product, undefined, `setup-${randomUUID()}`)).status).to.equal(200);
    const holder = await holdStock(product);
    try {
      const key = randomUUID();
      const answer = book(product, key, `frozen-statement-${randomUUID()}`);
      await eventually(() => killer.sessions([sessionNameOf('inventory')], "wait_event_type = 'Lock'"), 'the booking to wait for the stock lock');
      inventory().child.kill('SIGSTOP');
      await holder.release(); // the one statement completes and commits on the server, within the deadline
      const first = await answer;
      expect(first.status, JSON.stringify(first.body)).to.equal(504);
      expect(first.body).to.include({ code: 'upstream_timeout' });
      expect(await movements(product), 'the statement committed while its process was frozen').to.equal(2);

      inventory().child.kill('SIGCONT');
      await handled(first.headers.get('x-request-id')!);
      const retry = await book(product, key, `retry-${randomUUID()}`);
      expect(retry.status, JSON.stringify(retry.body)).to.equal(200);
      expect(retry.headers.get('idempotent-replayed'), 'the retry answers the booking that happened').to.equal('true');
      expect(retry.body.new_stock_display).to.equal('2 pcs');
      expect(await movements(product), 'booked once').to.equal(2);
    } finally {
      await holder.end();
    }
  });

  for (const profile of ['STANDARD', 'BATCH'] as const) {
    it(`a booking that cannot finish before the deadline is abandoned in time: 503 service_unavailable, nothing booked (${profile})`, async () => {
      const product = await buildProduct(company, { profile });
      expect((await book(product, undefined, `setup-${randomUUID()}`)).status).to.equal(200);
      const holder = await holdStock(product);
      try {
        const sent = Date.now();
        const res = await book(product, randomUUID(), `abandoned-${randomUUID()}`);
        const answeredAfter = Date.now() - sent;
        // A timeout set from the time left (statement_timeout, or lock_timeout for the one statement)
        // cancels the wait before the gateway's own timeout.
        expect(res.status, JSON.stringify(res.body)).to.equal(503);
        expect(res.body).to.include({ code: 'service_unavailable' });
        expect(res.body.error).to.include('nothing was changed');
        await holder.release();
        await sleep(200);
        expect(await movements(product), 'a 503 means nothing was booked').to.equal(1);
        process.stdout.write(
          `      abandoned ${profile} booking: 503 after ${answeredAfter} ms (deadline ${PROXY_TIMEOUT_MS - deadlineMarginMs(PROXY_TIMEOUT_MS)} ms)\n`,
        );
      } finally {
        await holder.end();
      }
    });
  }
});
