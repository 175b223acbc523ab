/**
 * Several machines (issue 18): two replicas of every service (two gateways, two inventories, two qr, two
 * monitors, two notifiers) as real processes on one PostgreSQL (the run's test database) and one Redis, loaded
 * through both gateways at once. What must hold when a deployment runs more than one of each
 * (docs/operations/scaling.md):
 * - rate limits are one budget, whichever gateway a request reaches (counters in Redis);
 * - bookings spread over both gateways and both inventories leave a ledger that `stock:verify` finds exact,
 *   and an Idempotency-Key retried through the other gateway at the same moment books once;
 * - two `check_rules` started at once open each event once, and the notifications they create reach the
 *   receiver exactly once each with both notifiers draining the queue; so do channel tests sent through both
 *   gateways.
 * Each test works in companies of its own; `check_rules` is scoped to the test's company.
 */
import { randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { INTERNAL_AUTH_HEADER, signInternalToken } from '@pi/common';
import { DeliveryQueue, verifySignature } from '@pi/notify';
import { findStockDifferences } from '@pi/inventory/dist/src/cli/verify-stock';
import { get, post } from '../../support/api';
import { expectRateLimited } from '../../support/assertions';
import { TestCompany, addStock, buildCompany, buildLocation, buildProduct } from '../../support/builders';
import { system, testDatabaseUrl } from '../../support/hooks';
import { runToExit } from '../../support/processes';
import { requireRedis } from '../../support/redis';
import { Receiver, startReceiver } from '../../support/receiver';
import { CHECK_RULES_ENTRY, VERIFY_STOCK_ENTRY } from '../../support/service-processes';
import { count, query } from '../../support/sql';
import { eventually, sleep } from '../../support/wait';
import { ReplicaSet, startReplicaSet } from './replica-set';

/** The shared widget burst budget of this suite's gateways: small, and a window longer than any test. */
const BURST = 20;

/** Runs `work` over `items` with at most `limit` in flight. */
async function inParallel<T, R>(items: T[], limit: number, work: (item: T, index: number) => Promise<R>): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  await Promise.all(
    Array.from({ length: Math.min(limit, items.length) }, async () => {
      for (let i = next++; i < items.length; i = next++) results[i] = await work(items[i], i);
    }),
  );
  return results;
}

interface CheckRulesOutput {
  code: number | null;
  text: string;
  skipped: boolean;
  eventsOpened: number;
  deliveriesCreated: number;
}

const numberAfter = (text: string, label: string) => Number(new RegExp(`${label}: (\\d+)`).exec(text)?.[1] ?? NaN);

