/**
 * SIGTERM, as Kubernetes and compose send it, to real service processes (their dist/src/main.js) on the
 * run's test database: a request in flight is answered, a notifier job in flight is finished and recorded,
 * nothing new is accepted meanwhile, the pools close and the process exits 0, without waiting out its grace
 * period once its work is done.
 *
 * A request is kept in flight without any test-only code in the services: a stock booking takes a
 * transaction-scoped advisory lock per (product, location) (services/inventory/src/ledger/locks.ts); the test
 * holds that lock from its own connection, so the booking waits inside the service until the test lets go.
 */
import { createHash, randomBytes, randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { Client } from 'pg';
import { INTERNAL_AUTH_HEADER, signInternalToken } from '@pi/common';
import { DeliveryQueue } from '@pi/notify';
import { system, testDatabaseUrl } from '../../support/hooks';
import { REDIS_URL, requireRedis } from '../../support/redis';
import { startReceiver } from '../../support/receiver';
import { Tenant, attemptsOf, createChannel, createDelivery, deliverySettings, dropChannels, reload, uniqueQueue } from '../notify/fixtures';
import { eventually, sleep } from '../../support/wait';
import { TestCompany, TestProduct, buildCompany, buildLocation, buildProduct } from '../../support/builders';
import { RunningProcess, killAll, startOnFreePort } from '../../support/processes';
import { entryOf } from '../../support/service-processes';

const secret = () => randomBytes(32).toString('hex');

/** Holds the advisory lock a booking of (product, location) takes, from the test's own connection. */
async function holdStockLock(productId: string, locationId: string) {
  const key = createHash('sha256').update(`${productId}/${locationId}`).digest().readBigInt64BE(0);
  const client = new Client({ connectionString: testDatabaseUrl() });
  await client.connect();
  await client.query('BEGIN');
  await client.query('SELECT pg_advisory_xact_lock($1::bigint)', [key.toString()]);
  return {
    /** Resolves once another session waits for this lock: the booking is in flight. */
    waitedOn: () =>
      eventually(async () => {
        const { rows } = await client.query(
          `SELECT count(*)::int AS n FROM pg_locks l JOIN pg_database d ON d.oid = l.database
            WHERE l.locktype = 'advisory' AND NOT l.granted AND d.datname = current_database()
              AND ((l.classid::bigint << 32) | l.objid::bigint) = $1::bigint`,
          [key.toString()],
        );
        return rows[0].n > 0;
      }, 'the booking to wait for the stock lock'),
    release: async () => {
      await client.query('COMMIT');
      await client.end();
    },
  };
}

/** Whether a new connection to `url` is refused (the server stopped accepting). */
async function refuses(url: string): Promise<boolean> {
  try {
    await fetch(url, { signal: AbortSignal.timeout(2000) });
    return false;
  } catch (err) {
    return ((err as Error & { cause?: { code?: string } }).cause?.code ?? '') === 'ECONNREFUSED';
  }
}

describe('deployment: graceful shutdown on SIGTERM', function () {
  this.timeout(60_000);
  const running: RunningProcess[] = [];
  let company: TestCompany;
  let product: TestProduct;
  let location: { id: string };

  before(async () => {
    company = await buildCompany();
    product = await buildProduct(company);
    location = await buildLocation(company);
  });
  afterEach(() => killAll(running));

  it('inventory: a booking in flight when SIGTERM arrives is answered, no new connection is accepted, and the process exits 0 right after', async () => {
    const internalSecret = secret();
    const { process: inventory, url } = await startOnFreePort(
      'inventory',
      process.execPath,
      [entryOf('inventory')],
      {
        NODE_ENV: 'test',
        DATABASE_URL: testDatabaseUrl(),
        DATABASE_POOL_MAX: '4',
        INTERNAL_JWT_SECRET: internalSecret,
      },
      'INVENTORY_PORT',
    );
    running.push(inventory);
    const token = signInternalToken(
      { companyId: company.id, principal: { kind: 'api_key', id: company.apiKeyId }, permissions: ['read', 'write'], tier: 'free' },
      randomUUID(),
      internalSecret,
    );

    const lock = await holdStockLock(product.id, location.id);
    // A keep-alive client, as the gateway's agent is.
    const answer = fetch(`${url}/api/v1/widget/${product.id}/transaction/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', [INTERNAL_AUTH_HEADER]: token },
      body: JSON.stringify({ operation: 'add', quantity: 3, location_id: location.id, reason: 'in flight at SIGTERM' }),
    });
    await lock.waitedOn();

    inventory.child.kill('SIGTERM');
    await eventually(() => inventory.output().includes('"msg":"shutting down"'), 'the shutdown to begin');
    expect(await refuses(`${url}/healthz`), 'a new connection after SIGTERM').to.equal(true);
    await sleep(1000);
    expect(inventory.child.exitCode, 'the process waits for the booking').to.equal(null);

    await lock.release();
    const res = await answer;
    const answeredAt = Date.now();
    expect(res.status).to.equal(200);
    expect(await res.json()).to.include({ success: true, new_stock_display: '3 pcs' });
    const exit = await inventory.exited;
    expect(exit, inventory.output()).to.deep.equal({ code: 0, signal: null });
    expect(Date.now() - answeredAt, 'exits once it has answered, not after the grace period').to.be.below(5000);
    expect(inventory.output()).to.include('"msg":"stopped"');
  });

  it('gateway: a proxied request in flight when SIGTERM arrives is answered, API key usage is flushed, and the process exits 0 right after', async () => {
    const { serviceUrls, internalJwtSecret } = system();
    const { process: gateway, url } = await startOnFreePort(
      'gateway',
      process.execPath,
      [entryOf('gateway')],
      {
        NODE_ENV: 'test',
        DATABASE_URL: testDatabaseUrl(),
        DATABASE_POOL_MAX: '4',
        INTERNAL_JWT_SECRET: internalJwtSecret,
        JWT_SECRET: secret(),
        INVENTORY_URL: serviceUrls.inventory,
        QR_URL: serviceUrls.qr,
        MONITOR_URL: serviceUrls.monitor,
        NOTIFIER_URL: serviceUrls.notifier,
        RATE_LIMITS: 'off',
        API_KEY_USAGE_FLUSH_MS: '2000',
      },
      'GATEWAY_PORT',
    );
    running.push(gateway);
    const usage = async () => {
      const [rows] = await system().db.sequelize.query('SELECT usage_count FROM api_keys WHERE id = $1', { bind: [company.apiKeyId] });
      return Number((rows[0] as { usage_count: string | number }).usage_count);
    };
    const before = await usage();

    const lock = await holdStockLock(product.id, location.id);
    const answer = fetch(`${url}/api/v1/widget/${product.id}/transaction/`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': company.apiKey },
      body: JSON.stringify({ operation: 'add', quantity: 2, location_id: location.id }),
    });
    await lock.waitedOn();

    gateway.child.kill('SIGTERM');
    await eventually(() => gateway.output().includes('"msg":"shutting down"'), 'the shutdown to begin');
    expect(await refuses(`${url}/healthz`), 'a new connection after SIGTERM').to.equal(true);
    await sleep(1000);
    expect(gateway.child.exitCode, 'the gateway waits for the proxied booking').to.equal(null);

    await lock.release();
    const res = await answer;
    const answeredAt = Date.now();
    expect(res.status).to.equal(200);
    expect(await res.json()).to.include({ success: true });
    const exit = await gateway.exited;
    expect(exit, gateway.output()).to.deep.equal({ code: 0, signal: null });
    expect(Date.now() - answeredAt, 'exits once it has answered, not after the grace period').to.be.below(5000);
    // The usage counter was held in memory (flushed every 2 s at most) and written on the way out.
    expect(await usage()).to.equal(before + 1);
  });

  describe('notifier (Redis)', () => {
    before(async function () {
      await requireRedis(this, 'deployment: graceful shutdown on SIGTERM, notifier');
    });

    it('a webhook delivery in flight when SIGTERM arrives is sent, recorded as delivered, and the process exits 0 once it is', async () => {
      const receiver = await startReceiver();
      const settings = deliverySettings();
      const tenant: Tenant = { company, product };
      const channel = await createChannel(tenant, settings, { url: receiver.url });
      const names = uniqueQueue();
      const queue = new DeliveryQueue(REDIS_URL, names);
      try {
        const { process: notifier, url } = await startOnFreePort(
          'notifier',
          process.execPath,
          [entryOf('notifier')],
          {
            NODE_ENV: 'test',
            DATABASE_URL: testDatabaseUrl(),
            DATABASE_POOL_MAX: '5',
            INTERNAL_JWT_SECRET: secret(),
            SECRET_ENCRYPTION_KEY: settings.SECRET_ENCRYPTION_KEY,
            REDIS_URL,
            DELIVERY_QUEUE_NAME: names.name,
            DELIVERY_QUEUE_PREFIX: names.prefix,
            ALLOW_LOOPBACK_WEBHOOKS: 'true',
          },
          'NOTIFIER_PORT',
        );
        running.push(notifier);
        await eventually(async () => (await fetch(`${url}/readyz`)).status === 200, 'the notifier to be ready');

        // The receiver answers 3 s after the request arrives: SIGTERM comes in between.
        receiver.respond = () => ({ status: 200, body: '{"ok":true}', delayMs: 3000 });
        const { delivery } = await createDelivery(tenant, channel);
        await queue.enqueue([{ id: delivery.id, attempts: 0 }]);
        await receiver.waitForRequests(1);
        const stop = notifier.stop('SIGTERM', 30_000);
        await eventually(() => notifier.output().includes('finishing in-flight jobs'), 'the worker to drain');
        expect(await refuses(`${url}/healthz`), 'a new connection after SIGTERM').to.equal(true);
        // A job queued now is left for another replica: this one takes no more.
        const later = await createDelivery(tenant, channel);
        await queue.enqueue([{ id: later.delivery.id, attempts: 0 }]);
        const exit = await stop;
        expect({ code: exit.code, signal: exit.signal }, notifier.output()).to.deep.equal({ code: 0, signal: null });
        expect(exit.afterMs, 'it waited for the receiver').to.be.at.least(1500);

        expect(await reload(delivery)).to.deep.include({ status: 'DELIVERED', attempts: 1 });
        const attempts = await attemptsOf(delivery);
        expect(attempts.map((a) => [a.ok, a.statusCode])).to.deep.equal([[true, 200]]);
        expect(receiver.requests).to.have.length(1);
        expect(notifier.output()).to.include('delivery worker stopped');
        expect(await reload(later.delivery)).to.deep.include({ status: 'PENDING', attempts: 0 });
        expect(await queue.queue.getJobCounts('wait', 'active')).to.deep.equal({ wait: 1, active: 0 });
      } finally {
        await queue.queue.obliterate({ force: true }).catch(() => {});
        await queue.close();
        await dropChannels([channel]);
        await receiver.close();
      }
    });
  });
});
