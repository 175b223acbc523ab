/**
 * A key's `allowed_domains` name the sites that embed the widget; the widget page itself runs on this
 * service's own origin (PUBLIC_BASE_URL), scanned or inside the SDK's iframe, so that origin is always let in.
 * Embedded, the widget page names the page around it in `X-Embedding-Origin`, and that page is judged
 * instead (docs/api/widget-embedding.md).
 */
import { expect } from 'chai';
import { get, post } from '../support/api';
import { TestCompany, buildApiKey, buildCompany, unique } from '../support/builders';
import { system } from '../support/hooks';

describe('API keys with allowed_domains and the widget page’s own origin', () => {
  let company: TestCompany;
  let key: string;

  before(async () => {
    company = await buildCompany();
    key = (await buildApiKey(company, { permissions: ['read', 'write'], allowed_domains: ['https://shop.example.com'] })).key;
  });

  const createLocation = (origin: string, name = unique('Shelf')) =>
    post('/api/v1/widget/create_location/', { name, type: 'SHELF' }, { apiKey: key, headers: { origin } });

  it('accepts a booking-like POST from the service’s own origin although it is not listed', async () => {
    const ownOrigin = new URL(system().gateway.config.PUBLIC_BASE_URL).origin;
    const res = await createLocation(ownOrigin);
    expect(res.status).to.equal(201);
    expect(res.body.location.name).to.match(/^Shelf_/);
  });

  it('still refuses an origin that is neither listed nor the service’s own, and creates nothing', async () => {
    const name = unique('Refused');
    const res = await createLocation('https://evil.example.net', name);
    expect(res.status).to.equal(403);
    expect(res.body.code).to.equal('origin_not_allowed');
    const all = await get('/api/v1/locations/?page_size=500', { token: company.token });
    expect(all.body.results.map((l: { name: string }) => l.name)).to.not.include(name);
  });

  it('judges the page that embeds the widget, named in X-Embedding-Origin, where the request comes from the widget page itself', async () => {
    const ownOrigin = new URL(system().gateway.config.PUBLIC_BASE_URL).origin;
    const name = unique('Hand-made');
    const embedded = (origin: string | undefined, embedding: string, locationName = unique('Shelf')) =>
      post(
        '/api/v1/widget/create_location/',
        { name: locationName, type: 'SHELF' },
        { apiKey: key, headers: { ...(origin ? { origin } : {}), 'x-embedding-origin': embedding } },
      );
    // A POST from the widget page (Origin: its own) in an iframe on a site the key does not list…
    const refused = await embedded(ownOrigin, 'https://evil.example.net', name);
    expect(refused.status).to.equal(403);
    expect(refused.body.code).to.equal('origin_not_allowed');
    // …and a same-origin GET, which browsers send without Origin.
    const read = await get('/api/v1/widget/locations/', { apiKey: key, headers: { 'x-embedding-origin': 'https://evil.example.net' } });
    expect(read.status).to.equal(403);
    expect((await embedded(ownOrigin, 'null')).status, 'a sandboxed page without an origin').to.equal(403);
    const all = await get('/api/v1/locations/?page_size=500', { token: company.token });
    expect(all.body.results.map((l: { name: string }) => l.name)).to.not.include(name);
    // The listed site gets in; another site's own Origin is judged as before, whatever the header says.
    expect((await embedded(ownOrigin, 'https://shop.example.com')).status).to.equal(201);
    expect((await embedded('https://evil.example.net', 'https://shop.example.com')).status).to.equal(403);
    // A key without allowed_domains takes any embedding page.
    const open = (await buildApiKey(company, { permissions: ['read'] })).key;
    expect((await get('/api/v1/widget/locations/', { apiKey: open, headers: { 'x-embedding-origin': 'https://evil.example.net' } })).status).to.equal(200);
  });

  it('accepts a listed origin', async () => {
    const res = await createLocation('https://shop.example.com');
    expect(res.status).to.equal(201);
  });
});
