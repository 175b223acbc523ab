import { expect } from 'chai';
import { generateKeyValue, hashKeyValue, looksLikeKeyValue } from '@pi/common';
import { hashPassword, verifyPassword } from '../src/auth/passwords';
import { withoutApiKeyParam } from '../src/proxy/service-proxy';
import { routeFor } from '../src/proxy/route-table';

describe('passwords', () => {
  it('verifies the right password only, and salts each hash', async () => {
    const a = await hashPassword('correct horse', 14);
    const b = await hashPassword('correct horse', 14);
    expect(a).to.not.equal(b);
    expect(a).to.not.include('correct horse');
    expect(await verifyPassword('correct horse', a)).to.equal(true);
    expect(await verifyPassword('correct horsf', a)).to.equal(false);
    expect(await verifyPassword('correct horse', 'md5$whatever')).to.equal(false);
  });
});

describe('API key values', () => {
  it('are random, well formed, and stored only as a SHA-256 hash with a short prefix', () => {
    const one = generateKeyValue();
    const two = generateKeyValue();
    expect(one.value).to.not.equal(two.value);
    expect(looksLikeKeyValue(one.value)).to.equal(true);
    expect(one.prefix).to.equal(one.value.slice(0, 12));
    expect(one.hash)
      .to.equal(hashKeyValue(one.value))
      .and.to.match(/^[0-9a-f]{64}$/);
    expect(looksLikeKeyValue('pik_short')).to.equal(false);
  });
});

describe('proxying', () => {
  it('drops api_key from the forwarded query and keeps everything else', () => {
    expect(withoutApiKeyParam('/api/v1/widget/?api_key=pik_x&location_id=1')).to.equal('/api/v1/widget/?location_id=1');
    expect(withoutApiKeyParam('/api/v1/widget/?api_key=pik_x')).to.equal('/api/v1/widget/');
    expect(withoutApiKeyParam('/api/v1/widget/?a=1')).to.equal('/api/v1/widget/?a=1');
    for (const name of ['API_KEY', 'api-key', 'apiKey', 'api_key[]', 'api_key%5B%5D', 'api_key[0]', 'Api_Key[x][y]']) {
      expect(withoutApiKeyParam(`/api/v1/widget/?${name}=pik_x&location_id=1`), name).to.equal('/api/v1/widget/?location_id=1');
    }
    expect(withoutApiKeyParam('/api/v1/widget/?api_key_hint=1')).to.equal('/api/v1/widget/?api_key_hint=1');
  });

  it('forwards every other parameter as the client spelled it, so that the service judges the spelling', () => {
    expect(withoutApiKeyParam('/api/v1/widget/?api_key=pik_x&search=caf%C3%A9+cr%c3%a8me&location_id=%ff')).to.equal(
      '/api/v1/widget/?search=caf%C3%A9+cr%c3%a8me&location_id=%ff',
    );
    expect(withoutApiKeyParam('/api/v1/widget/?search=50%&api%5Fkey=pik_x')).to.equal('/api/v1/widget/?search=50%');
  });

  it('routes every public path family to its owning service with the right authentication', () => {
    const cases: Array<[string, string, string]> = [
      ['/api/v1/widget/', 'inventory', 'api_key'],
      ['/api/v1/widget/3f1c/transaction/', 'inventory', 'api_key'],
      ['/api/v1/widget/exchange_token/', 'qr', 'none'],
      ['/api/v1/widget/lock_qr/', 'qr', 'api_key'],
      ['/go/AbC123/', 'qr', 'none'],
      ['/api/v1/qr-codes/', 'qr', 'user'],
      ['/api/v1/events/x/resolve/', 'monitor', 'user'],
      ['/api/v1/notification-channels/', 'monitor', 'user'],
      ['/api/v1/product-models/', 'inventory', 'user'],
      ['/api/v1/stock/', 'inventory', 'user'],
    ];
    for (const [path, service, auth] of cases) expect(routeFor(path), path).to.include({ service, auth });
    expect(routeFor('/api/v1/unknown/')).to.equal(undefined);
    expect(routeFor('/api/v1/users/')).to.equal(undefined);
  });
});
