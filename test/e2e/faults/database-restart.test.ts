/**
 * Fault: PostgreSQL restarted under the running system (an upgrade, a failover, an operator's `pg_ctl restart`),
 * with the gateway and the inventory as real processes on a server of this suite's own (an embedded one in a
 * temporary directory: the run's shared server must not go down). The restart's fast shutdown ends every session
 * (57P01), and for a moment nothing can connect.
 *
 * What must hold (docs/api/deadlines-and-retries.md, docs/api/authentication.md "credential cache"): no process
 * exits and none needs a restart; while the database is away every booking answers 503 (never a 500 or a hang);
 * a retry with the same Idempotency-Key once it is back books what was not booked, once; every balance equals its
 * ledger; and the gateway's credential listener hears changes again, so that a key revoked afterwards by another
 * replica (a direct UPDATE here) stops working while this gateway has it cached.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { connectDatabase, type Database } from '@pi/common';
import { EmbeddedPostgres, databaseUrlOf, freePort, loadOrCreateStandaloneState, migrateUp, startEmbeddedPostgres, StandaloneState } from '@pi/db';
import { ApiResponse, api } from '../../support/api';
import { BookingRequest, BookingStream, SendBooking, describeRetries, retryWithTheirKeys, unexpectedFirstAnswers } from '../../support/booking-stream';
import { ServiceProcesses, startServiceProcesses } from '../../support/service-processes';
import { eventually, sleep } from '../../support/wait';
import { brokenRules } from '../fuzz/consistency';

const IN_FLIGHT = 6;
const OPENING_STOCK = 1000;

/** A booking of the stream, and what it takes from the shelf. */
interface Booking extends BookingRequest {
  taken: number;
}

describe('faults: PostgreSQL restarted under the running system (real processes, a server of its own)', function () {
  this.timeout(180_000);
  let dir: string;
  let state: StandaloneState;
  let server: EmbeddedPostgres;
  let db: Database;
  let services: ServiceProcesses;
  let gatewayUrl: string;
  let apiKey: string;
  let token: string;
  let companyId: string;
  let shelf: string;
  let productId: string;

  const call = (method: string, url: string, opts: { body?: unknown; apiKey?: string; token?: string; headers?: Record<string, string> } = {}) =>
    api(method, url, { baseUrl: gatewayUrl, ...opts });
  const created = (res: ApiResponse) => {
    expect(res.status, JSON.stringify(res.body)).to.be.oneOf([200, 201]);
    return res.body;
  };
  const scalar = async (sql: string, bind: unknown[]) =>
    Number(Object.values((await db.sequelize.query<Record<string, unknown>>(sql, { bind, type: QueryTypes.SELECT }))[0])[0]);

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'pi-restarted-pg-'));
    state = await loadOrCreateStandaloneState(dir, await freePort());
    server = await startEmbeddedPostgres(dir, state);
    const url = databaseUrlOf(state);
    // No models: they are bound to the last connection given them, and the worker's test system must keep its own.
    db = connectDatabase({ url, poolMax: 2, withModels: false });
    await migrateUp(db.sequelize);
    const own = { DATABASE_URL: url };
    services = await startServiceProcesses(['inventory', 'gateway'], own, { inventory: own });
    gatewayUrl = services.urls.gateway!;

    const password = `Restart-${randomUUID()}`;
    const registered = created(
      await call('POST', '/api/v1/register/', { body: { company_name: 'Restarted Co', username: `restart_${Date.now()}`, password } }),
    );
    companyId = registered.company.id;
    apiKey = registered.api_key.key;
    token = created(await call('POST', '/api/token/', { body: { username: registered.user.username, password } })).access;
    shelf = created(await call('POST', '/api/v1/locations/', { token, body: { name: 'Shelf', type: 'WAREHOUSE' } })).id;
    productId = created(
      await call('POST', '/api/v1/product-models/', {
        token,
        body: { sku: 'RESTART-1', name: 'Restart bolt', profile: 'STANDARD', engine_config: { engine_type: 'counter' } },
      }),
    ).id;
    created(
      await call('POST', `/api/v1/widget/${productId}/transaction/`, { apiKey, body: { operation: 'add', quantity: OPENING_STOCK, location_id: shelf } }),
    );
  });

  after(async () => {
    await services?.stop();
    await db?.close().catch(() => {});
    await server?.stop().catch(() => {});
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers 200 or 503 while it restarts, never 500; retries with the same key book once; the ledger holds; every process lives on', async () => {
    const send: SendBooking = (booking) => call('POST', booking.path, { apiKey, headers: { 'idempotency-key': booking.key }, body: booking.body });
    const bookingNumber = (n: number): Booking => {
      const subtract = n % 2 === 0;
      return {
        path: `/api/v1/widget/${productId}/transaction/`,
        body: { operation: subtract ? 'subtract' : 'add', quantity: 1, location_id: shelf },
        taken: subtract ? 1 : -1,
      };
    };
    const stream = new BookingStream(send, bookingNumber, IN_FLIGHT, 50);
    await sleep(1000);
    await db.close();
    await server.stop();
    await sleep(500);
    server = await startEmbeddedPostgres(dir, state);
    db = connectDatabase({ url: databaseUrlOf(state), poolMax: 2, withModels: false });
    await eventually(
      () =>
        stream
          .answered()
          .slice(-IN_FLIGHT)
          .every((s) => s.answers[0].status === 200),
      'bookings to go through again',
      60_000,
    );
    await sleep(500);
    const sent = await stream.stop();

    expect(unexpectedFirstAnswers(sent)).to.deep.equal([]);
    const refused = sent.filter((s) => s.answers[0].status === 503);
    expect(refused.length, 'some bookings met the restart').to.be.greaterThan(0);
    await retryWithTheirKeys(refused, send);
    expect(await scalar('SELECT count(*) FROM idempotency_keys WHERE company_id = $1', [companyId])).to.equal(sent.length);
    expect(await scalar('SELECT count(*) FROM stock_movements WHERE company_id = $1', [companyId])).to.equal(sent.length + 1);
    const taken = sent.reduce((sum, s) => sum + s.taken, 0);
    expect(await scalar('SELECT quantity FROM stock_balances WHERE product_id = $1 AND location_id = $2', [productId, shelf])).to.equal(OPENING_STOCK - taken);
    expect(await brokenRules([companyId], db)).to.deep.equal([]);
    expect(services.exited()).to.deep.equal([]);
    process.stdout.write(`      ${describeRetries(sent, refused)}\n`);
  });

  it('hears credential changes again: a key revoked by another replica after the restart stops working here at once', async () => {
    const key = created(await call('POST', '/api/v1/api-keys/', { token, body: { name: 'after the restart', permissions: ['read'] } }));
    const value = key.key as string;
    // The listener is back once its session is; until then nothing is served from the cache.
    await eventually(
      async () => (await scalar("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'pi-gateway-auth-listener'", [])) === 1,
      'the credential listener to reconnect',
      30_000,
    );
    expect((await call('GET', '/api/v1/widget/locations/', { apiKey: value })).status).to.equal(200);
    expect((await call('GET', '/api/v1/widget/locations/', { apiKey: value })).status, 'served again, from the cache').to.equal(200);
    await db.sequelize.query('UPDATE api_keys SET revoked_at = now() WHERE id = $1', { bind: [key.id] });
    await eventually(async () => (await call('GET', '/api/v1/widget/locations/', { apiKey: value })).status === 401, 'the revoked key to be refused', 2_000);
  });
});
