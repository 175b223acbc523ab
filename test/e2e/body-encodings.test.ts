/**
 * Bodies that are not what their headers say, and JSON nested beyond reason: a 4xx in the error shape naming
 * the problem, at the gateway and in the services' own parser, and nothing changed (docs/api/conventions.md "Conventions").
 */
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import { expect } from 'chai';
import { MAX_JSON_DEPTH, MAX_OBJECT_MEMBERS, signInternalToken } from '@pi/common';
import { expectErrorShape, expectValidationError } from '../support/assertions';
import { TestCompany, buildCompany, unique } from '../support/builders';
import { system } from '../support/hooks';
import { rawRequest } from '../support/raw-http';
import { count } from '../support/sql';

const json = (value: unknown) => Buffer.from(JSON.stringify(value));
const nested = (depth: number, leaf = '1') => '['.repeat(depth) + leaf + ']'.repeat(depth);

/** A route of each kind that takes a JSON body: proxied (bearer, widget key) and the gateway's own (bearer, none). */
const bodyRoutes = (company: TestCompany) =>
  [
    ['/api/v1/locations/', { token: company.token }],
    ['/api/v1/widget/create_location/', { apiKey: company.apiKey }],
    ['/api/v1/users/', { token: company.token }],
    ['/api/token/', {}],
  ] as const;

/** The internal token the gateway would send for the company's admin: a service called without the gateway. */
const adminInternalToken = (company: TestCompany, requestId: string) =>
  signInternalToken(
    { companyId: company.id, principal: { kind: 'user', id: company.admin.id }, permissions: ['read', 'write', 'delete'], role: 'admin' },
    requestId,
    system().internalJwtSecret,
  );

describe('Content-Encoding that does not match the body', () => {
  const encodings = ['gzip', 'deflate', 'br', 'GZIP', 'Br'];

  it('login, registration, a proxied create and a widget booking answer 400 naming body, and change nothing', async () => {
    const company = await buildCompany();
    const name = unique('Encoded');
    const cases = [
      { path: '/api/token/', body: json({ username: company.admin.username, password: company.admin.password }), opts: {} },
      { path: '/api/v1/register/', body: json({ company_name: name, username: unique('enc'), password: 'pw-0f3a9c2e7b5d1a48' }), opts: {} },
      { path: '/api/v1/locations/', body: json({ name, type: 'WAREHOUSE' }), opts: { token: company.token } },
      { path: '/api/v1/widget/create_location/', body: json({ name, type: 'SHELF' }), opts: { apiKey: company.apiKey } },
    ];
    for (const c of cases) {
      for (const encoding of ['gzip', 'deflate', 'br']) {
        const res = await rawRequest('POST', c.path, { ...c.opts, body: c.body, headers: { 'content-encoding': encoding } });
        expectValidationError(res, 'body');
        expect(res.body.details.body, `${encoding} ${c.path}`).to.include('Content-Encoding');
      }
      // A truncated stream of the right kind is no better.
      expectValidationError(
        await rawRequest('POST', c.path, { ...c.opts, body: gzipSync(c.body).subarray(0, 12), headers: { 'content-encoding': 'gzip' } }),
        'body',
      );
    }
    expect(await count('SELECT count(*) FROM companies WHERE name = $1', [name])).to.equal(0);
    expect(await count('SELECT count(*) FROM locations WHERE name = $1', [name])).to.equal(0);
  });

  it('an unsupported or repeated encoding answers 415 unsupported_media_type naming content-encoding', async () => {
    for (const encoding of ['compress', 'x-gzip', 'x-unknown', 'gzip, gzip', 'identity, br']) {
      const res = await rawRequest('POST', '/api/token/', { body: json({ username: 'x', password: 'y' }), headers: { 'content-encoding': encoding } });
      expectErrorShape(res, 415, 'unsupported_media_type');
      expect(res.body.details).to.have.property('content-encoding');
    }
  });

  it('a compressed body that inflates beyond BODY_LIMIT is 413, however small on the wire', async () => {
    const bomb = gzipSync(Buffer.concat([Buffer.from('{"name":"'), Buffer.alloc(8 * 1024 * 1024, 'a'), Buffer.from('"}')]));
    expect(bomb.length).to.be.below(64 * 1024);
    const company = await buildCompany();
    expectErrorShape(
      await rawRequest('POST', '/api/v1/locations/', { token: company.token, body: bomb, headers: { 'content-encoding': 'gzip' } }),
      413,
      'payload_too_large',
    );
    expectErrorShape(await rawRequest('POST', '/api/token/', { body: bomb, headers: { 'content-encoding': 'gzip' } }), 413, 'payload_too_large');
  });

  it('a body that does match its encoding is accepted, and reaches the service decoded', async () => {
    const company = await buildCompany();
    const compress: Record<string, (b: Buffer) => Buffer> = { gzip: gzipSync, deflate: deflateSync, br: brotliCompressSync };
    for (const encoding of encodings) {
      const pack = compress[encoding.toLowerCase()];
      const login = await rawRequest('POST', '/api/token/', {
        body: pack(json({ username: company.admin.username, password: company.admin.password })),
        headers: { 'content-encoding': encoding },
      });
      expect(login.status, encoding).to.equal(200);
      const name = unique(`Gz ${encoding}`);
      const created = await rawRequest('POST', '/api/v1/locations/', {
        token: company.token,
        body: pack(json({ name, type: 'WAREHOUSE' })),
        headers: { 'content-encoding': encoding },
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      expect(created.body.name).to.equal(name);
    }
  });

  it('a CSV import (passed through to the service undecoded) that does not match its encoding is 400 from the service, importing nothing', async () => {
    const company = await buildCompany();
    const sku = unique('SKU');
    const csv = `sku,name,profile,engine_type\n${sku},Encoded,STANDARD,counter\n`;
    const res = await rawRequest('POST', '/api/v1/product-models/import/', {
      token: company.token,
      body: csv,
      headers: { 'content-type': 'text/csv', 'content-encoding': 'gzip' },
    });
    expectValidationError(res, 'body');
    expect(await count('SELECT count(*) FROM product_models WHERE sku = $1', [sku])).to.equal(0);
    const ok = await rawRequest('POST', '/api/v1/product-models/import/', {
      token: company.token,
      body: gzipSync(csv),
      headers: { 'content-type': 'text/csv', 'content-encoding': 'gzip' },
    });
    expect(ok.status, JSON.stringify(ok.body)).to.equal(201);
  });
});

describe('JSON in a charset other than UTF-8', () => {
  it("a UTF-16 body is read as such on a proxied route too, as on the gateway's own: the service gets it as UTF-8", async () => {
    const company = await buildCompany();
    const name = unique('Café 16 ✓');
    for (const charset of ['utf-16le', 'utf-16']) {
      const text = JSON.stringify({ name: `${name} ${charset}`, type: 'SHELF' });
      const body = charset === 'utf-16' ? Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]) : Buffer.from(text, 'utf16le');
      const created = await rawRequest('POST', '/api/v1/locations/', {
        token: company.token,
        headers: { 'content-type': `application/json; charset=${charset}` },
        body,
      });
      expect(created.status, JSON.stringify(created.body)).to.equal(201);
      expect(created.body.name).to.equal(`${name} ${charset}`);
    }
  });
});

