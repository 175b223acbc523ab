/**
 * Hostile input that once slipped past validation or reached the database as a 500 (docs/api/paths-and-hostile-input.md "Hostile input"):
 * keys named like built-in properties, text PostgreSQL cannot store (NUL, unpaired surrogates) in bodies,
 * queries, path parameters and CSV cells, and dates outside the years 0001–9999 in filters and bodies. Each is
 * a 400 in the error shape naming the field, and changes nothing.
 */
import { expect } from 'chai';
import { ApiResponse, api, get, patch, post } from '../support/api';
import { expectErrorShape, expectValidationError } from '../support/assertions';
import { TestCompany, TestProduct, addStock, buildCompany, buildLocation, buildProduct, unique } from '../support/builders';
import { count, query } from '../support/sql';

/** Keys that name members of Object.prototype (and `prototype`), as a client may send them. */
const BUILT_IN_KEYS = ['constructor', '__proto__', 'toString', 'hasOwnProperty', 'valueOf', 'prototype', 'isPrototypeOf', '__defineSetter__'];

/** `body` as JSON text with one more key: `{"__proto__": …}` must reach the server as a key, not a prototype. */
const withKey = (body: Record<string, unknown>, key: string, value: unknown = 1) =>
  `${JSON.stringify(body).slice(0, -1)},${JSON.stringify(key)}:${JSON.stringify(value)}}`;

/** The rows of the company's tables, to show that a refused request changed nothing. */
async function companyRows(companyId: string) {
  const tables = [
    'users',
    'api_keys',
    'locations',
    'product_models',
    'stock_movements',
    'stock_balances',
    'batches',
    'work_orders',
    'monitoring_rules',
    'notification_channels',
  ];
  const counts: Record<string, number> = {};
  for (const table of tables) counts[table] = await count(`SELECT count(*) FROM ${table} WHERE company_id = $1`, [companyId]);
  const [{ sum }] = await query<{ sum: string }>('SELECT COALESCE(SUM(quantity), 0)::text AS sum FROM stock_balances WHERE company_id = $1', [companyId]);
  return { ...counts, stock: sum };
}

describe('keys named like built-in properties', () => {
  let company: TestCompany;
  let product: TestProduct;
  let location: { id: string };
  before(async () => {
    company = await buildCompany();
    product = await buildProduct(company);
    location = await buildLocation(company);
    await addStock(company, product.id, location.id, 10);
  });

  /** Valid requests that an extra key must turn into a 400 naming it (each was a 500 or stored raw input). */
  const requests = () => [
    {
      name: 'a booking',
      method: 'POST',
      path: `/api/v1/widget/${product.id}/transaction/`,
      auth: { apiKey: company.apiKey },
      body: { operation: 'add', quantity: 2, location_id: location.id },
    },
    {
      name: 'a move',
      method: 'POST',
      path: '/api/v1/widget/move/',
      auth: { apiKey: company.apiKey },
      body: { product_id: product.id, location_id: location.id, quantity: -1 },
    },
    {
      name: 'a new user',
      method: 'POST',
      path: '/api/v1/users/',
      auth: { token: company.token },
      body: { username: unique('user'), password: 'pw-long-enough' },
    },
    { name: 'a new API key', method: 'POST', path: '/api/v1/api-keys/', auth: { token: company.token }, body: { name: unique('key') } },
    {
      name: 'a product with an untrimmed SKU',
      method: 'POST',
      path: '/api/v1/product-models/',
      auth: { token: company.token },
      body: { sku: `  ${unique('SKU')}  `, name: 'n', profile: 'STANDARD', engine_config: { engine_type: 'counter' } },
    },
    {
      name: 'a location change with is_active "false"',
      method: 'PATCH',
      path: `/api/v1/locations/${location.id}/`,
      auth: { token: company.token },
      body: { is_active: 'false' },
    },
    {
      name: 'a registration',
      method: 'POST',
      path: '/api/v1/register/',
      auth: {},
      body: { company_name: unique('Company'), username: unique('reg'), password: 'pw-long-enough' },
    },
  ];

  for (const key of BUILT_IN_KEYS) {
    it(`answers 400 naming "${key}" when a body carries it, on bookings, users, keys, products, locations and registration, and changes nothing`, async () => {
      const before = await companyRows(company.id);
      const companies = await count('SELECT count(*) FROM companies');
      for (const r of requests()) {
        const res = await api(r.method, r.path, { ...r.auth, rawBody: withKey(r.body, key) });
        expectValidationError(res, key);
      }
      expect(await companyRows(company.id)).to.deep.equal(before);
      expect(await count('SELECT count(*) FROM companies')).to.equal(companies);
      expect(await count('SELECT count(*) FROM locations WHERE id = $1 AND is_active', [location.id])).to.equal(1);
    });

    it(`answers 400 naming "${key}" when a list query carries it (no page with OFFSET NaN)`, async () => {
      const lists = [
        ['/api/v1/locations/', { token: company.token }],
        ['/api/v1/product-models/', { token: company.token }],
        ['/api/v1/movements/', { token: company.token }],
        ['/api/v1/users/', { token: company.token }],
        ['/api/v1/api-keys/', { token: company.token }],
        ['/api/v1/qr-codes/', { token: company.token }],
        ['/api/v1/events/', { token: company.token }],
        ['/api/v1/notification-channels/', { token: company.token }],
        ['/api/v1/widget/', { apiKey: company.apiKey }],
      ] as const;
      for (const [path, auth] of lists) {
        const res = await get(`${path}?${encodeURIComponent(key)}=1&page=2`, auth);
        expectValidationError(res, key);
      }
    });
  }

  it('still cleans a body without such keys (trimmed SKU, defaults)', async () => {
    const sku = unique('SKU');
    const res = await post(
      '/api/v1/product-models/',
      { sku: `  ${sku}  `, name: 'n', profile: 'STANDARD', engine_config: { engine_type: 'counter' } },
      { token: company.token },
    );
    expect(res.status).to.equal(201);
    expect(res.body.sku).to.equal(sku);
  });
});

