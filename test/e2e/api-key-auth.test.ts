import { expect } from 'chai';
import { api, get, patch, post } from '../support/api';
import { TestCompany, buildApiKey, buildCompany, buildLocation } from '../support/builders';
import { holdLock } from '../support/held-lock';
import { system } from '../support/hooks';
import { row } from '../support/sql';

const WIDGET_LOCATIONS = '/api/v1/widget/locations/';
const locationNames = (body: { locations: Array<{ name: string }> }) => body.locations.map((l) => l.name);

describe('API key authentication (widget paths)', () => {
  let a: TestCompany;
  let b: TestCompany;
  let aLocation: string;

  before(async () => {
    [a, b] = await Promise.all([buildCompany(), buildCompany()]);
    aLocation = (await buildLocation(a)).name;
    await buildLocation(b); // company B has a location of its own, which A must never see
  });

  describe('lookup order: query api_key, then X-API-Key header, then body api_key', () => {
    it('uses the query parameter over the header', async () => {
      const res = await get(`${WIDGET_LOCATIONS}?api_key=${a.apiKey}`, { apiKey: b.apiKey });
      expect(res.status).to.equal(200);
      expect(locationNames(res.body)).to.deep.equal([aLocation]);
    });

    it('does not fall back to the header when the query key is invalid', async () => {
      const res = await get(`${WIDGET_LOCATIONS}?api_key=pik_${'x'.repeat(40)}`, { apiKey: b.apiKey });
      expect(res.status).to.equal(401);
    });

    it('uses the header over the body', async () => {
      const name = `via-header-${Date.now()}`;
      const res = await post('/api/v1/widget/create_location/', { api_key: b.apiKey, name, type: 'SHELF' }, { apiKey: a.apiKey });
      expect(res.status).to.equal(201);
      const aList = await get(WIDGET_LOCATIONS, { apiKey: a.apiKey });
      const bList = await get(WIDGET_LOCATIONS, { apiKey: b.apiKey });
      expect(locationNames(aList.body)).to.include(name);
      expect(locationNames(bList.body)).to.not.include(name);
    });

    it('does not fall back to the body when the header key is invalid', async () => {
      const res = await post('/api/v1/widget/create_location/', { api_key: a.apiKey, name: 'never', type: 'SHELF' }, { apiKey: 'pik_nope' });
      expect(res.status).to.equal(401);
    });

    it('accepts the key in the body alone, and in the query alone', async () => {
      const name = `via-body-${Date.now()}`;
      const created = await post('/api/v1/widget/create_location/', { api_key: a.apiKey, name, type: 'SHELF' });
      expect(created.status).to.equal(201);
      const listed = await get(`${WIDGET_LOCATIONS}?api_key=${encodeURIComponent(a.apiKey)}`);
      expect(listed.status).to.equal(200);
      expect(locationNames(listed.body)).to.include(name);
    });

    it('answers 401 authentication_failed when no key is given anywhere', async () => {
      const res = await get(WIDGET_LOCATIONS);
      expect(res.status).to.equal(401);
      expect(res.body.code).to.equal('authentication_failed');
    });

    it('does not accept a bearer token on widget paths', async () => {
      const res = await get(WIDGET_LOCATIONS, { token: a.token });
      expect(res.status).to.equal(401);
    });
  });

  describe('permission per method', () => {
    const METHODS: Array<[string, 'read' | 'write' | 'delete']> = [
      ['GET', 'read'],
      ['HEAD', 'read'],
      ['OPTIONS', 'read'],
      ['POST', 'write'],
      ['PUT', 'write'],
      ['PATCH', 'write'],
      ['DELETE', 'delete'],
    ];
    const PERMISSION_SETS = [['read'], ['write'], ['delete'], ['read', 'write'], ['read', 'delete'], ['write', 'delete'], ['read', 'write', 'delete']];

    for (const permissions of PERMISSION_SETS) {
      it(`a key with [${permissions.join(', ')}] passes exactly the methods those permissions cover`, async () => {
        const key = await buildApiKey(a, { permissions });
        for (const [method, needed] of METHODS) {
          const res = await api(method, WIDGET_LOCATIONS, { apiKey: key.key });
          if (permissions.includes(needed)) {
            expect([401, 403], `${method} with [${permissions.join(',')}]`).to.not.include(res.status);
          } else {
            expect(res.status, `${method} with [${permissions.join(',')}]`).to.equal(403);
            if (method !== 'HEAD') expect(res.body.code).to.equal('permission_denied');
          }
        }
      });
    }
  });

  describe('key lifecycle', () => {
    it('rejects an expired key with 401', async () => {
      const key = await buildApiKey(a, { expires_at: new Date(Date.now() + 3_600_000).toISOString() });
      expect((await get(WIDGET_LOCATIONS, { apiKey: key.key })).status).to.equal(200);
      await system().db.sequelize.query(`UPDATE api_keys SET expires_at = now() - interval '1 second' WHERE id = $1`, { bind: [key.id] });
      // A change made outside the API reaches the gateways' credential caches by notification: wait for it.
      await system().gateway.credentials.settle();
      const res = await get(WIDGET_LOCATIONS, { apiKey: key.key });
      expect(res.status).to.equal(401);
      expect(res.body.error).to.match(/expired/i);
    });

    it('rejects a revoked key with 401', async () => {
      const key = await buildApiKey(a);
      expect((await api('DELETE', `/api/v1/api-keys/${key.id}/`, { token: a.token })).status).to.equal(204);
      expect((await get(WIDGET_LOCATIONS, { apiKey: key.key })).status).to.equal(401);
    });

    it('rotation makes the old value fail at once and the new one work, on every gateway', async () => {
      const key = await buildApiKey(a);
      const second = await system().startGateway();
      try {
        expect((await get(WIDGET_LOCATIONS, { apiKey: key.key, baseUrl: second.url })).status).to.equal(200);
        const rotated = await post(`/api/v1/api-keys/${key.id}/rotate/`, undefined, { token: a.token });
        expect(rotated.status).to.equal(200);
        expect(rotated.body.key).to.be.a('string').and.not.equal(key.key);
        for (const baseUrl of [system().url, second.url]) {
          expect((await get(WIDGET_LOCATIONS, { apiKey: key.key, baseUrl })).status).to.equal(401);
          expect((await get(WIDGET_LOCATIONS, { apiKey: rotated.body.key, baseUrl })).status).to.equal(200);
        }
      } finally {
        await second.close();
      }
    });
  });

  describe('allowed_domains', () => {
    let key: { id: string; key: string };
    before(async () => {
      key = await buildApiKey(a, { allowed_domains: ['https://shop.example.com', '*.example.org', 'localhost'] });
    });

    it('accepts a request whose Origin is listed (as an origin, a wildcard, or a host)', async () => {
      for (const origin of ['https://shop.example.com', 'https://eu.example.org', 'http://localhost:3000']) {
        const res = await get(WIDGET_LOCATIONS, { apiKey: key.key, headers: { origin } });
        expect(res.status, origin).to.equal(200);
      }
    });

    it('answers 403 origin_not_allowed for a foreign Origin', async () => {
      for (const origin of ['https://evil.example', 'http://shop.example.com', 'https://example.org.evil.com', 'null']) {
        const res = await get(WIDGET_LOCATIONS, { apiKey: key.key, headers: { origin } });
        expect(res.status, origin).to.equal(403);
        expect(res.body.code).to.equal('origin_not_allowed');
      }
    });

    it('accepts a request without an Origin (server-side scripts send none)', async () => {
      expect((await get(WIDGET_LOCATIONS, { apiKey: key.key })).status).to.equal(200);
    });

    it('accepts any Origin when the list is empty', async () => {
      const open = await buildApiKey(a);
      expect((await get(WIDGET_LOCATIONS, { apiKey: open.key, headers: { origin: 'https://anywhere.example' } })).status).to.equal(200);
    });
  });

  describe('usage tracking', () => {
    it('counts every request and records when the key was last used', async () => {
      const key = await buildApiKey(a);
      const before = Date.now();
      for (let i = 0; i < 3; i++) expect((await get(WIDGET_LOCATIONS, { apiKey: key.key })).status).to.equal(200);
      expect((await post('/api/v1/widget/create_location/', { name: 'x', type: 'SHELF' }, { apiKey: key.key })).status).to.equal(403);
      await system().gateway.usage.flush();
      const res = await get(`/api/v1/api-keys/${key.id}/`, { token: a.token });
      expect(res.body.usage_count).to.equal(4);
      expect(new Date(res.body.last_used_at).getTime()).to.be.at.least(before - 1000);
    });

    it('leaves a key that a change holds locked for the next flush instead of waiting for it, and loses no use', async () => {
      const key = await buildApiKey(a);
      const usageCount = async () => (await row<{ n: number }>('SELECT usage_count::int AS n FROM api_keys WHERE id = $1', [key.id])).n;
      const lock = await holdLock('SELECT id FROM api_keys WHERE id = $1 FOR UPDATE', [key.id]);
      try {
        for (let i = 0; i < 3; i++) expect((await get(WIDGET_LOCATIONS, { apiKey: key.key })).status).to.equal(200);
        const flushed = await Promise.race([
          system()
            .gateway.usage.flush()
            .then(() => 'flushed'),
          lock.waitForWaiters(1).then(() => 'waited'),
        ]);
        expect(flushed).to.equal('flushed');
        expect(await usageCount()).to.equal(0);
      } finally {
        await lock.release();
      }
      await system().gateway.usage.flush();
      expect(await usageCount()).to.equal(3);
    });

    it('writes usage within 2 seconds without an explicit flush', async () => {
      const key = await buildApiKey(a);
      await get(WIDGET_LOCATIONS, { apiKey: key.key });
      const deadline = Date.now() + 2000;
      let count = 0;
      while (Date.now() < deadline && count === 0) {
        await new Promise((r) => setTimeout(r, 100));
        count = (await get(`/api/v1/api-keys/${key.id}/`, { token: a.token })).body.usage_count;
      }
      expect(count).to.equal(1);
    });
  });

  describe('changing a key', () => {
    it('takes away a permission at once when the key is updated', async () => {
      const key = await buildApiKey(a, { permissions: ['read', 'write'] });
      expect((await post('/api/v1/widget/create_location/', { name: 'ok', type: 'SHELF' }, { apiKey: key.key })).status).to.equal(201);
      expect((await patch(`/api/v1/api-keys/${key.id}/`, { permissions: ['read'] }, { token: a.token })).status).to.equal(200);
      expect((await post('/api/v1/widget/create_location/', { name: 'no', type: 'SHELF' }, { apiKey: key.key })).status).to.equal(403);
    });
  });
});
