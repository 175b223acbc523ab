/**
 * Stock over time (docs/api/stock-history.md): `GET /api/v1/stock/history/` and the widget's
 * `GET /api/v1/widget/{id}/history/`. Movements are booked on different days by appending back-dated rows to the
 * ledger in SQL (with the balance changes the ledger's own functions make, so the stock list agrees), and every
 * point is compared with a SUM over the ledger up to its boundary, written here independently of the service.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { QueryTypes } from 'sequelize';
import { stockHistoryStatement } from '@pi/inventory/dist/src/sql/stock-history';
import { get } from '../../support/api';
import { expectAccessDenied, expectNotFound, expectValidationError } from '../../support/assertions';
import { TestCompany, addStock, buildCompany, buildLocation, buildProduct, buildUser } from '../../support/builders';
import { system } from '../../support/hooks';
import { query } from '../../support/sql';

const DAY = 86_400_000;
const today = () => new Date().toISOString().slice(0, 10);
/** `n` days before today (UTC), `YYYY-MM-DD`. */
const daysAgo = (n: number) => new Date(Date.parse(`${today()}T00:00:00Z`) - n * DAY).toISOString().slice(0, 10);

interface World {
  company: TestCompany;
  product: { id: string; sku: string; name: string };
  north: string;
  south: string;
  inbound: string;
  outbound: string;
}

/** Appends one movement created at `at`, changing the balances as a booking does (ledger_add / ledger_take). */
async function bookAt(w: World, from: string, to: string, quantity: number, at: string) {
  const kind = from === w.inbound ? 'ADD' : to === w.outbound ? 'SUBTRACT' : 'TRANSFER';
  await system().db.sequelize.query(
    `WITH m AS (
       INSERT INTO stock_movements (company_id, product_id, kind, from_location_id, to_location_id, quantity, reason, actor_kind, actor_id, created_at)
       VALUES ($1::uuid, $2::uuid, $3::text, $4::uuid, $5::uuid, $6::numeric, 'back-dated for the history test', 'user', $7::uuid, $8::timestamptz) RETURNING 1)
     SELECT (SELECT count(*) FROM m),
            CASE WHEN $5::uuid NOT IN ($9::uuid, $10::uuid) THEN ledger_add($1::uuid, $2::uuid, $5::uuid, $6::numeric)::text END,
            CASE WHEN $4::uuid NOT IN ($9::uuid, $10::uuid) THEN ledger_take($2::uuid, $4::uuid, $6::numeric)::text END`,
    { bind: [w.company.id, w.product.id, kind, from, to, quantity, w.company.admin.id, at, w.inbound, w.outbound] },
  );
}

/** The balance before `at` from the ledger: into minus out of the location, or of every physical location. */
async function ledgerBalance(w: World, at: string, locationId?: string): Promise<number> {
  const [row] = await query<{ q: string }>(
    `SELECT COALESCE(SUM(CASE WHEN t.type <> 'VIRTUAL' AND ($4::uuid IS NULL OR t.id = $4::uuid) THEN m.quantity ELSE 0 END)
                   - SUM(CASE WHEN f.type <> 'VIRTUAL' AND ($4::uuid IS NULL OR f.id = $4::uuid) THEN m.quantity ELSE 0 END), 0) AS q
       FROM stock_movements m JOIN locations t ON t.id = m.to_location_id JOIN locations f ON f.id = m.from_location_id
      WHERE m.company_id = $1 AND m.product_id = $2 AND m.created_at < $3::timestamptz`,
    [w.company.id, w.product.id, at, locationId ?? null],
  );
  return Number(row.q);
}

/**
 * North and South with movements on five days: one long before the range, two on the same day (the last a
 * millisecond before midnight), a transfer at midnight sharp, a subtraction, and a booking through the API now.
 */
async function buildWorld(): Promise<World> {
  const company = await buildCompany();
  const product = await buildProduct(company);
  const [north, south] = [(await buildLocation(company, 'North')).id, (await buildLocation(company, 'South')).id];
  const virtual = await query<{ id: string; name: string }>(`SELECT id, name FROM locations WHERE company_id = $1 AND type = 'VIRTUAL'`, [company.id]);
  const w: World = {
    company,
    product,
    north,
    south,
    inbound: virtual.find((l) => l.name === 'Inbound')!.id,
    outbound: virtual.find((l) => l.name === 'Outbound')!.id,
  };
  await bookAt(w, w.inbound, north, 7, `${daysAgo(40)}T12:00:00Z`);
  await bookAt(w, w.inbound, north, 10, `${daysAgo(5)}T12:00:00Z`);
  await bookAt(w, w.inbound, south, 4, `${daysAgo(5)}T23:59:59.999Z`);
  await bookAt(w, north, south, 3, `${daysAgo(4)}T00:00:00.000Z`);
  await bookAt(w, south, w.outbound, 2, `${daysAgo(2)}T08:00:00Z`);
  await addStock(company, product.id, north, 5);
  return w;
}

