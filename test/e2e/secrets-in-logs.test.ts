import { expect } from 'chai';
import { get, post } from '../support/api';
import { buildCompany } from '../support/builders';
import { system } from '../support/hooks';

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