describe('text PostgreSQL cannot store (NUL, unpaired surrogates)', () => {
  let company: TestCompany;
  let product: TestProduct;
  let location: { id: string };
  before(async () => {
    company = await buildCompany();
    product = await buildProduct(company);
    location = await buildLocation(company);
  });

  const spellings: Array<[string, string]> = [
    ['a NUL inside', 'ab\u0000cd'],
    ['only a NUL', '\u0000'],
    ['a NUL at the end', 'abcd\u0000'],
    ['a lone high surrogate', 'ab\ud83dcd'],
    ['a lone low surrogate', '\ude00abcd'],
  ];

  const bodies = () => [
    { path: '/api/v1/locations/', auth: { token: company.token }, body: (s: string) => ({ name: s, type: 'WAREHOUSE' }), field: 'name' },
    {
      path: '/api/v1/product-models/',
      auth: { token: company.token },
      body: (s: string) => ({ sku: s, name: 'n', profile: 'STANDARD', engine_config: { engine_type: 'counter' } }),
      field: 'sku',
    },
    {
      path: '/api/v1/product-models/',
      auth: { token: company.token },
      body: (s: string) => ({ sku: unique('SKU'), name: 'n', profile: 'STANDARD', engine_config: { engine_type: 'counter', unit: s } }),
      field: 'engine_config.unit',
    },
    { path: '/api/v1/work-orders/', auth: { token: company.token }, body: (s: string) => ({ number: unique('WO'), title: s }), field: 'title' },
    {
      path: `/api/v1/widget/${product.id}/transaction/`,
      auth: { apiKey: company.apiKey },
      body: (s: string) => ({ operation: 'add', quantity: 1, location_id: location.id, reason: s }),
      field: 'reason',
    },
    {
      path: '/api/v1/users/',
      auth: { token: company.token },
      body: (s: string) => ({ username: unique('user'), password: `pw-${s}-long` }),
      field: 'password',
    },
    { path: '/api/v1/api-keys/', auth: { token: company.token }, body: (s: string) => ({ name: s }), field: 'name' },
    {
      path: '/api/v1/notification-channels/',
      auth: { token: company.token },
      body: (s: string) => ({ name: s, kind: 'EMAIL', recipients: ['ops@example.com'], events: ['TEST'] }),
      field: 'name',
    },
    {
      path: '/api/v1/register/',
      auth: {},
      body: (s: string) => ({ company_name: s, username: unique('reg'), password: 'pw-long-enough' }),
      field: 'company_name',
    },
    { path: '/api/token/', auth: {}, body: (s: string) => ({ username: s, password: 'pw-long-enough' }), field: 'username' },
  ];

  for (const [what, text] of spellings) {
    it(`answers 400 naming the field for ${what} in a JSON body, on every kind of record, and stores nothing`, async () => {
      const before = await companyRows(company.id);
      for (const b of bodies()) {
        const res = await post(b.path, b.body(text), b.auth);
        expectValidationError(res, b.field);
      }
      expect(await companyRows(company.id)).to.deep.equal(before);
    });
  }

  // A URL cannot carry a lone surrogate (its bytes decode to U+FFFD), so queries and paths are tried with NULs.
  for (const [what, text] of spellings.filter(([, t]) => t.includes('\u0000'))) {
    it(`answers 400 naming the parameter for ${what} in a query or a path`, async () => {
      const q = encodeURIComponent(text);
      expectValidationError(await get(`/api/v1/product-models/?search=${q}`, { token: company.token }), 'search');
      expectValidationError(await get(`/api/v1/qr-codes/labels.svg?codes=${q}`, { token: company.token }), 'codes');
      expectValidationError(await get(`/api/v1/widget/qr_info/?code=${q}`, { apiKey: company.apiKey }), 'code');
      // In a path, a control character matches no route at all (docs/api/paths-and-hostile-input.md "Paths"): 404 naming the rule.
      expectPathRefused(await get(`/api/v1/qr-codes/${q}/`, { token: company.token }));
      expectValidationError(await get(`/api/v1/events/?status=${q}`, { token: company.token }), 'status');
    });
  }

  it('refuses a NUL or a lone surrogate in the key of a free-form object (engine_config), naming the object', async () => {
    for (const key of ['unit\u0000', '\ud800']) {
      const res = await post(
        '/api/v1/product-models/',
        { sku: unique('SKU'), name: 'n', profile: 'STANDARD', engine_config: { engine_type: 'counter', [key]: 1 } },
        { token: company.token },
      );
      expectValidationError(res, 'engine_config');
    }
  });

  it('refuses a JSON import with a NUL in any row, naming the row and field, and imports nothing', async () => {
    const before = await companyRows(company.id);
    const products = [
      { sku: unique('SKU'), name: 'ok', profile: 'STANDARD', engine_config: { engine_type: 'counter' } },
      { sku: unique('SKU'), name: 'bad\u0000', profile: 'STANDARD', engine_config: { engine_type: 'counter' } },
    ];
    expectValidationError(await post('/api/v1/product-models/import/', { products }, { token: company.token }), 'products.1.name');
    expect(await companyRows(company.id)).to.deep.equal(before);
  });

  const csvCases: Array<[string, string, { row: number; field: string }]> = [
    ['a NUL in a SKU cell', 'sku,name,profile,engine_type\nA-1\u0000,one,STANDARD,counter\n', { row: 1, field: 'sku' }],
    [
      'a NUL in a name cell of the second row',
      'sku,name,profile,engine_type\nA-1,one,STANDARD,counter\nA-2,t\u0000wo,STANDARD,counter\n',
      { row: 2, field: 'name' },
    ],
    ['a NUL in a number cell', 'sku,name,profile,engine_type,decimals\nA-1,one,STANDARD,counter,1\u0000\n', { row: 1, field: 'decimals' }],
    ['a NUL in a quoted description', 'sku,name,profile,engine_type,description\nA-1,one,STANDARD,counter,"a \u0000 b"\n', { row: 1, field: 'description' }],
  ];
  for (const [what, csv, problem] of csvCases) {
    it(`refuses a CSV import with ${what} (400 import_failed naming row and column), and imports nothing`, async () => {
      const before = await companyRows(company.id);
      const res = await api('POST', '/api/v1/product-models/import/', {
        token: company.token,
        rawBody: csv.replace(/A-(\d)/g, (_m, n) => `${company.id.slice(0, 8)}-${n}`),
        headers: { 'content-type': 'text/csv' },
      });
      expectErrorShape(res, 400, 'import_failed');
      expect(res.body.details.rows).to.deep.include({ row: problem.row, field: problem.field, message: `${problem.field} must not contain a NUL character` });
      expect(await companyRows(company.id)).to.deep.equal(before);
    });
  }

  it('refuses a NUL in a CSV header cell, naming the column by its number', async () => {
    const res = await api('POST', '/api/v1/product-models/import/', {
      token: company.token,
      rawBody: 'sku,na\u0000me,profile,engine_type\nA,b,STANDARD,counter\n',
      headers: { 'content-type': 'text/csv' },
    });
    expectValidationError(res, 'header.2');
  });

  it('stores text that only looks odd exactly as sent (emoji, right-to-left marks, SQL and HTML)', async () => {
    const name = `📦 \u202eעברית'); DROP TABLE locations;-- <script>x</script>`;
    const res = await post('/api/v1/locations/', { name, type: 'WAREHOUSE' }, { token: company.token });
    expect(res.status).to.equal(201);
    expect((await get(`/api/v1/locations/${res.body.id}/`, { token: company.token })).body.name).to.equal(name);
  });
});

