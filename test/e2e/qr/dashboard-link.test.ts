/**
 * `POST /api/v1/qr-codes/{code}/configure/` (bearer): the dashboard links a VIRGIN code to a product, item or
 * work order with the widget's `configure_qr/` move (docs/api/barcodes-and-camera.md). Each company links only
 * its own codes to its own targets; a refused link changes nothing.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { post } from '../../support/api';
import { expectAccessDenied, expectErrorShape, expectNotFound, expectValidationError } from '../../support/assertions';
import { addStock, buildCompany, buildLocation, buildProduct, generateCode, generateCodes } from '../../support/builders';
import { query } from '../../support/sql';

const stored = (code: string) =>
  query<{ status: string; target_type: string | null; target_id: string | null }>('SELECT status, target_type, target_id FROM qr_codes WHERE code = $1', [
    code,
  ]);

describe('POST /api/v1/qr-codes/{code}/configure/ (dashboard)', () => {
  it('links a VIRGIN code to a product and answers the code in the dashboard shape; a second link is 409 invalid_transition', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    const code = await generateCode(company);
    const res = await post(`/api/v1/qr-codes/${code}/configure/`, { target_type: 'PRODUCT', target_id: product.id }, { token: company.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ code, status: 'CONFIGURED', target_type: 'PRODUCT', target_id: product.id, product_model_id: product.id });
    expect(res.body.allowed_transitions).to.deep.equal(['LOCKED']);
    expect(res.body.url).to.match(new RegExp(`/go/${code}/$`));
    const again = await post(`/api/v1/qr-codes/${code}/configure/`, { target_type: 'PRODUCT', target_id: product.id }, { token: company.token });
    expectErrorShape(again, 409, 'invalid_transition');
  });

  it('links codes to an item (its product recorded) and to a work order, one request a code (the bulk link)', async () => {
    const company = await buildCompany();
    const drill = await buildProduct(company, { profile: 'SERIALIZED' });
    await addStock(company, drill.id, (await buildLocation(company)).id, 1, { serial_numbers: ['SN-1'] });
    const [item] = await query<{ id: string }>('SELECT id FROM physical_items WHERE product_id = $1', [drill.id]);
    const order = await post('/api/v1/work-orders/', { number: 'WO-1', title: 'Assemble', product_id: drill.id, quantity: 1 }, { token: company.token });
    expect(order.status, JSON.stringify(order.body)).to.equal(201);
    const [a, b] = await generateCodes(company, 2);
    const itemLink = await post(`/api/v1/qr-codes/${a}/configure/`, { target_type: 'ITEM', target_id: item.id }, { token: company.token });
    expect(itemLink.body).to.include({ status: 'CONFIGURED', target_type: 'ITEM', target_id: item.id, product_model_id: drill.id });
    const orderLink = await post(`/api/v1/qr-codes/${b}/configure/`, { target_type: 'WORK_ORDER', target_id: order.body.id }, { token: company.token });
    expect(orderLink.body).to.include({ status: 'CONFIGURED', target_type: 'WORK_ORDER', target_id: order.body.id });
  });

  it("answers 403 for another company's code or target and 404 for unknown ones, linking nothing", async () => {
    const a = await buildCompany();
    const b = await buildCompany();
    const ownProduct = await buildProduct(a);
    const theirProduct = await buildProduct(b, { name: 'B secret product' });
    const own = await generateCode(a);
    const theirs = await generateCode(b);
    expectAccessDenied(await post(`/api/v1/qr-codes/${theirs}/configure/`, { target_type: 'PRODUCT', target_id: ownProduct.id }, { token: a.token }), [
      theirProduct.name,
    ]);
    expectAccessDenied(await post(`/api/v1/qr-codes/${own}/configure/`, { target_type: 'PRODUCT', target_id: theirProduct.id }, { token: a.token }), [
      theirProduct.name,
    ]);
    expectNotFound(await post(`/api/v1/qr-codes/${own}/configure/`, { target_type: 'PRODUCT', target_id: randomUUID() }, { token: a.token }));
    expectNotFound(await post('/api/v1/qr-codes/NoSuchCode99/configure/', { target_type: 'PRODUCT', target_id: ownProduct.id }, { token: a.token }));
    expect(await stored(own)).to.deep.equal([{ status: 'VIRGIN', target_type: null, target_id: null }]);
    expect(await stored(theirs)).to.deep.equal([{ status: 'VIRGIN', target_type: null, target_id: null }]);
  });

  it('answers 400 naming the fields for a bad body, and 401 for an API key (dashboard users only)', async () => {
    const company = await buildCompany();
    const code = await generateCode(company);
    expectValidationError(
      await post(`/api/v1/qr-codes/${code}/configure/`, { target_type: 'SHELF', target_id: 'x' }, { token: company.token }),
      'target_type',
      'target_id',
    );
    expectValidationError(await post(`/api/v1/qr-codes/${code}/configure/`, {}, { token: company.token }), 'target_type', 'target_id');
    expectErrorShape(
      await post(`/api/v1/qr-codes/${code}/configure/`, { target_type: 'PRODUCT', target_id: randomUUID() }, { apiKey: company.apiKey }),
      401,
      'authentication_failed',
    );
    expect(await stored(code)).to.deep.equal([{ status: 'VIRGIN', target_type: null, target_id: null }]);
  });
});