describe(`JSON nested deeper than ${MAX_JSON_DEPTH} levels`, () => {
  it('answers 400 naming body at the gateway (its own routes and proxied ones), and changes nothing', async () => {
    const company = await buildCompany();
    const name = unique('Deep');
    for (const depth of [MAX_JSON_DEPTH + 1, 1_000, 20_000, 100_000]) {
      const deep = `{"name":"${name}","type":"WAREHOUSE","parent_id":${nested(depth)}}`;
      for (const [path, opts] of bodyRoutes(company)) {
        const res = await rawRequest('POST', path, { ...opts, body: deep });
        expectValidationError(res, 'body');
        expect(res.body.details.body, `${depth} ${path}`).to.include(String(MAX_JSON_DEPTH));
      }
      const objectDepth = Math.min(depth, 50_000);
      const objects = `{"a":${'{"a":'.repeat(objectDepth)}1${'}'.repeat(objectDepth)}}`;
      expectValidationError(await rawRequest('POST', '/api/v1/product-models/', { token: company.token, body: objects }), 'body');
    }
    expect(await count('SELECT count(*) FROM locations WHERE name = $1', [name])).to.equal(0);
  });

  it(`nesting up to ${MAX_JSON_DEPTH} levels is parsed and left to validation (which names the field)`, async () => {
    const company = await buildCompany();
    const res = await rawRequest('POST', '/api/v1/locations/', {
      token: company.token,
      body: `{"name":"x","type":"WAREHOUSE","parent_id":${nested(MAX_JSON_DEPTH - 1)}}`,
    });
    expectValidationError(res, 'parent_id');
  });

  it("the services' own JSON parser refuses it too (a request that did not come through the gateway)", async () => {
    const company = await buildCompany();
    const headers = { 'x-internal-auth': adminInternalToken(company, 'req-deep-json-1') };
    for (const [service, path] of [
      ['inventory', '/api/v1/locations/'],
      ['monitor', '/api/v1/monitoring-rules/'],
      ['qr', '/api/v1/qr-codes/'],
    ] as const) {
      const res = await rawRequest('POST', path, { baseUrl: system().serviceUrls[service], headers, body: `{"x":${nested(50_000)}}` });
      expectValidationError(res, 'body');
      const encoded = await rawRequest('POST', path, {
        baseUrl: system().serviceUrls[service],
        headers: { ...headers, 'content-encoding': 'gzip' },
        body: '{"x":1}',
      });
      expectValidationError(encoded, 'body');
    }
  });
});

describe(`JSON objects of more than ${MAX_OBJECT_MEMBERS} members`, () => {
  // 90,002 members in 1 MB: the refusal named every one of them (3.6 MB) after two seconds of validation.
  const wide = JSON.stringify({ name: 'Wide', type: 'WAREHOUSE', ...Object.fromEntries(Array.from({ length: 90_000 }, (_, i) => [`k${i}`, 1])) });
  const refusal = { body: `body has 90002 fields; no request object has more than ${MAX_OBJECT_MEMBERS}` };

  it('answer 400 naming body at once, at the gateway (its own routes and proxied ones), in a small answer, and change nothing', async () => {
    const company = await buildCompany();
    for (const [path, opts] of bodyRoutes(company)) {
      const res = await rawRequest('POST', path, { ...opts, body: wide });
      expectValidationError(res, 'body');
      expect(res.body.details, path).to.deep.equal(refusal);
      expect(JSON.stringify(res.body).length, path).to.be.below(500);
    }
    expect(await count("SELECT count(*) FROM locations WHERE company_id = $1 AND name = 'Wide'", [company.id])).to.equal(0);
  });

  it("the services' own JSON parser refuses them too (a request that did not come through the gateway)", async () => {
    const company = await buildCompany();
    const headers = { 'x-internal-auth': adminInternalToken(company, 'req-wide-json-1') };
    const res = await rawRequest('POST', '/api/v1/locations/', { baseUrl: system().serviceUrls.inventory, headers, body: wide });
    expectValidationError(res, 'body');
    expect(res.body.details).to.deep.equal(refusal);
  });
});
