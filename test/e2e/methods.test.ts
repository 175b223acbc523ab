/**
 * 405 method_not_allowed on every documented path, proxied ones included (services/gateway/src/http/methods.ts):
 * the allowed methods come from the OpenAPI document's operations, as the union over every path template the
 * path matches within the service that answers it, the way Express routes. Core and public paths answer
 * before authentication; widget paths that take an API key after the key and its permission are checked.
 * (The gateway's own routes: cors.test.ts.)
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { api } from '../support/api';
import { expectErrorShape, expectValidationError } from '../support/assertions';
import { TestCompany, buildApiKey, buildCompany } from '../support/builders';

const ID = randomUUID();

function expectMethodNotAllowed(res: { status: number; body: any; headers: Headers }, allow: string) {
  expectErrorShape(res, 405, 'method_not_allowed');
  expect(res.headers.get('allow')).to.equal(allow);
  expect(res.body.details.allowed_methods).to.deep.equal(allow.split(', '));
}

describe('405 on proxied paths, from the OpenAPI document', () => {
  let company: TestCompany;
  /** Every permission, so that no widget method is refused for the key before the method is looked at. */
  let allPermissions: string;

  before(async () => {
    company = await buildCompany();
    allPermissions = (await buildApiKey(company, { permissions: ['read', 'write', 'delete'] })).key;
  });

  describe('core paths (bearer): before authentication', () => {
    const cases: Array<[string, string, string]> = [
      ['PUT', '/api/v1/product-models/', 'GET, HEAD, POST, OPTIONS'],
      ['POST', `/api/v1/product-models/${ID}/`, 'GET, HEAD, PUT, PATCH, DELETE, OPTIONS'],
      ['DELETE', `/api/v1/work-orders/${ID}/`, 'GET, HEAD, PATCH, OPTIONS'],
      ['PATCH', '/api/v1/stock/', 'GET, HEAD, OPTIONS'],
      ['PATCH', '/api/v1/qr-codes/', 'GET, HEAD, POST, OPTIONS'],
      ['DELETE', '/api/v1/qr-codes/QRCODE0001/', 'GET, HEAD, OPTIONS'],
      ['POST', '/api/v1/qr-codes/labels.svg', 'GET, HEAD, OPTIONS'],
      ['PATCH', '/api/v1/events/', 'GET, HEAD, OPTIONS'],
      ['DELETE', `/api/v1/events/${ID}/`, 'GET, HEAD, OPTIONS'],
      ['GET', `/api/v1/events/${ID}/resolve/`, 'POST, OPTIONS'],
      ['PUT', `/api/v1/monitoring-rules/${ID}/`, 'GET, HEAD, PATCH, DELETE, OPTIONS'],
    ];
    for (const [method, path, allow] of cases) {
      it(`${method} ${path} answers 405 with Allow: ${allow}, with or without a token`, async () => {
        expectMethodNotAllowed(await api(method, path, { token: company.token }), allow);
        expectMethodNotAllowed(await api(method, path), allow);
      });
    }

    it('answers a plain OPTIONS with 204 and Allow, without credentials', async () => {
      const res = await api('OPTIONS', `/api/v1/product-models/${ID}/`);
      expect(res.status).to.equal(204);
      expect(res.headers.get('allow')).to.equal('GET, HEAD, PUT, PATCH, DELETE, OPTIONS');
    });

    it('takes a literal segment for a parameter where the service would: GET /api/v1/product-models/import/ reaches {id}/', async () => {
      // import/ is POST only, but the service's GET {id}/ route takes it too, and answers 400 naming id.
      expectValidationError(await api('GET', '/api/v1/product-models/import/', { token: company.token }), 'id');
      expectValidationError(await api('DELETE', '/api/v1/product-models/import/', { token: company.token }), 'id');
      expectMethodNotAllowed(await api('PUT', '/api/v1/product-models/', { token: company.token }), 'GET, HEAD, POST, OPTIONS');
    });
  });

  describe('public paths: before anything', () => {
    it('POST /go/{code}/ answers 405 with Allow: GET, HEAD, OPTIONS', async () => {
      expectMethodNotAllowed(await api('POST', '/go/QRCODE0001/'), 'GET, HEAD, OPTIONS');
    });

    it('GET /api/v1/widget/exchange_token/ answers 405 with Allow: POST, OPTIONS', async () => {
      expectMethodNotAllowed(await api('GET', '/api/v1/widget/exchange_token/'), 'POST, OPTIONS');
    });
  });

  describe('widget paths (API key): after the key and its permission', () => {
    it('DELETE /api/v1/widget/move/: the methods of move/ and of {id}/, which Express also routes it to', async () => {
      expectMethodNotAllowed(await api('DELETE', '/api/v1/widget/move/', { apiKey: allPermissions }), 'GET, HEAD, POST, OPTIONS');
    });

    it('GET /api/v1/widget/move/ reaches the product route ({id}/), which answers 400 naming id', async () => {
      expectValidationError(await api('GET', '/api/v1/widget/move/', { apiKey: allPermissions }), 'id');
    });

    it('counts only the templates of the service the path goes to: GET /api/v1/widget/lock_qr/ is QR-only', async () => {
      expectMethodNotAllowed(await api('GET', '/api/v1/widget/lock_qr/', { apiKey: allPermissions }), 'POST, OPTIONS');
      expectMethodNotAllowed(await api('POST', '/api/v1/widget/qr_info/', { apiKey: allPermissions }), 'GET, HEAD, OPTIONS');
    });

    it('PUT /api/v1/widget/locations/ and POST /api/v1/widget/{id}/ answer 405', async () => {
      expectMethodNotAllowed(await api('PUT', '/api/v1/widget/locations/', { apiKey: allPermissions }), 'GET, HEAD, OPTIONS');
      expectMethodNotAllowed(await api('POST', `/api/v1/widget/${ID}/`, { apiKey: allPermissions }), 'GET, HEAD, OPTIONS');
    });

    it('checks the key first: 401 without one, 403 when it lacks the method’s permission (docs/api/authentication.md)', async () => {
      expectErrorShape(await api('DELETE', '/api/v1/widget/move/'), 401, 'authentication_failed');
      expectErrorShape(await api('DELETE', '/api/v1/widget/move/', { apiKey: company.apiKey }), 403, 'permission_denied');
      expectErrorShape(await api('OPTIONS', '/api/v1/widget/locations/'), 401, 'authentication_failed');
    });

    it('answers a plain OPTIONS with a read key with 204 and Allow', async () => {
      const res = await api('OPTIONS', '/api/v1/widget/move/', { apiKey: company.apiKey });
      expect(res.status).to.equal(204);
      expect(res.headers.get('allow')).to.equal('GET, HEAD, POST, OPTIONS');
    });
  });

  describe('unknown paths', () => {
    it('still answer 404 not_found, whatever the method', async () => {
      for (const [method, path] of [
        ['PUT', '/api/v1/nothing-here/'],
        ['DELETE', `/api/v1/product-models/${ID}/nothing/`],
        ['GET', '/api/v1/qr-codes/QRCODE0001/nothing/'],
      ]) {
        expectErrorShape(await api(method, path, { token: company.token }), 404, 'not_found');
      }
    });
  });
});
