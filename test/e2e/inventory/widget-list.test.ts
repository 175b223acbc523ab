/**
 * `GET /api/v1/widget/` answers from one statement that also checks `location_id` (sql/widget-products.ts):
 * the location's checks, the list of a company without products, and one row per product whatever the
 * number of balances behind it.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { get } from '../../support/api';
import { addStock, buildCompany, buildLocation, buildProduct } from '../../support/builders';

describe('GET /api/v1/widget/ (one statement)', () => {
  it('answers the company with empty lists when it has no products, with or without a location', async () => {
    const company = await buildCompany();
    const shelf = await buildLocation(company);
    for (const path of ['/api/v1/widget/', `/api/v1/widget/?location_id=${shelf.id}`]) {
      const res = await get(path, { apiKey: company.apiKey });
      expect(res.status, path).to.equal(200);
      expect(res.body, path).to.deep.equal({ company: company.name, products: [], poly_products: [] });
    }
  });

  it("answers 404 for a location that exists nowhere and 403 for another company's, without listing anything", async () => {
    const company = await buildCompany();
    await buildProduct(company);
    const theirs = await buildLocation(await buildCompany());
    const nowhere = await get(`/api/v1/widget/?location_id=${randomUUID()}`, { apiKey: company.apiKey });
    expect(nowhere.status).to.equal(404);
    expect(nowhere.body).to.include({ code: 'not_found', error: 'Location not found.' });
    const foreign = await get(`/api/v1/widget/?location_id=${theirs.id}`, { apiKey: company.apiKey });
    expect(foreign.status).to.equal(403);
    expect(foreign.body).to.include({ code: 'access_denied' });
    expect(foreign.body).not.to.have.property('products');
  });

  it('lists each product once, by name, summing its stock over locations and batches', async () => {
    const company = await buildCompany();
    const [a, b, c] = [await buildLocation(company), await buildLocation(company), await buildLocation(company)];
    const milk = await buildProduct(company, { name: 'B milk', profile: 'BATCH' });
    const bolts = await buildProduct(company, { name: 'A bolts' });
    const empty = await buildProduct(company, { name: 'C empty' });
    for (const [i, at] of [a, b, c].entries()) {
      await addStock(company, bolts.id, at.id, i + 1);
      await addStock(company, milk.id, at.id, 10, { batch: { code: `one-${milk.id.slice(0, 6)}` } });
      await addStock(company, milk.id, at.id, 1, { batch: { code: `two-${milk.id.slice(0, 6)}` } });
    }
    const res = await get('/api/v1/widget/', { apiKey: company.apiKey });
    expect(res.body.products.map((p: { id: string; stock_display: string }) => [p.id, p.stock_display])).to.deep.equal([
      [bolts.id, '6 pcs'],
      [milk.id, '33 pcs'],
      [empty.id, '0 pcs'],
    ]);
    const atB = await get(`/api/v1/widget/?location_id=${b.id}`, { apiKey: company.apiKey });
    expect(atB.body.products.map((p: { stock_display: string }) => p.stock_display)).to.deep.equal(['2 pcs', '11 pcs', '0 pcs']);
  });
});
