import { expect } from 'chai';
import { get, post } from '../support/api';
import { buildCompany } from '../support/builders';
import { system } from '../support/hooks';
import { rawRequest } from '../support/raw-http';

describe('secrets never reach the logs', () => {
  it('logs no password, token or API key, whether sent in the body, a header or the query', async () => {
    const company = await buildCompany();
    const rotated = await post(`/api/v1/api-keys/${company.apiKeyId}/rotate/`, undefined, { token: company.token });
    const key: string = rotated.body.key;
    await post('/api/token/', { username: company.admin.username, password: company.admin.password });
    await post('/api/token/', { username: company.admin.username, password: 'wrong-password-xyz' });
    await get(`/api/v1/widget/locations/?api_key=${key}`);
    await get('/api/v1/widget/locations/', { apiKey: key });
    await post('/api/v1/widget/create_location/', { api_key: key, name: 'Logged', type: 'SHELF' });
    await get('/api/v1/locations/', { token: company.token });
    await post('/api/token/refresh/', { refresh: company.refresh });

    const log = system().logs.text();
    expect(log).to.include('/api/v1/widget/locations/'); // the requests were logged at all
    for (const secret of [key, company.admin.password, 'wrong-password-xyz', company.token, company.refresh]) {
      expect(log.includes(secret), `log contains a secret: ${secret.slice(0, 8)}…`).to.equal(false);
    }
  });
});

describe('secrets never reach the logs, in any spelling (redacted by name and by shape)', () => {
  it('an API key in api_key[], API_KEY, api_key[0], a nested name, the path or percent-encoded never appears in any log line', async () => {
    const company = await buildCompany();
    const rotated = await post(`/api/v1/api-keys/${company.apiKeyId}/rotate/`, undefined, { token: company.token });
    const key: string = rotated.body.key;
    const spellings = [
      `api_key[]=${key}`,
      `API_KEY=${key}`,
      `api_key[0]=${key}`,
      `Api-Key=${key}`,
      `filter[api_key]=${key}`,
      `anything=${encodeURIComponent(key).replace('_', '%5F')}`,
      `token=${company.refresh}`,
      `refresh=${company.refresh}`,
      `password=${company.admin.password}`,
    ];
    const requestIds: string[] = [];
    for (const query of spellings) {
      // The header authenticates; the odd parameter is what a careless client adds to the URL.
      const res = await rawRequest('GET', `/api/v1/widget/locations/?${query}`, { apiKey: key });
      expect(res.status, query).to.be.oneOf([200, 400, 401]);
      requestIds.push(res.headers.get('x-request-id')!);
    }
    await rawRequest('GET', `/api/v1/widget/${key}/`, { apiKey: key });
    await rawRequest('GET', `/api/v1/widget/${key.replace('_', '%5F')}/`, { apiKey: key });
    await rawRequest('GET', `/api/v1/widget/locations/?api_key=${key}`);
    const log = system().logs.text();
    for (const id of requestIds) expect(log, `request ${id} was logged`).to.include(id);
    expect(log).to.include('[redacted]');
    for (const secret of [key, key.slice(4), company.refresh, company.admin.password]) {
      expect(log.includes(secret), `log contains a secret: ${secret.slice(0, 8)}…`).to.equal(false);
    }
  });

  it('the services never receive the key in any spelling of api_key: the gateway strips them all', async () => {
    const company = await buildCompany();
    const res = await rawRequest('GET', `/api/v1/widget/locations/?API_KEY=${company.apiKey}&api_key[]=${company.apiKey}`, { apiKey: company.apiKey });
    expect(res.status).to.equal(200);
    const id = res.headers.get('x-request-id')!;
    const inventoryLine = system().logs.lines.find((l) => l.includes('"service":"inventory"') && l.includes(id));
    expect(inventoryLine, 'the inventory service logged the request').to.be.a('string');
    expect(inventoryLine).to.not.match(/api_key/i);
  });
});
