/**
 * The list filters the dashboard's overview counts with (docs/api/overview-and-appearance.md): `below_min` of
 * GET /api/v1/stock/ (products whose total is below their min_stock), and the batch code each ledger entry
 * carries for people to read.
 */
import { expect } from 'chai';
import { get } from '../../support/api';
import { addStock, buildCompany, buildLocation, buildProduct, TestCompany, unique } from '../../support/builders';

describe('GET /api/v1/stock/?below_min=', () => {
  let company: TestCompany;
  let a: { id: string; name: string };
  let b: { id: string; name: string };
  let low: { id: string; sku: string };
  let lowAtB: { id: string; sku: string };
  let enough: { id: string; sku: string };
  let exact: { id: string; sku: string };
  let none: { id: string; sku: string };
  let empty: { id: string; sku: string };

  before(async () => {
    company = await buildCompany();
    a = await buildLocation(company, unique('A'));
    b = await buildLocation(company, unique('B'));
    low = await buildProduct(company, { sku: unique('LOW'), engine_config: { engine_type: 'counter', min_stock: 10 } });
    lowAtB = await buildProduct(company, { sku: unique('SPLIT'), engine_config: { engine_type: 'counter', min_stock: 10 } });
    enough = await buildProduct(company, { sku: unique('ENOUGH'), engine_config: { engine_type: 'counter', min_stock: 5 } });
    exact = await buildProduct(company, { sku: unique('EXACT'), engine_config: { engine_type: 'counter', min_stock: 4 } });
    none = await buildProduct(company, { sku: unique('NOMIN') });
    empty = await buildProduct(company, { sku: unique('EMPTY'), engine_config: { engine_type: 'counter', min_stock: 1 } });
    await addStock(company, low.id, a.id, 3);
    // 6 at A and 6 at B: 12 in all (not below 10), 6 at either location (below).
    await addStock(company, lowAtB.id, a.id, 6);
    await addStock(company, lowAtB.id, b.id, 6);
    await addStock(company, enough.id, a.id, 9);
    await addStock(company, exact.id, a.id, 4);
    await addStock(company, none.id, a.id, 1);
  });

  const skus = (body: { results: { sku: string }[] }) => body.results.map((r) => r.sku).sort();

  it('lists the products whose total is below their min_stock (none stocked counts as 0; at the minimum is not below), and counts them', async () => {
    const res = await get('/api/v1/stock/?below_min=true', { token: company.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(skus(res.body)).to.deep.equal([low.sku, empty.sku].sort());
    expect(res.body.count).to.equal(2);
    const totals = Object.fromEntries(res.body.results.map((r: { sku: string; total_quantity: number }) => [r.sku, r.total_quantity]));
    expect(totals).to.deep.equal({ [low.sku]: 3, [empty.sku]: 0 });
  });

  it('below_min=false lists the others (at or above the minimum, or without one)', async () => {
    const res = await get('/api/v1/stock/?below_min=false&page_size=100', { token: company.token });
    expect(res.status).to.equal(200);
    expect(skus(res.body)).to.deep.equal([lowAtB.sku, enough.sku, exact.sku, none.sku].sort());
    expect(res.body.count).to.equal(4);
  });

  it('compares the total at location_id when one is given, and combines with the other filters', async () => {
    const atB = await get(`/api/v1/stock/?below_min=true&location_id=${b.id}`, { token: company.token });
    expect(atB.status).to.equal(200);
    // At B: low has 0 (< 10), lowAtB 6 (< 10), enough 0 (< 5), exact 0 (< 4), empty 0 (< 1).
    expect(skus(atB.body)).to.deep.equal([low.sku, lowAtB.sku, enough.sku, exact.sku, empty.sku].sort());
    expect(atB.body.count).to.equal(5);
    const byName = await get(`/api/v1/stock/?below_min=true&location_name=${encodeURIComponent(a.name)}`, { token: company.token });
    expect(skus(byName.body)).to.deep.equal([low.sku, lowAtB.sku, empty.sku].sort());
    const one = await get(`/api/v1/stock/?below_min=true&product_id=${low.id}`, { token: company.token });
    expect(skus(one.body)).to.deep.equal([low.sku]);
    const searched = await get(`/api/v1/stock/?below_min=true&search=${encodeURIComponent(empty.sku)}`, { token: company.token });
    expect(skus(searched.body)).to.deep.equal([empty.sku]);
    const paged = await get('/api/v1/stock/?below_min=true&page_size=1', { token: company.token });
    expect(paged.body.results).to.have.length(1);
    expect(paged.body.count).to.equal(2);
  });

  it('answers 400 naming below_min for a value that is not a boolean', async () => {
    const res = await get('/api/v1/stock/?below_min=maybe', { token: company.token });
    expect(res.status).to.equal(400);
    expect(res.body.code).to.equal('validation_error');
    expect(res.body.details).to.have.property('below_min');
  });

  it("never shows another company's products, and refuses its location as a filter", async () => {
    const other = await buildCompany();
    const theirs = await buildProduct(other, { engine_config: { engine_type: 'counter', min_stock: 50 } });
    const mine = await get('/api/v1/stock/?below_min=true', { token: company.token });
    expect(mine.body.results.map((r: { product_id: string }) => r.product_id)).not.to.include(theirs.id);
    expect(mine.body.count).to.equal(2);
    const theirsList = await get('/api/v1/stock/?below_min=true', { token: other.token });
    expect(theirsList.body.results.map((r: { product_id: string }) => r.product_id)).to.deep.equal([theirs.id]);
    const refused = await get(`/api/v1/stock/?below_min=true&location_id=${a.id}`, { token: other.token });
    expect(refused.status).to.equal(403);
  });
});

describe('GET /api/v1/movements/: batch_code', () => {
  it('names the batch of each entry by its code (null without a batch)', async () => {
    const company = await buildCompany();
    const location = await buildLocation(company);
    const glue = await buildProduct(company, { profile: 'BATCH' });
    const plain = await buildProduct(company);
    const code = unique('LOT');
    await addStock(company, glue.id, location.id, 4, { batch: { code, expiration_date: '2031-01-01' } });
    await addStock(company, plain.id, location.id, 2);
    const res = await get('/api/v1/movements/?ordering=created_at', { token: company.token });
    expect(res.status).to.equal(200);
    expect(res.body.results.map((m: { product_id: string; batch_code: string | null }) => [m.product_id, m.batch_code])).to.deep.equal([
      [glue.id, code],
      [plain.id, null],
    ]);
  });
});
