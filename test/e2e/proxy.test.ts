import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect } from 'chai';
import { get, post } from '../support/api';
import { buildCompany } from '../support/builders';
import { system } from '../support/hooks';

/** The header names of one request sent to a gateway whose services are a recorder of what they receive. */
async function namesForwarded(headers: Record<string, string>): Promise<string[]> {
  let received: string[] = [];
  const recorder = http.createServer((req, res) => {
    received = Object.keys(req.headers);
    res.setHeader('content-type', 'application/json');
    res.end('{"results":[]}');
  });
  await new Promise<void>((resolve) => recorder.listen(0, '127.0.0.1', resolve));
  const gateway = await system().startGateway({ INVENTORY_URL: `http://127.0.0.1:${(recorder.address() as AddressInfo).port}` });
  try {
    const company = await buildCompany();
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = http.get(`${gateway.url}/api/v1/locations/`, { agent: false, headers: { authorization: `Bearer ${company.token}`, ...headers } }, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode));
      });
      req.on('error', reject);
    });
    expect(status).to.equal(200);
    return received;
  } finally {
    await gateway.close();
    await new Promise((resolve) => recorder.close(resolve));
  }
}

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

  it("does not forward the headers that the client's Connection header names (hop-by-hop), and forwards the others", async () => {
    const names = await namesForwarded({ connection: 'close, X-Hop-Only,x-other-hop', 'x-hop-only': 'a', 'x-other-hop': 'b', 'x-end-to-end': 'c' });
    expect(names).to.include('x-end-to-end');
    expect(names).to.not.include('x-hop-only');
    expect(names).to.not.include('x-other-hop');
    // Without a Connection header naming them, the same headers go through.
    expect(await namesForwarded({ 'x-hop-only': 'a', 'x-other-hop': 'b' })).to.include.members(['x-hop-only', 'x-other-hop']);
  });

  it('answers 404 not_found in the error shape for a path no service owns', async () => {
    const res = await get('/api/v1/no-such-thing/');
    expect(res.status).to.equal(404);
    expect(res.body).to.include({ code: 'not_found' });
    expect(res.body).to.have.all.keys('error', 'code', 'details', 'request_id');
  });
});
