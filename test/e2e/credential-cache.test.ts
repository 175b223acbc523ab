/**
 * The gateway's credential cache (docs/api/authentication.md "Credential cache"): API keys and users are served from memory, and
 * every change that alters what they authorize reaches every gateway replica through PostgreSQL
 * notifications before the API answers the change. A gateway whose listening connection is lost keeps
 * serving from the database and empties its cache when it is back.
 *
 * "Silent" changes below are made with triggers off (`session_replication_role = replica`, the test
 * database's own superuser session), so that no notification is sent: what a gateway answers then shows
 * whether it read its cache or the database.
 */
import { expect } from 'chai';
import { Client } from 'pg';
import sinon from 'sinon';
import { createLogger, generateKeyValue } from '@pi/common';
import { AuthChangeListener, LISTENER_APPLICATION_NAME } from '@pi/gateway';
import { del, get, patch, post } from '../support/api';
import { TestCompany, buildApiKey, buildCompany, buildUser, generateCode } from '../support/builders';
import { system, testDatabaseUrl } from '../support/hooks';
import { query } from '../support/sql';
import type { RunningGateway } from '../support/system';
import { eventually } from '../support/wait';

const WIDGET_LOCATIONS = '/api/v1/widget/locations/';

/** Runs `sql` with the database's triggers off: nothing is notified. */
async function silently(sql: string, bind: unknown[]): Promise<void> {
  await system().db.sequelize.transaction(async (transaction) => {
    await system().db.sequelize.query('SET LOCAL session_replication_role = replica', { transaction });
    await system().db.sequelize.query(sql, { bind, transaction });
  });
}

const keyStatus = async (key: string, baseUrl: string) => (await get(WIDGET_LOCATIONS, { apiKey: key, baseUrl })).status;