const history = (w: World, params: Record<string, string>, token = w.company.token) =>
  get(`/api/v1/stock/history/?${new URLSearchParams({ product_id: w.product.id, ...params }).toString()}`, { token });

describe('GET /api/v1/stock/history/', () => {
  let w: World;
  before(async function () {
    this.timeout(60_000);
    w = await buildWorld();
  });

  it('answers the balance at the end of each day, each equal to the SUM of the ledger before its boundary', async () => {
    const res = await history(w, { from: daysAgo(6), to: today() });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.include({ product_id: w.product.id, location_id: null, interval: 'day', from: daysAgo(6), to: today(), unit: 'pcs', decimals: 0 });
    expect(res.body.points.map((p: { period: string }) => p.period)).to.deep.equal([6, 5, 4, 3, 2, 1, 0].map(daysAgo));
    // Written out by hand: 7 before the range, +10 +4 on day 5, the transfer changes no total, -2 on day 2, +5 today.
    expect(res.body.points.map((p: { quantity: number }) => p.quantity)).to.deep.equal([7, 21, 21, 21, 19, 19, 24]);
    for (const p of res.body.points) {
      expect(p.at).to.equal(new Date(Date.parse(`${p.period}T00:00:00Z`) + DAY).toISOString());
      expect(p.quantity, p.at).to.equal(await ledgerBalance(w, p.at));
      expect(p.stock_display).to.equal(`${p.quantity} pcs`);
    }
    const stock = await get(`/api/v1/stock/?product_id=${w.product.id}`, { token: w.company.token });
    expect(res.body.points.at(-1).quantity).to.equal(stock.body.results[0].total_quantity);
  });

  it('answers one location’s balances with location_id, and the locations add up to the total', async () => {
    const all = (await history(w, { from: daysAgo(6) })).body.points;
    const north = await history(w, { from: daysAgo(6), location_id: w.north });
    const south = await history(w, { from: daysAgo(6), location_id: w.south });
    expect(north.status).to.equal(200);
    expect(north.body.location_id).to.equal(w.north);
    // The transfer at midnight sharp belongs to day 4: North 17 → 14, South 4 → 7.
    expect(north.body.points.map((p: { quantity: number }) => p.quantity)).to.deep.equal([7, 17, 14, 14, 14, 14, 19]);
    expect(south.body.points.map((p: { quantity: number }) => p.quantity)).to.deep.equal([0, 4, 7, 7, 5, 5, 5]);
    for (const [i, p] of north.body.points.entries()) {
      expect(p.quantity).to.equal(await ledgerBalance(w, p.at, w.north));
      expect(south.body.points[i].quantity).to.equal(await ledgerBalance(w, p.at, w.south));
      expect(p.quantity + south.body.points[i].quantity).to.equal(all[i].quantity);
    }
  });

  it('answers weeks from Monday and calendar months, each point equal to the ledger’s SUM at its end', async () => {
    for (const interval of ['week', 'month']) {
      const res = await history(w, { interval, from: daysAgo(60) });
      expect(res.status, JSON.stringify(res.body)).to.equal(200);
      const points = res.body.points as Array<{ period: string; at: string; quantity: number }>;
      expect(points.length).to.be.within(interval === 'week' ? 9 : 2, interval === 'week' ? 10 : 3);
      expect(points[0].period <= daysAgo(60)).to.equal(true);
      expect(points.at(-1)!.period <= today() && points.at(-1)!.at > new Date().toISOString()).to.equal(true);
      for (const p of points) {
        const start = new Date(`${p.period}T00:00:00Z`);
        if (interval === 'week') expect(start.getUTCDay(), p.period).to.equal(1);
        else expect(start.getUTCDate(), p.period).to.equal(1);
        expect(p.quantity, `${interval} ${p.at}`).to.equal(await ledgerBalance(w, p.at));
      }
      expect(points.at(-1)!.quantity).to.equal(24);
    }
  });

  it('defaults to the last 30 days by day', async () => {
    const res = await history(w, {});
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ interval: 'day', from: daysAgo(29), to: today() });
    expect(res.body.points).to.have.length(30);
    expect(res.body.points[0].quantity).to.equal(7);
  });

  it('answers a viewer what it answers the admin', async () => {
    const viewer = await buildUser(w.company, { role: 'viewer' });
    const asAdmin = await history(w, { from: daysAgo(6) });
    const asViewer = await history(w, { from: daysAgo(6) }, viewer.token);
    expect(asViewer.status).to.equal(200);
    expect(asViewer.body).to.deep.equal(asAdmin.body);
  });

  it('answers 400 naming the field for bad input', async () => {
    const cases: Array<[Record<string, string>, string]> = [
      [{ interval: 'year' }, 'interval'],
      [{ from: '2026-02-30' }, 'from'],
      [{ from: '26-01-01' }, 'from'],
      [{ to: 'yesterday' }, 'to'],
      [{ to: '9999-12-31' }, 'to'],
      [{ from: daysAgo(1), to: daysAgo(2) }, 'from'],
      [{ from: '2020-01-01', to: '2026-01-01' }, 'from'],
      [{ interval: 'week', from: '2000-01-01', to: '2026-01-01' }, 'from'],
      [{ product_id: 'not-a-uuid' }, 'product_id'],
      [{ location_id: 'nope' }, 'location_id'],
      [{ page: '2' }, 'page'],
    ];
    for (const [params, field] of cases) expectValidationError(await history(w, params), field);
    expectValidationError(await get('/api/v1/stock/history/', { token: w.company.token }), 'product_id');
    expectValidationError(await history(w, { location_id: w.inbound }), 'location_id');
    // 400 points are allowed: 400 days ending today.
    expect((await history(w, { from: daysAgo(399) })).body.points).to.have.length(400);
  });

  it('shows nothing of another company: its product or location answers 403, an unknown id 404', async () => {
    const other = await buildCompany();
    const own = await buildProduct(other);
    const secrets = [w.product.id, w.product.sku, w.product.name, w.company.id];
    expectAccessDenied(await get(`/api/v1/stock/history/?product_id=${w.product.id}`, { token: other.token }), secrets);
    expectAccessDenied(await get(`/api/v1/stock/history/?product_id=${own.id}&location_id=${w.north}`, { token: other.token }), secrets);
    expectAccessDenied(await get(`/api/v1/widget/${w.product.id}/history/`, { apiKey: other.apiKey }), secrets);
    expectNotFound(await get(`/api/v1/stock/history/?product_id=${randomUUID()}`, { token: other.token }));
    expectNotFound(await get(`/api/v1/widget/${randomUUID()}/history/`, { apiKey: other.apiKey }));
    const mine = await get(`/api/v1/stock/history/?product_id=${own.id}`, { token: other.token });
    expect(mine.status).to.equal(200);
    expect(mine.body.points.every((p: { quantity: number }) => p.quantity === 0)).to.equal(true);
  });
});

