/**
 * Requests spelled in ways a parser would otherwise guess at (docs/api/paths-and-hostile-input.md, "Hostile
 * input"), through the gateway as clients send them:
 * - a query parameter whose percent-encoding is not UTF-8 text is refused with 400 naming it, at the gateway's
 *   own routes and at the services behind it (the proxy forwards the spelling, even where it takes the API key
 *   out of the query), where the query parser would have searched for U+FFFD or a literal `%`;
 * - a JSON or CSV body with bytes that are not UTF-8 (and no charset that says what they are) is refused with
 *   400 naming `body`, and nothing is created: decoding would have stored U+FFFD in their place;
 * - a request Node's HTTP parser refuses (a control character in a header, headers over the limit, a request
 *   line that is not HTTP) is answered in the error shape, by the gateway and by a service alike;
 * - so is a request the parser reads but HTTP/1.1 does not allow: no Host or two, an Expect other than
 *   100-continue, a CONNECT.
 */
import { expect } from 'chai';
import { expectValidationError } from '../support/assertions';
import { randomGtin } from '../support/barcodes';
import { TestCompany, buildCompany, buildProduct, buildStock } from '../support/builders';
import { system } from '../support/hooks';
import { rawExchange, rawRequest, rawText } from '../support/raw-http';
import { balanceOf } from '../support/stock';

const BAD_SPELLINGS: Array<[string, string]> = [
  ['%ff', 'a byte that is not UTF-8'],
  ['%C0%AF', 'an overlong encoding'],
  ['%ED%A0%80', 'an encoded surrogate'],
  ['50%', 'a bare %'],
  ['%zz', 'a malformed escape'],
];

