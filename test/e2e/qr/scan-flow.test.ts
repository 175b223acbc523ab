import { expect } from 'chai';
import { api, get, post } from '../../support/api';
import { buildCompany, buildProduct } from '../../support/builders';
import { system } from '../../support/hooks';

describe('the QR scan journey, as a phone does it', () => {
  it('generates a code, configures it, redirects a scan with a one-time token (never a key), and exchanges it once', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    const generated = await post('/api/v1/qr-codes/', { count: 3 }, { token: company.token });
    expect(generated.status).to.equal(201);
    expect(generated.body.count).to.equal(3);
    const code: string = generated.body.results[0].code;
    expect(code).to.match(/^[A-Za-z0-9]{12}$/);
    expect(generated.body.results[0]).to.include({ status: 'VIRGIN', url: `http://localhost:8000/go/${code}/` });

    const configured = await post('/api/v1/widget/configure_qr/', { code, target_type: 'PRODUCT', target_id: product.id }, { apiKey: company.apiKey });
    expect(configured.status).to.equal(200);
    expect(configured.body).to.include({ status: 'CONFIGURED', target_type: 'PRODUCT', target_id: product.id, product_model_id: product.id });

    const scan = await api('GET', `/go/${code}/`);
    expect(scan.status).to.equal(302);
    const location = new URL(scan.headers.get('location')!);
    expect(`${location.origin}${location.pathname}`).to.equal('http://localhost:8000/widget/');
    const token = location.searchParams.get('token')!;
    expect(token).to.be.a('string');
    expect([...location.searchParams.keys()]).to.deep.equal(['token']);
    expect(scan.headers.get('location')).to.not.include(company.apiKey);
    expect(scan.headers.get('cache-control')).to.equal('no-store');

    const exchanged = await post('/api/v1/widget/exchange_token/', { token });
    expect(exchanged.status).to.equal(200);
    expect(exchanged.body.api_key).to.match(/^pik_/).and.not.equal(company.apiKey);
    expect(new Date(exchanged.body.expires_at).getTime() - Date.now()).to.be.closeTo(8 * 3600 * 1000, 60_000);
    expect(exchanged.body.qr).to.include({ code, status: 'CONFIGURED', target_id: product.id });

    const list = await get('/api/v1/widget/', { apiKey: exchanged.body.api_key });
    expect(list.status).to.equal(200);
    expect(list.body.products.map((p: { id: string }) => p.id)).to.deep.equal([product.id]);

    const again = await post('/api/v1/widget/exchange_token/', { token });
    expect(again.status).to.equal(410);
    expect(again.body.code).to.equal('token_used');
    expect(system().logs.text()).to.not.include(token);
  });
});
