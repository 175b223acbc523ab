import { expect } from 'chai';
import { get, post } from '../support/api';
import { buildCompany } from '../support/builders';

describe('gateway → service proxying', () => {
  it('forwards a parsed JSON body intact, multi-byte characters included', async () => {
    const company = await buildCompany();
    const name = 'Lager Süd — 倉庫 📦';
    const created = await post('/api/v1/locations/', { name, type: 'WAREHOUSE' }, { token: company.token });
    expect(created.status).to.equal(201);
    expect(created.body.name).to.equal(name);
    const read = await get(`/api/v1/locations/${created.body.id}/`, { token: company.token });
    expect(read.body.name).to.equal(name);
  });

  it('forwards the query string (minus api_key) to the service', async () => {
    const company = await buildCompany();
    await post('/api/v1/locations/', { name: 'Shelf A', type: 'SHELF' }, { token: company.token });
    const res = await get('/api/v1/locations/?type=SHELF&page_size=1', { token: company.token });
    expect(res.status).to.equal(200);
    expect(res.body.count).to.equal(1);
    expect(res.body.results[0].type).to.equal('SHELF');
  });

  it('passes service errors through unchanged, in the error shape', async () => {
    const company = await buildCompany();
    const res = await post('/api/v1/locations/', { name: 'x', type: 'VIRTUAL' }, { token: company.token });
    expect(res.status).to.equal(400);
    expect(res.body.code).to.equal('validation_error');
    expect(res.body.details).to.have.property('type');
    expect(res.body.request_id).to.equal(res.headers.get('x-request-id'));
  });

  it('answers 404 not_found in the error shape for a path no service owns', async () => {
    const res = await get('/api/v1/no-such-thing/');
    expect(res.status).to.equal(404);
    expect(res.body).to.include({ code: 'not_found' });
    expect(res.body).to.have.all.keys('error', 'code', 'details', 'request_id');
  });
});