describe('credential cache', () => {
  let second: RunningGateway;
  let company: TestCompany;
  before(async () => {
    second = await system().startGateway();
    company = await buildCompany();
  });
  after(async () => {
    await second.close();
  });
  const both = () => [system().url, second.url];
  const everywhere = async (key: string) => Promise.all(both().map((url) => keyStatus(key, url)));

  describe('API keys', () => {
    it("serves a key it has read from memory (a silent revocation goes unseen), and drops the company's keys on a company change", async () => {
      const key = await buildApiKey(company);
      expect(await everywhere(key.key)).to.deep.equal([200, 200]);
      await silently('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [key.id]);
      expect(await everywhere(key.key)).to.deep.equal([200, 200]);
      // Any change to the company row notifies `company:<id>`: every entry of that company goes.
      await system().db.sequelize.query('UPDATE companies SET name = name WHERE id = $1', { bind: [company.id] });
      await system().gateway.credentials.settle();
      expect(await everywhere(key.key)).to.deep.equal([401, 401]);
    });

    it('takes a PATCH of permissions, allowed_domains and expiry into account at once on every gateway', async () => {
      const key = await buildApiKey(company, { permissions: ['read', 'write'] });
      const create = (baseUrl: string) => post('/api/v1/widget/create_location/', { name: 'Shelf', type: 'SHELF' }, { apiKey: key.key, baseUrl });
      for (const baseUrl of both()) expect((await create(baseUrl)).status).to.equal(201);

      expect((await patch(`/api/v1/api-keys/${key.id}/`, { permissions: ['read'] }, { token: company.token })).status).to.equal(200);
      for (const baseUrl of both()) expect((await create(baseUrl)).status).to.equal(403);

      const origin = { origin: 'https://shop.example.com' };
      for (const baseUrl of both()) expect((await get(WIDGET_LOCATIONS, { apiKey: key.key, baseUrl, headers: origin })).status).to.equal(200);
      expect((await patch(`/api/v1/api-keys/${key.id}/`, { allowed_domains: ['other.example.com'] }, { token: company.token })).status).to.equal(200);
      for (const baseUrl of both())
        expect((await get(WIDGET_LOCATIONS, { apiKey: key.key, baseUrl, headers: origin })).body.code).to.equal('origin_not_allowed');

      const soon = new Date(Date.now() + 1500).toISOString();
      expect((await patch(`/api/v1/api-keys/${key.id}/`, { expires_at: soon }, { token: company.token })).status).to.equal(200);
      await eventually(async () => (await everywhere(key.key)).every((s) => s === 401), 'the key to expire on both gateways', 5000);
    });

    it('refuses a revoked key at once on every gateway that had it cached', async () => {
      const key = await buildApiKey(company);
      expect(await everywhere(key.key)).to.deep.equal([200, 200]);
      expect((await del(`/api/v1/api-keys/${key.id}/`, { token: company.token })).status).to.equal(204);
      expect(await everywhere(key.key)).to.deep.equal([401, 401]);
    });

    it('revokes scan keys minted from the widget key with it, on every gateway', async () => {
      const own = await buildCompany();
      const code = await generateCode(own);
      const go = await get(`/go/${code}/`);
      const token = new URL(go.headers.get('location')!).searchParams.get('token');
      const exchanged = await post('/api/v1/widget/exchange_token/', { token }, { baseUrl: second.url });
      expect(exchanged.status, JSON.stringify(exchanged.body)).to.equal(200);
      const scanKey: string = exchanged.body.api_key;
      expect(await everywhere(scanKey)).to.deep.equal([200, 200]);
      const rotated = await post(`/api/v1/api-keys/${own.apiKeyId}/rotate/`, undefined, { token: own.token });
      expect(rotated.status).to.equal(200);
      expect(await everywhere(scanKey)).to.deep.equal([401, 401]);
      expect(await everywhere(own.apiKey)).to.deep.equal([401, 401]);
      expect(await everywhere(rotated.body.key)).to.deep.equal([200, 200]);
    });
  });

  describe('users', () => {
    it('serves a bearer request from memory (a silent deactivation goes unseen) until the user changes', async () => {
      const member = await buildUser(company);
      for (const baseUrl of both()) expect((await get('/api/v1/locations/', { token: member.token, baseUrl })).status).to.equal(200);
      await silently('UPDATE users SET is_active = false WHERE id = $1', [member.id]);
      for (const baseUrl of both()) expect((await get('/api/v1/locations/', { token: member.token, baseUrl })).status).to.equal(200);
      // Now a change that notifies (`user:<id>`): the user is read again, inactive.
      await system().db.sequelize.query('UPDATE users SET token_version = token_version + 1 WHERE id = $1', { bind: [member.id] });
      await system().gateway.credentials.settle();
      for (const baseUrl of both()) expect((await get('/api/v1/locations/', { token: member.token, baseUrl })).status).to.equal(401);
    });
  });

  describe('when the listening connection is lost', () => {
    const listeners = () =>
      query<{ pid: number }>('SELECT pid FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1', [LISTENER_APPLICATION_NAME]);

    it('keeps serving, reads the database meanwhile, reconnects and empties its cache, and hears changes again', async () => {
      const key = await buildApiKey(company);
      expect(await everywhere(key.key)).to.deep.equal([200, 200]);
      const before = (await listeners()).map((l) => l.pid);
      expect(before.length).to.be.at.least(2);

      // This run's database only: the listeners of the test gateways.
      await query('SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = current_database() AND application_name = $1', [
        LISTENER_APPLICATION_NAME,
      ]);
      // Still answering, whatever the listeners' state.
      expect(await everywhere(key.key)).to.deep.equal([200, 200]);
      await eventually(
        async () => {
          const now = (await listeners()).map((l) => l.pid);
          return now.length === before.length && now.every((pid) => !before.includes(pid));
        },
        'every gateway to listen again',
        10_000,
      );

      // What was cached before the outage is gone: a silent revocation is seen.
      await silently('UPDATE api_keys SET revoked_at = now() WHERE id = $1', [key.id]);
      expect(await everywhere(key.key)).to.deep.equal([401, 401]);

      // And notifications work again.
      const next = await buildApiKey(company);
      expect(await everywhere(next.key)).to.deep.equal([200, 200]);
      expect((await del(`/api/v1/api-keys/${next.id}/`, { token: company.token })).status).to.equal(204);
      expect(await everywhere(next.key)).to.deep.equal([401, 401]);
      expect(system().logs.text()).to.include('credential change listener lost its connection');
    });
  });

  it('remembers only keys that exist: a refused value works as soon as a key with it exists', async () => {
    const value = generateKeyValue();
    for (const baseUrl of both()) expect(await keyStatus(value.value, baseUrl)).to.equal(401);
    // Inserted straight in SQL (nothing is notified on insert): no refusal was remembered.
    await query(`INSERT INTO api_keys (company_id, name, prefix, key_hash, permissions) VALUES ($1, 'inserted', $2, $3, ARRAY['read']) RETURNING id`, [
      company.id,
      value.prefix,
      value.hash,
    ]);
    expect(await everywhere(value.value)).to.deep.equal([200, 200]);
  });
});

describe('the credential change listener', () => {
  it('sends one query at a time on its connection, however many fences and acknowledgements meet', async () => {
    const inFlight = new Map<Client, number>();
    let most = 0;
    const original = Object.getOwnPropertyDescriptor(Client.prototype, 'query')!.value as (this: Client, ...args: unknown[]) => unknown;
    // The listeners' connections only (this one's and the test system's gateway's): other clients of this
    // process are none of this test's business.
    function counted(this: Client, ...args: unknown[]): unknown {
      const listening =
        (this as Client & { connectionParameters: { application_name?: string } }).connectionParameters.application_name === LISTENER_APPLICATION_NAME;
      // Only a query without a callback answers a promise (Sequelize passes a callback, a cursor is a
      // submittable). Those of the worker's other clients, which run meanwhile, are passed on untouched.
      if (!listening) return original.apply(this, args);
      inFlight.set(this, (inFlight.get(this) ?? 0) + 1);
      most = Math.max(most, inFlight.get(this)!);
      const answer = original.apply(this, args) as Promise<unknown>;
      const settled = () => inFlight.set(this, inFlight.get(this)! - 1);
      answer.then(settled, settled);
      return answer;
    }
    sinon.replace(Client.prototype, 'query', counted as typeof Client.prototype.query);
    const listener = new AuthChangeListener({ databaseUrl: testDatabaseUrl(), logger: createLogger('test', 'silent'), handlers: { change() {}, reset() {} } });
    try {
      await listener.start();
      expect(listener.isListening).to.equal(true);
      // Each fence is a query, and each marker it sends comes back to be acknowledged with another.
      await Promise.all(Array.from({ length: 10 }, () => listener.fence()));
    } finally {
      sinon.restore();
      await listener.stop();
    }
    expect(most).to.equal(1);
  });
});