describe('query parameters whose percent-encoding is not UTF-8 text', () => {
  let company: TestCompany;
  const barcode = randomGtin(13);

  before(async () => {
    company = await buildCompany();
    await buildProduct(company, { name: 'Café crème', barcode });
    await buildProduct(company, { name: 'Cafe noir' });
  });

  for (const [spelling, what] of BAD_SPELLINGS) {
    it(`answers 400 naming search for ${what} (search=${spelling}) on a service's list`, async () => {
      const res = await rawRequest('GET', `/api/v1/product-models/?search=${spelling}`, { token: company.token });
      expectValidationError(res, 'search');
      expect(res.body.details.search).to.equal('search is not valid percent-encoding of UTF-8 text');
    });
  }

  it('searches for the text a UTF-8 spelling names, é as %C3%A9 and a space as +', async () => {
    const res = await rawRequest('GET', '/api/v1/product-models/?search=caf%C3%A9+cr%C3%A8me', { token: company.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.results.map((p: { name: string }) => p.name)).to.deep.equal(['Café crème']);
  });

  it("answers 400 naming the parameter on the gateway's own routes too", async () => {
    const res = await rawRequest('GET', '/api/v1/users/?ordering=%ff', { token: company.token });
    expectValidationError(res, 'ordering');
  });

  it('names a parameter whose own name is badly encoded as it was sent', async () => {
    const res = await rawRequest('GET', '/api/v1/product-models/?se%ffarch=x', { token: company.token });
    expectValidationError(res, 'se%ffarch');
  });

  it('refuses it where the API key is given in the query too (which never reaches the answer)', async () => {
    const res = await rawRequest('GET', `/api/v1/widget/?api_key=${company.apiKey}&location_id=%C0%AF`);
    expectValidationError(res, 'location_id');
    expect(JSON.stringify(res.body)).to.not.include(company.apiKey);
    // The barcode with every digit escaped, as a careful client may spell it: decoded, it finds the product.
    const escaped = [...barcode].map((digit) => `%${digit.charCodeAt(0).toString(16)}`).join('');
    const fine = await rawRequest('GET', `/api/v1/widget/?api_key=${company.apiKey}&barcode=${escaped}`);
    expect(fine.status, JSON.stringify(fine.body)).to.equal(200);
    expect(fine.body.products.map((p: { name: string }) => p.name)).to.deep.equal(['Café crème']);
  });
});

describe('bodies with bytes that are not UTF-8', () => {
  let company: TestCompany;
  const names = async () =>
    (await rawRequest('GET', '/api/v1/locations/?page_size=500', { token: company.token })).body.results.map((l: { name: string }) => l.name);

  before(async () => {
    company = await buildCompany();
  });

  it(`answers 400 naming body for "Café" in Latin-1 in a JSON body, on the gateway's own routes and those it proxies, and creates nothing`, async () => {
    const before = await names();
    const created = await rawRequest('POST', '/api/v1/locations/', {
      token: company.token,
      body: Buffer.from('{"name":"Caf\xe9 in Latin-1","type":"STORE"}', 'latin1'),
    });
    expectValidationError(created, 'body');
    expect(created.body.details.body).to.equal('is not UTF-8 text');
    const registered = await rawRequest('POST', '/api/v1/register/', {
      body: Buffer.from(`{"company_name":"Caf\xe9 ${Date.now()}","username":"u","password":"p"}`, 'latin1'),
    });
    expectValidationError(registered, 'body');
    expect(await names()).to.deep.equal(before);
  });

  it('answers 400 naming body for a CSV import in Latin-1 that does not say so, and imports nothing', async () => {
    const before = await names();
    const res = await rawRequest('POST', '/api/v1/locations/import/?dry_run=false', {
      token: company.token,
      headers: { 'content-type': 'text/csv' },
      body: Buffer.from('name,type\r\nCaf\xe9 store,STORE\r\n', 'latin1'),
    });
    expectValidationError(res, 'body');
    expect(await names()).to.deep.equal(before);
  });

  it('imports the same file with charset=latin1 in its Content-Type, and a UTF-8 file with its byte order mark, as Café', async () => {
    const latin1 = await rawRequest('POST', '/api/v1/locations/import/?dry_run=false', {
      token: company.token,
      headers: { 'content-type': 'text/csv; charset=latin1' },
      body: Buffer.from('name,type\r\nCaf\xe9 latin,STORE\r\n', 'latin1'),
    });
    expect(latin1.status, JSON.stringify(latin1.body)).to.equal(201);
    const utf8 = await rawRequest('POST', '/api/v1/locations/import/?dry_run=false', {
      token: company.token,
      headers: { 'content-type': 'text/csv' },
      body: Buffer.from('\ufeffname,type\r\nCafé utf8,STORE\r\n', 'utf8'),
    });
    expect(utf8.status, JSON.stringify(utf8.body)).to.equal(201);
    expect(await names()).to.include.members(['Café latin', 'Café utf8']);
  });
});

describe('requests the HTTP parser refuses', () => {
  const targets = () => [
    ['the gateway', system().url],
    ['a service', system().serviceUrls.inventory],
  ];

  for (const which of [0, 1]) {
    it(`answers a control character in a header with 400 validation_error naming headers, in the error shape (${['the gateway', 'a service'][which]})`, async () => {
      const [, url] = targets()[which];
      const answer = await rawExchange(url, 'GET /api/v1/locations/ HTTP/1.1\r\nHost: localhost\r\nX-Request-Id: a\u0001b\r\n\r\n');
      expect(answer.status).to.equal('HTTP/1.1 400 Bad Request');
      expect(answer.body).to.have.all.keys('error', 'code', 'details', 'request_id');
      expect(answer.body).to.deep.include({ code: 'validation_error', details: { headers: 'a header name or value holds a character HTTP does not allow' } });
      expect(answer.headers).to.match(new RegExp(`^x-request-id: ${answer.body.request_id as string}$`, 'im'));
    });
  }

  it('answers a request it cannot read after the booking pipelined before it, which is booked once and told so', async () => {
    const { company, product, location } = await buildStock({ quantity: 5 });
    const body = JSON.stringify({ operation: 'subtract', quantity: 1, location_id: location.id });
    const booking = `POST /api/v1/widget/${product.id}/transaction/ HTTP/1.1\r\nHost: localhost\r\nX-API-Key: ${company.apiKey}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
    const text = await rawText(system().url, `${booking}GET /api/v1/locations/ HTTP/1.1\r\nHost: localhost\r\nX-Bad: a\u0001b\r\n\r\n`);
    // The booking's own answer first: a client reading the 400 first would think the booking refused and undone.
    expect(text.match(/HTTP\/1\.1 \d{3}/g)).to.deep.equal(['HTTP/1.1 200', 'HTTP/1.1 400']);
    expect(text).to.include('"success":true');
    expect(await balanceOf(product.id, location.id)).to.equal(4);
  });

  it('answers headers over 16 KB with 431 headers_too_large, and a request line that is not HTTP with 400 naming request', async () => {
    const big = await rawExchange(system().url, `GET /api/v1/locations/ HTTP/1.1\r\nHost: localhost\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(big.status).to.equal('HTTP/1.1 431 Request Header Fields Too Large');
    expect(big.body).to.include({ code: 'headers_too_large' });
    const junk = await rawExchange(system().url, 'HELLO THERE\r\n\r\n');
    expect(junk.status).to.equal('HTTP/1.1 400 Bad Request');
    expect(junk.body).to.deep.include({ code: 'validation_error', details: { request: 'is not a well-formed HTTP/1.1 request' } });
  });
});

describe('requests HTTP/1.1 does not allow, which the parser reads', () => {
  let company: TestCompany;
  before(async () => (company = await buildCompany()));

  const locationNames = async () => {
    const res = await rawRequest<{ results: Array<{ name: string }> }>('GET', '/api/v1/locations/?page_size=500', { token: company.token });
    return res.body.results.map((l) => l.name);
  };
  /** A location's creation as raw bytes, with `headers` (Host and Expect among them, as the case needs). */
  const createLocation = (name: string, headers: string) => {
    const body = JSON.stringify({ name, type: 'WAREHOUSE' });
    return `POST /api/v1/locations/ HTTP/1.1\r\n${headers}Authorization: Bearer ${company.token}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`;
  };

  it('answers 400 naming headers to a request with no Host or with two, through the gateway, and creates nothing', async () => {
    const none = await rawExchange(system().url, createLocation('No host store', 'X-Request-Id: e2e-no-host-0001\r\n'));
    expect(none.status).to.equal('HTTP/1.1 400 Bad Request');
    expect(none.body).to.deep.equal({
      error: 'Malformed HTTP request.',
      code: 'validation_error',
      details: { headers: 'Host is required in an HTTP/1.1 request' },
      request_id: 'e2e-no-host-0001',
    });
    const two = await rawExchange(system().url, createLocation('Two hosts store', 'Host: localhost\r\nHost: evil.example\r\n'));
    expect(two.status).to.equal('HTTP/1.1 400 Bad Request');
    expect(two.body).to.deep.include({ code: 'validation_error', details: { headers: 'Host must appear once' } });
    expect(await locationNames()).to.not.include.members(['No host store', 'Two hosts store']);
  });

  it('answers 417 expectation_failed to an Expect it cannot meet and creates nothing, while 100-continue creates the location', async () => {
    const refused = await rawExchange(system().url, createLocation('Expecting store', 'Host: localhost\r\nExpect: 200-ok\r\n'));
    expect(refused.status).to.equal('HTTP/1.1 417 Expectation Failed');
    expect(refused.body).to.deep.include({ code: 'expectation_failed', details: { headers: 'Expect may only be 100-continue' } });
    const taken = await rawRequest('POST', '/api/v1/locations/', {
      token: company.token,
      headers: { expect: '100-continue' },
      body: { name: 'Continuing store', type: 'WAREHOUSE' },
    });
    expect(taken.status, JSON.stringify(taken.body)).to.equal(201);
    const names = await locationNames();
    expect(names).to.include('Continuing store');
    expect(names).to.not.include('Expecting store');
  });

  for (const which of ['the gateway', 'a service'] as const) {
    it(`answers CONNECT with 405 method_not_allowed in the error shape instead of closing the connection (${which})`, async () => {
      const url = which === 'the gateway' ? system().url : system().serviceUrls.inventory;
      const answer = await rawExchange(url, 'CONNECT 127.0.0.1:5432 HTTP/1.1\r\nHost: 127.0.0.1:5432\r\n\r\n');
      expect(answer.status).to.equal('HTTP/1.1 405 Method Not Allowed');
      expect(answer.body).to.deep.include({ code: 'method_not_allowed', error: 'Method CONNECT not allowed.' });
      expect(answer.headers).to.match(/^allow: GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS$/im);
    });
  }
});
