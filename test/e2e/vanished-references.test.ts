/**
 * A request that names a record another request deletes at the same moment: it checked that the record
 * exists, then its row referencing it reached the database after the delete had committed. The answer is the
 * 404 of an id that names nothing, as if the delete had come a moment earlier (libs/common
 * db/vanished-reference.ts), never a 500; and nothing of the request is stored.
 */
import { expect } from 'chai';
import { ApiResponse, del, post } from '../support/api';
import { expectNotFound } from '../support/assertions';
import { TestCompany, buildCompany, buildProduct, generateCode, unique } from '../support/builders';
import { holdLock, lineUpBehind } from '../support/held-lock';
import { count } from '../support/sql';

/**
 * Holds the product locked, queues its delete on it, then sends `reference` (which reads the product without
 * waiting, and waits to insert its reference), and lets go: the delete commits first.
 */
async function referenceWhileDeleted(company: TestCompany, productId: string, reference: () => Promise<ApiResponse>) {
  const lock = await holdLock('SELECT id FROM product_models WHERE id = $1 FOR UPDATE', [productId]);
  const [deleted, referenced] = await lineUpBehind(lock, [() => del(`/api/v1/product-models/${productId}/`, { token: company.token }), reference]);
  expect(deleted.status, JSON.stringify(deleted.body)).to.equal(204);
  return referenced;
}

describe('a record deleted while another request names it', () => {
  it('linking a QR code to the product answers 404 and leaves the code unlinked (qr service)', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    const code = await generateCode(company);
    const linked = await referenceWhileDeleted(company, product.id, () =>
      post(`/api/v1/qr-codes/${code}/configure/`, { target_type: 'PRODUCT', target_id: product.id }, { token: company.token }),
    );
    expectNotFound(linked);
    expect(await count("SELECT count(*) FROM qr_codes WHERE code = $1 AND status = 'VIRGIN'", [code])).to.equal(1);
  });

  it('a monitoring rule for the product answers 404 and none is stored (monitor service)', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    const created = await referenceWhileDeleted(company, product.id, () =>
      post('/api/v1/monitoring-rules/', { product_id: product.id, trigger_type: 'THRESHOLD', condition_config: { max: 5 } }, { token: company.token }),
    );
    expectNotFound(created);
    expect(await count('SELECT count(*) FROM monitoring_rules WHERE company_id = $1', [company.id])).to.equal(0);
  });

  it('a work order for the product answers 404 and none is stored (inventory service)', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    const created = await referenceWhileDeleted(company, product.id, () =>
      post('/api/v1/work-orders/', { number: unique('WO'), title: 'Assemble', product_id: product.id, quantity: 1 }, { token: company.token }),
    );
    expectNotFound(created);
    expect(await count('SELECT count(*) FROM work_orders WHERE company_id = $1', [company.id])).to.equal(0);
  });
});