/** A path the gateway's path table refuses: 404 `not_found`, with `details.path` saying which rule (docs/api/paths-and-hostile-input.md "Paths"). */
function expectPathRefused(res: ApiResponse) {
  expectErrorShape(res, 404, 'not_found');
  expect(res.body.details).to.have.property('path').that.is.a('string');
}

describe('path parameters that are not valid percent-encoding', () => {
  let company: TestCompany;
  before(async () => {
    company = await buildCompany();
  });

  // A lone `%`, a bad hex pair, a cut-off UTF-8 sequence, an overlong one, an encoded surrogate.
  const spellings = ['%', '%zz', '%E0%A4%A', '%C0%AF', '%ED%A0%80', 'abc%'];
  for (const spelling of spellings) {
    it(`answers 404 naming path for ${spelling} in a path id, on the gateway's routes and every service's`, async () => {
      const before = await companyRows(company.id);
      const paths: Array<[string, string, { token?: string; apiKey?: string }]> = [
        ['GET', `/api/v1/users/${spelling}/`, { token: company.token }],
        ['DELETE', `/api/v1/api-keys/${spelling}/`, { token: company.token }],
        ['PATCH', `/api/v1/items/${spelling}/`, { token: company.token }],
        ['GET', `/api/v1/widget/${spelling}/`, { apiKey: company.apiKey }],
        ['GET', `/api/v1/qr-codes/${spelling}/`, { token: company.token }],
        ['DELETE', `/api/v1/monitoring-rules/${spelling}/`, { token: company.token }],
      ];
      for (const [method, path, auth] of paths) {
        const res = await api(method, path, { ...auth, ...(method === 'PATCH' ? { body: { serial_number: 'x' } } : {}) });
        expectPathRefused(res);
      }
      expect(await companyRows(company.id)).to.deep.equal(before);
    });
  }
});

