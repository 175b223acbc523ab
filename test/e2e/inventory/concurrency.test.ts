import { expect } from 'chai';
import { findStockDifferences } from '@pi/inventory';
import { post } from '../../support/api';
import { buildStock, TestCompany, addStock, buildCompany as buildAnyCompany, buildLocation, buildProduct } from '../../support/builders';
import { system } from '../../support/hooks';
import { balanceOf, ledgerStockOf, movementCount } from '../../support/stock';

/** Every company these suites book in, so that stock verify can check them all afterwards. */
const companies: TestCompany[] = [];
async function buildCompany() {
  const company = await buildAnyCompany();
  companies.push(company);
  return company;
}

describe('the stock ledger under load', () => {
  after(async function () {
    this.timeout(60_000);
    expect(companies.length).to.be.greaterThan(5);
    let checked = 0;
    for (const company of companies) {
      const result = await findStockDifferences(system().db, company.id);
      expect(result.differences, `stock verify for ${company.name}`).to.deep.equal([]);
      checked += result.balances;
    }
    expect(checked).to.be.greaterThan(10);
  });

  const subtractOne = (company: TestCompany, productId: string, locationId: string, headers: Record<string, string> = {}) =>
    post(
      `/api/v1/widget/${productId}/transaction/`,
      { operation: 'subtract', quantity: 1, location_id: locationId, reason: 'sale' },
      { apiKey: company.apiKey, headers },
    );

  describe('stock under concurrency (through the HTTP API)', () => {
    it('50 parallel subtractions of 1 against 20 in stock: exactly 20 succeed, 30 get 409, stock ends at 0', async () => {
      const { company, product, location: shelf } = await buildStock({ company: await buildCompany(), quantity: 20 });
      const answers = await Promise.all(Array.from({ length: 50 }, () => subtractOne(company, product.id, shelf.id)));
      const statuses = answers.map((a) => a.status);
      expect(statuses.filter((s) => s === 200)).to.have.length(20);
      expect(statuses.filter((s) => s === 409)).to.have.length(30);
      for (const refused of answers.filter((a) => a.status === 409)) {
        expect(refused.body.code).to.equal('insufficient_stock');
        expect(refused.body.details.available).to.equal(0);
      }
      expect(await balanceOf(product.id, shelf.id)).to.equal(0);
      expect(await ledgerStockOf(product.id, shelf.id)).to.equal(0);
      expect(await movementCount(company.id)).to.equal(21);
    });

    it('50 parallel transfers back and forth between two locations never deadlock and conserve the total', async () => {
      const company = await buildCompany();
      const product = await buildProduct(company);
      const [a, b] = [await buildLocation(company), await buildLocation(company)];
      await addStock(company, product.id, a.id, 100);
      await addStock(company, product.id, b.id, 100);
      const answers = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          post(
            '/api/v1/widget/transfer/',
            { product_id: product.id, from_location_id: i % 2 ? a.id : b.id, to_location_id: i % 2 ? b.id : a.id, quantity: 3, reason: 'rebalance' },
            { apiKey: company.apiKey },
          ),
        ),
      );
      expect(answers.map((r) => r.status)).to.deep.equal(Array(50).fill(200));
      expect((await balanceOf(product.id, a.id)) + (await balanceOf(product.id, b.id))).to.equal(200);
      expect(await balanceOf(product.id, a.id)).to.equal(100); // 25 each way
      expect(await ledgerStockOf(product.id, a.id)).to.equal(await balanceOf(product.id, a.id));
      expect(await ledgerStockOf(product.id, b.id)).to.equal(await balanceOf(product.id, b.id));
    });

    it('transfers that drain a location concurrently never take it below zero', async () => {
      const company = await buildCompany();
      const product = await buildProduct(company);
      const [a, b] = [await buildLocation(company), await buildLocation(company)];
      await addStock(company, product.id, a.id, 10);
      const answers = await Promise.all(
        Array.from({ length: 30 }, () =>
          post('/api/v1/widget/transfer/', { product_id: product.id, from_location_id: a.id, to_location_id: b.id, quantity: 1 }, { apiKey: company.apiKey }),
        ),
      );
      expect(answers.filter((r) => r.status === 200)).to.have.length(10);
      expect(answers.filter((r) => r.status === 409)).to.have.length(20);
      expect(await balanceOf(product.id, a.id)).to.equal(0);
      expect(await balanceOf(product.id, b.id)).to.equal(10);
    });
  });

  describe('Idempotency-Key on bookings', () => {
    it('books once when the same request is retried concurrently with the same key, and answers each retry alike', async () => {
      const { company, product, location: shelf } = await buildStock({ company: await buildCompany(), quantity: 20 });
      const before = await movementCount(company.id);
      const answers = await Promise.all(Array.from({ length: 10 }, () => subtractOne(company, product.id, shelf.id, { 'idempotency-key': 'sale-0001' })));
      expect(answers.map((a) => a.status)).to.deep.equal(Array(10).fill(200));
      expect(new Set(answers.map((a) => JSON.stringify(a.body))).size).to.equal(1);
      expect(answers.filter((a) => a.headers.get('idempotent-replayed') === 'true')).to.have.length(9);
      expect(await balanceOf(product.id, shelf.id)).to.equal(19);
      expect(await movementCount(company.id)).to.equal(before + 1);
    });

    it('books once per key under concurrent retries of many different keys', async () => {
      const { company, product, location: shelf } = await buildStock({ company: await buildCompany(), quantity: 50 });
      const keys = Array.from({ length: 10 }, (_, i) => `order-${i}`);
      const answers = await Promise.all(
        keys.flatMap((key) => Array.from({ length: 5 }, () => subtractOne(company, product.id, shelf.id, { 'idempotency-key': key }))),
      );
      expect(answers.every((a) => a.status === 200)).to.equal(true);
      expect(await balanceOf(product.id, shelf.id)).to.equal(40);
    });

    it('answers 409 idempotency_key_reused when the key comes back with another body, and books nothing', async () => {
      const { company, product, location: shelf } = await buildStock({ company: await buildCompany(), quantity: 5 });
      expect((await subtractOne(company, product.id, shelf.id, { 'idempotency-key': 'k-1' })).status).to.equal(200);
      const other = await post(
        `/api/v1/widget/${product.id}/transaction/`,
        { operation: 'subtract', quantity: 2, location_id: shelf.id },
        { apiKey: company.apiKey, headers: { 'idempotency-key': 'k-1' } },
      );
      expect(other.status).to.equal(409);
      expect(other.body.code).to.equal('idempotency_key_reused');
      expect(await balanceOf(product.id, shelf.id)).to.equal(4);
    });

    it('lets a refused booking be retried with the same key once it can succeed', async () => {
      const company = await buildCompany();
      const product = await buildProduct(company);
      const shelf = await buildLocation(company);
      expect((await subtractOne(company, product.id, shelf.id, { 'idempotency-key': 'retry-me' })).status).to.equal(409);
      await addStock(company, product.id, shelf.id, 1);
      expect((await subtractOne(company, product.id, shelf.id, { 'idempotency-key': 'retry-me' })).status).to.equal(200);
      expect(await balanceOf(product.id, shelf.id)).to.equal(0);
    });

    it('keeps keys per company: another company may use the same key', async () => {
      const [one, two] = [await buildCompany(), await buildCompany()];
      for (const company of [one, two]) {
        const product = await buildProduct(company);
        const shelf = await buildLocation(company);
        await addStock(company, product.id, shelf.id, 1, {});
        const res = await subtractOne(company, product.id, shelf.id, { 'idempotency-key': 'shared-key' });
        expect(res.status).to.equal(200);
        expect(res.headers.get('idempotent-replayed')).to.equal(null);
      }
    });

    it('refuses a malformed key with 400 naming Idempotency-Key', async () => {
      const company = await buildCompany();
      const product = await buildProduct(company);
      const shelf = await buildLocation(company);
      const res = await subtractOne(company, product.id, shelf.id, { 'idempotency-key': 'x'.repeat(256) });
      expect(res.status).to.equal(400);
      expect(res.body.details).to.have.property('Idempotency-Key');
    });

    it('makes transfer, move and core movement creation idempotent too', async () => {
      const company = await buildCompany();
      const product = await buildProduct(company);
      const [a, b] = [await buildLocation(company), await buildLocation(company)];
      await addStock(company, product.id, a.id, 10);
      const headers = (key: string) => ({ apiKey: company.apiKey, headers: { 'idempotency-key': key } });
      for (let i = 0; i < 3; i++) {
        expect(
          (await post('/api/v1/widget/transfer/', { product_id: product.id, from_location_id: a.id, to_location_id: b.id, quantity: 2 }, headers('t'))).status,
        ).to.equal(200);
        expect((await post('/api/v1/widget/move/', { product_id: product.id, location_id: a.id, quantity: -1 }, headers('m'))).status).to.equal(200);
        const core = await post(
          '/api/v1/movements/',
          { product_id: product.id, from_location_id: a.id, to_location_id: b.id, quantity: 1 },
          { token: company.token, headers: { 'idempotency-key': 'c' } },
        );
        expect(core.status).to.equal(201);
      }
      expect(await balanceOf(product.id, a.id)).to.equal(6);
      expect(await balanceOf(product.id, b.id)).to.equal(3);
    });
  });
});