describe('GET /api/v1/widget/{id}/history/', () => {
  it('answers the product’s total over time with the widget key, as the core endpoint does', async () => {
    const w = await buildWorld();
    const res = await get(`/api/v1/widget/${w.product.id}/history/?from=${daysAgo(6)}`, { apiKey: w.company.apiKey });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.deep.equal((await history(w, { from: daysAgo(6) })).body);
    expectValidationError(await get(`/api/v1/widget/${w.product.id}/history/?interval=hour`, { apiKey: w.company.apiKey }), 'interval');
    expectValidationError(await get(`/api/v1/widget/${w.product.id}/history/?location_id=${w.north}`, { apiKey: w.company.apiKey }), 'location_id');
    expectValidationError(await get('/api/v1/widget/not-a-uuid/history/', { apiKey: w.company.apiKey }), 'id');
  });
});

describe('stock history on 50,000 movements: the ledger is read through an index', function () {
  this.timeout(300_000);

  it('EXPLAINs to index scans of the ledger (the product’s movements, or the location’s), never a sequential scan', async () => {
    const company = await buildCompany();
    const products = [];
    for (let i = 0; i < 20; i++) products.push((await buildProduct(company)).id);
    const shelf = await buildLocation(company);
    const virtual = await query<{ id: string; name: string }>(`SELECT id, name FROM locations WHERE company_id = $1 AND type = 'VIRTUAL' ORDER BY name`, [
      company.id,
    ]);
    // Between the two VIRTUAL locations, which keep no balances, spread over 20 products and 500 days.
    await query(
      `INSERT INTO stock_movements (company_id, product_id, kind, from_location_id, to_location_id, quantity, reason, actor_kind, actor_id, created_at)
       SELECT $1, ($2::uuid[])[1 + i % 20], 'ADD', $3, $4, 1 + i % 7, 'seeded', 'user', $5, now() - (i % 500) * interval '1 day'
         FROM generate_series(1, 50000) i`,
      [company.id, products, virtual[0].id, virtual[1].id, company.admin.id],
    );
    await query('ANALYZE stock_movements');
    await query('ANALYZE locations');
    for (const [interval, firstPeriod] of [
      ['day', daysAgo(399)],
      ['month', '2020-01-01'],
    ] as const) {
      for (const locationId of [undefined, shelf.id]) {
        const { sql, bind } = stockHistoryStatement({
          companyId: company.id,
          productId: products[3],
          locationId,
          interval,
          firstPeriod,
          lastPeriod: interval === 'day' ? today() : `${today().slice(0, 8)}01`,
        });
        const plan = (await system().db.sequelize.query<{ 'QUERY PLAN': string }>(`EXPLAIN ${sql}`, { bind, type: QueryTypes.SELECT }))
          .map((r) => r['QUERY PLAN'])
          .join('\n');
        // The product's movements, or (with a location, when the planner finds that narrower) the location's.
        expect(plan, plan).to.match(locationId ? /stock_movements_(product_seq|from|to)_idx/ : /stock_movements_product_seq_idx/);
        expect(plan, plan).not.to.match(/Seq Scan on stock_movements/);
      }
    }
  });
});