describe('several machines: two replicas of every service on one PostgreSQL and one Redis', function () {
  this.timeout(240_000);
  let set: ReplicaSet;
  let receiver: Receiver;

  const gateway = (i: number) => set.gateways[i % set.gateways.length];
  const at = (i: number, opts: { token?: string; apiKey?: string; headers?: Record<string, string> } = {}) => ({ ...opts, baseUrl: gateway(i) });

  const checkRules = async (company: TestCompany): Promise<CheckRulesOutput> => {
    const run = await runToExit(process.execPath, [CHECK_RULES_ENTRY, '--company', company.id], {
      env: { PATH: process.env.PATH ?? '', ...set.checkRulesEnv() },
      timeoutMs: 90_000,
    });
    return {
      code: run.code,
      text: run.text,
      skipped: run.text.includes('another run holds the lock'),
      eventsOpened: numberAfter(run.text, 'events opened'),
      deliveriesCreated: numberAfter(run.text, 'deliveries created'),
    };
  };

  /** What each notifier says it did (its /metrics: prom-client's text, labelled by service too). */
  const notifierCounts = async () => {
    const token = signInternalToken(
      { companyId: randomUUID(), principal: { kind: 'user', id: randomUUID() }, permissions: ['read'], role: 'admin' },
      randomUUID(),
      system().internalJwtSecret,
    );
    return Promise.all(
      set.of('notifier').map(async (n) => {
        const text = await (await fetch(`${n.url}/metrics`, { headers: { [INTERNAL_AUTH_HEADER]: token } })).text();
        const delivered = /^notifier_deliveries_processed_total\{[^}]*\boutcome="delivered"[^}]*\} (\d+)$/m.exec(text);
        expect(delivered, `${n.name} /metrics`).to.not.equal(null);
        return { name: n.name, delivered: Number(delivered![1]) };
      }),
    );
  };

  before(async function () {
    await requireRedis(this, 'several machines: two replicas of every service');
    this.timeout(180_000);
    receiver = await startReceiver();
    set = await startReplicaSet({ rateLimitOverrides: `widget_burst=${BURST}/3600` });
    for (const n of set.of('notifier')) await eventually(async () => (await fetch(`${n.url}/readyz`)).status === 200, `${n.name} to be ready`, 30_000);
  });

  afterEach(function () {
    if (set) expect(set.exited(), 'no replica exited').to.deep.equal([]);
  });

  after(async function () {
    this.timeout(60_000);
    if (set) {
      const queue = new DeliveryQueue(set.checkRulesEnv().REDIS_URL, set.queue);
      await queue.queue.obliterate({ force: true }).catch(() => {});
      await queue.close();
      await set.stop();
    }
    await receiver?.close();
  });

  it('runs two of each, every gateway reaching the inventory, qr and monitor of its own replica set', async () => {
    const company = await buildCompany();
    const paths = { inventory: '/api/v1/locations/', qr: '/api/v1/qr-codes/', monitor: '/api/v1/notification-channels/' } as const;
    for (const [i, url] of set.gateways.entries()) {
      expect((await fetch(`${url}/readyz`)).status, `gateway-${i + 1} ready`).to.equal(200);
      for (const [service, path] of Object.entries(paths)) {
        const requestId = `replicas-${service}-${i + 1}-${randomBytes(6).toString('hex')}`;
        const res = await get(path, at(i, { token: company.token, headers: { 'x-request-id': requestId } }));
        expect(res.status, `${path} through gateway-${i + 1}: ${JSON.stringify(res.body)}`).to.equal(200);
        // The access log line of the replica that answered carries the request id (written asynchronously).
        const servedBy = () =>
          set
            .of(service as keyof typeof paths)
            .filter((r) => r.process.output().includes(requestId))
            .map((r) => r.name);
        await eventually(() => servedBy().length > 0, `the access log of ${path}`, 5000);
        expect(servedBy(), `${path} through gateway-${i + 1}`).to.deep.equal([`${service}-${i + 1}`]);
      }
    }
  });

  it(`shares one rate limit across both gateways: ${BURST} + 7 widget requests spread over them get exactly 7 answers 429`, async () => {
    const company = await buildCompany();
    const other = await buildCompany();
    const extra = 7;
    // All at once, alternating: each gateway sees fewer than BURST requests, so counters of their own would refuse none.
    const answers = await Promise.all(Array.from({ length: BURST + extra }, (_, i) => get('/api/v1/widget/locations/', at(i, { apiKey: company.apiKey }))));
    const statuses = answers.map((a) => a.status);
    expect(
      statuses.filter((s) => s === 200),
      JSON.stringify(statuses),
    ).to.have.length(BURST);
    const limited = answers.filter((a) => a.status === 429);
    expect(limited, JSON.stringify(statuses)).to.have.length(extra);
    for (const res of limited) expectRateLimited(res, 'widget_burst');
    expect(new Set(answers.map((_, i) => gateway(i))).size, 'both gateways answered').to.equal(2);

    // The budget is spent on both gateways; another key's is untouched on both.
    for (let i = 0; i < set.gateways.length; i++) {
      expectRateLimited(await get('/api/v1/widget/locations/', at(i, { apiKey: company.apiKey })), 'widget_burst');
      expect((await get('/api/v1/widget/locations/', at(i, { apiKey: other.apiKey }))).status, `another key on gateway-${i + 1}`).to.equal(200);
    }
  });

  it('books concurrently through both gateways and both inventories: every answer adds up, a key retried on the other gateway books once, and the ledger verifies', async () => {
    const company = await buildCompany();
    const north = await buildLocation(company);
    const south = await buildLocation(company);
    const virtual = (await get('/api/v1/locations/?type=VIRTUAL', { token: company.token })).body.results as Array<{ id: string; name: string }>;
    const inbound = virtual.find((l) => l.name === 'Inbound')!.id;
    const outbound = virtual.find((l) => l.name === 'Outbound')!.id;
    const products = [await buildProduct(company), await buildProduct(company), await buildProduct(company)];
    const START = 40;
    for (const p of products) await addStock(company, p.id, north.id, START);
    const before = await count('SELECT count(*) FROM stock_movements WHERE company_id = $1', [company.id]);

    // A mix over a few hot balances: additions, subtractions and transfers both ways, some bound to run short.
    const routes = [
      [inbound, north.id],
      [inbound, south.id],
      [north.id, outbound],
      [south.id, outbound],
      [north.id, south.id],
      [south.id, north.id],
    ];
    const bookings = Array.from({ length: 120 }, (_, i) => {
      const [from, to] = routes[Math.floor(i / products.length) % routes.length];
      return { product_id: products[i % products.length].id, from_location_id: from, to_location_id: to, quantity: 1 + (i % 4), reason: `replicas ${i}` };
    });
    const answers = await inParallel(bookings, 12, (body, i) =>
      post('/api/v1/movements/', body, at(i, { token: company.token, headers: { 'idempotency-key': `replicas-${company.id}-${i}` } })),
    );
    const unexpected = answers
      .map((a, i) => ({ i, status: a.status, code: a.body?.code }))
      .filter((a) => a.status !== 201 && !(a.status === 409 && a.code === 'insufficient_stock'));
    expect(unexpected).to.deep.equal([]);
    const booked = bookings.filter((_, i) => answers[i].status === 201);
    expect(booked.length, 'most bookings succeed').to.be.greaterThan(bookings.length / 2);

    // The same key and body through both gateways at the same moment: one booking, one replay of it.
    const twice = { product_id: products[0].id, from_location_id: inbound, to_location_id: south.id, quantity: 5, reason: 'retried on the other gateway' };
    for (let round = 0; round < 5; round++) {
      const key = `replicas-twice-${company.id}-${round}`;
      const pair = await Promise.all(
        [0, 1].map((i) => post('/api/v1/movements/', twice, at(i, { token: company.token, headers: { 'idempotency-key': key } }))),
      );
      expect(
        pair.map((r) => r.status),
        JSON.stringify(pair.map((r) => r.body)),
      ).to.deep.equal([201, 201]);
      expect(pair.map((r) => r.headers.get('idempotent-replayed')).sort(), `round ${round}`).to.deep.equal(['true', null].sort());
      expect(pair[0].body).to.deep.equal(pair[1].body);
      booked.push(twice);
    }

    // Both inventories booked.
    for (const inventory of set.of('inventory')) {
      expect(inventory.process.output().split('"url":"/api/v1/movements/"').length - 1, `${inventory.name} booked`).to.be.greaterThan(10);
    }
    expect(await count('SELECT count(*) FROM stock_movements WHERE company_id = $1', [company.id])).to.equal(before + booked.length);

    // Totals: what every 201 answered adds up to the stock both gateways report.
    for (const product of products) {
      const delta = booked
        .filter((b) => b.product_id === product.id)
        .reduce((sum, b) => sum + (b.from_location_id === inbound ? b.quantity : b.to_location_id === outbound ? -b.quantity : 0), 0);
      for (let i = 0; i < set.gateways.length; i++) {
        const stock = await get(`/api/v1/stock/?product_id=${product.id}`, at(i, { token: company.token }));
        expect(stock.status).to.equal(200);
        expect(stock.body.results[0].total_quantity, `${product.sku} through gateway-${i + 1}`).to.equal(START + delta);
      }
    }

    // The ledger verifies: the function and the command (`npm run stock:verify`) find no difference.
    const verified = await findStockDifferences(system().db, company.id);
    expect(verified.differences).to.deep.equal([]);
    expect(verified.balances).to.equal(products.length * 2);
    const command = await runToExit(process.execPath, [VERIFY_STOCK_ENTRY, '--company', company.id], {
      env: { PATH: process.env.PATH ?? '', DATABASE_URL: testDatabaseUrl() },
    });
    expect(command.code, command.text).to.equal(0);
    expect(command.text).to.include(`balances checked: ${products.length * 2}, differences: 0`);
  });

  it('opens each event once when two check_rules start at once, and delivers every notification exactly once with both notifiers running', async () => {
    const company = await buildCompany();
    const shelf = await buildLocation(company);
    const BREACHING = 12;
    const products = [];
    for (let i = 0; i < BREACHING; i++) {
      const product = await buildProduct(company, { engine_config: { engine_type: 'counter', min_stock: 5 } });
      await addStock(company, product.id, shelf.id, 2);
      products.push(product);
    }
    const quiet = await buildProduct(company, { engine_config: { engine_type: 'counter', min_stock: 1 } });
    await addStock(company, quiet.id, shelf.id, 3); // above its minimum: no event
    // A channel created through each gateway (so through each monitor), both subscribed to THRESHOLD and TEST.
    const channels = await Promise.all(
      [0, 1].map(async (i) => {
        const res = await post(
          '/api/v1/notification-channels/',
          { name: `ops ${i + 1}`, kind: 'WEBHOOK', url: `${receiver.url}?channel=${i + 1}`, events: ['THRESHOLD', 'TEST'] },
          at(i, { token: company.token }),
        );
        expect(res.status, JSON.stringify(res.body)).to.equal(201);
        return res.body as { id: string; secret: string; url: string };
      }),
    );
    const secretOf = (path: string) => channels.find((c) => c.url.endsWith(path.slice(path.indexOf('?'))))!.secret;
    receiver.requests.length = 0;
    const deliveredBefore = (await notifierCounts()).reduce((sum, n) => sum + n.delivered, 0);

    const runs = await Promise.all([checkRules(company), checkRules(company)]);
    for (const run of runs) expect(run.code, run.text).to.equal(0);
    // One run did the work; the other found the run lock taken (skipped) or, started after it ended, nothing left to open.
    const worked = runs.filter((r) => !r.skipped && r.eventsOpened > 0);
    expect(worked, runs.map((r) => r.text).join('\n---\n')).to.have.length(1);
    const other = runs.find((r) => r !== worked[0])!;
    expect(other.skipped || (other.eventsOpened === 0 && other.deliveriesCreated === 0), other.text).to.equal(true);
    const opened = runs.reduce((sum, r) => sum + (r.skipped ? 0 : r.eventsOpened), 0);
    const created = runs.reduce((sum, r) => sum + (r.skipped ? 0 : r.deliveriesCreated), 0);
    expect(opened).to.equal(BREACHING);
    expect(created).to.equal(BREACHING * channels.length);
    expect(await count(`SELECT count(*) FROM event_log WHERE company_id = $1`, [company.id])).to.equal(BREACHING);
    expect(await count(`SELECT count(*) FROM check_rules_run_companies WHERE company_id = $1`, [company.id])).to.equal(runs.filter((r) => !r.skipped).length);

    // Channel tests through both gateways at once, while the notifiers drain the run's deliveries.
    const tests = await Promise.all(
      Array.from({ length: 6 }, (_, i) =>
        post(`/api/v1/notification-channels/${channels[i % 2].id}/test/`, {}, at(Math.floor(i / 2), { token: company.token })),
      ),
    );
    expect(
      tests.map((t) => t.status),
      JSON.stringify(tests.map((t) => t.body)),
    ).to.deep.equal(Array(6).fill(202));

    const expected = BREACHING * channels.length + tests.length;
    await receiver.waitForRequests(expected, 120_000);
    await eventually(
      async () => (await count(`SELECT count(*) FROM notification_deliveries WHERE company_id = $1 AND status = 'DELIVERED'`, [company.id])) === expected,
      'every delivery recorded as delivered',
      60_000,
    );
    await sleep(1500); // room for a duplicate to arrive
    expect(receiver.requests).to.have.length(expected);
    const seen = new Map<string, number>();
    for (const r of receiver.requests) {
      const body = JSON.parse(r.body);
      expect(body.company_id).to.equal(company.id);
      expect(verifySignature(r.body, secretOf(r.path), r.headers['x-pi-signature'] as string), "signed with its channel's secret").to.equal(true);
      const key = `${r.path} ${body.event_id}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
    expect(
      [...seen.values()].filter((n) => n > 1),
      'a delivery that arrived twice',
    ).to.deep.equal([]);
    expect(seen.size).to.equal(expected);
    const types = receiver.requests.map((r) => JSON.parse(r.body).type);
    expect(types.filter((t) => t === 'THRESHOLD')).to.have.length(BREACHING * channels.length);
    expect(types.filter((t) => t === 'TEST')).to.have.length(tests.length);

    // Each delivery took one attempt; the notifiers together delivered exactly that many.
    const deliveries = await query<{ status: string; attempts: number }>(`SELECT status, attempts FROM notification_deliveries WHERE company_id = $1`, [
      company.id,
    ]);
    expect(deliveries).to.have.length(expected);
    expect(deliveries.filter((d) => d.status !== 'DELIVERED' || Number(d.attempts) !== 1)).to.deep.equal([]);
    expect(await count(`SELECT count(*) FROM notification_attempts WHERE company_id = $1`, [company.id])).to.equal(expected);
    const counts = await notifierCounts();
    expect(counts.reduce((sum, n) => sum + n.delivered, 0) - deliveredBefore, JSON.stringify(counts)).to.equal(expected);

    // A later run finds nothing to open and nothing due: nothing is sent again.
    const again = await checkRules(company);
    expect(again.code, again.text).to.equal(0);
    expect(again.text).to.include('events opened: 0').and.include('deliveries created: 0 (due from earlier runs: 0)');
    await sleep(500);
    expect(receiver.requests).to.have.length(expected);
  });
});