describe('dates outside the years 0001–9999', () => {
  let company: TestCompany;
  before(async () => {
    company = await buildCompany();
  });

  const outOfRange = ['-271821-04-20', '-000001-01-01T00:00:00Z', '0000-01-01', '+275760-09-13T00:00:00.000Z', '+010000-01-01T00:00:00Z'];

  for (const date of outOfRange) {
    it(`answers 400 naming the filter for ${date} in created_after / created_before of movements and events`, async () => {
      for (const path of ['/api/v1/movements/', '/api/v1/events/']) {
        for (const filter of ['created_after', 'created_before']) {
          const res = await get(`${path}?${filter}=${encodeURIComponent(date)}`, { token: company.token });
          expectValidationError(res, filter);
        }
      }
    });
  }

  const badCalendarDates = ['0000-12-31', '99999-01-01', '-0001-01-01', '2025-02-30', '+2025-01-01'];
  for (const date of badCalendarDates) {
    it(`answers 400 for ${date} as expires_before of batches, and as a work order's due_date or a batch's expiration_date`, async () => {
      expectValidationError(await get(`/api/v1/batches/?expires_before=${encodeURIComponent(date)}`, { token: company.token }), 'expires_before');
      expectValidationError(await post('/api/v1/work-orders/', { number: unique('WO'), title: 't', due_date: date }, { token: company.token }), 'due_date');
      const product = await buildProduct(company, { profile: 'BATCH' });
      expectValidationError(
        await post('/api/v1/batches/', { product_id: product.id, code: unique('LOT'), expiration_date: date }, { token: company.token }),
        'expiration_date',
      );
    });
  }

  it('answers 400 for an API key expiring after the year 9999, and creates no key', async () => {
    const keys = await count('SELECT count(*) FROM api_keys WHERE company_id = $1', [company.id]);
    for (const date of ['+275760-09-13T00:00:00.000Z', '+010000-01-01T00:00:00Z']) {
      expectValidationError(await post('/api/v1/api-keys/', { name: unique('key'), expires_at: date }, { token: company.token }), 'expires_at');
      expectValidationError(await patch('/api/v1/api-keys/' + company.apiKeyId + '/', { expires_at: date }, { token: company.token }), 'expires_at');
    }
    expect(await count('SELECT count(*) FROM api_keys WHERE company_id = $1', [company.id])).to.equal(keys);
  });

  it('accepts the edges of the range', async () => {
    for (const date of ['0001-01-01T00:00:00Z', '9999-12-31T23:59:59.999Z']) {
      const res = await get(`/api/v1/movements/?created_after=${encodeURIComponent(date)}`, { token: company.token });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
    }
    const res = await get('/api/v1/batches/?expires_before=0001-01-01', { token: company.token });
    expect(res.status).to.equal(200);
  });
});

describe('bodies too wide to check field by field', () => {
  it('names at most 100 of the bad items of a long list', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company, { profile: 'SERIALIZED' });
    const location = await buildLocation(company);
    const serials = Array.from({ length: 5000 }, (_, i) => i);
    const res = await post(
      `/api/v1/widget/${product.id}/transaction/`,
      { operation: 'add', quantity: 5000, location_id: location.id, serial_numbers: serials },
      { apiKey: company.apiKey },
    );
    expectValidationError(res, 'serial_numbers.0');
    expect(Object.keys(res.body.details)).to.have.length(100);
  });
});
