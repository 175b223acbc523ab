import { Writable } from 'node:stream';
import { expect } from 'chai';
import { createLogger, isSecretName, scrubUrl } from '../src';

const KEY = 'pik_Z9yXw8VuT7sR6qP5oN4mL3kJ2iH1gF0eD9cB8aZ7';
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJlLXZhbHVl';

function capture() {
  const lines: string[] = [];
  const sink = new Writable({
    write(chunk, _enc, done) {
      lines.push(chunk.toString());
      done();
    },
  });
  return { logger: createLogger('test', 'info', sink), text: () => lines.join('') };
}

describe('logging', () => {
  it('scrubs credential-bearing query parameters from URLs and keeps the rest', () => {
    const scrubbed = scrubUrl('/api/v1/widget/?api_key=pik_secret&location_id=abc&token=jwt.value');
    expect(scrubbed).to.not.include('pik_secret');
    expect(scrubbed).to.not.include('jwt.value');
    expect(scrubbed).to.include('location_id=abc');
    expect(scrubUrl('/plain/path/')).to.equal('/plain/path/');
    expect(scrubUrl('/plain/path/?page=2&page_size=5')).to.equal('/plain/path/?page=2&page_size=5');
  });

  it('knows a secret parameter by its name in any case, spelling or nesting', () => {
    for (const name of [
      'api_key',
      'API_KEY',
      'api_key[]',
      'api_key[0]',
      'Api-Key',
      'apiKey',
      'x-api-key',
      'token',
      'TOKEN',
      'filter[token]',
      'refresh_token',
      'password',
      'new_password',
      'Password[]',
      'refresh',
      'secret',
      'client_secret',
      'authorization',
      'Authorization',
      'cookie',
      'key',
    ]) {
      expect(isSecretName(name), name).to.equal(true);
    }
    for (const name of ['location_id', 'api_key_id', 'page', 'name', 'code', 'request_id', 'status', 'keys_count'])
      expect(isSecretName(name), name).to.equal(false);
  });

  it('redacts every spelling of a secret parameter, and any value shaped like a key or a token, in URLs', () => {
    const urls = [
      `/api/v1/widget/locations/?api_key[]=short-but-secret`,
      `/api/v1/widget/locations/?API_KEY=short-but-secret&page=1`,
      `/api/v1/widget/locations/?api_key%5B0%5D=short-but-secret`,
      `/api/v1/widget/locations/?filter[token]=short-but-secret`,
      `/api/v1/widget/locations/?password=short-but-secret`,
      `/api/v1/widget/locations/?anything=${KEY}`,
      `/api/v1/widget/locations/?anything=${encodeURIComponent(KEY).replace('_', '%5F')}`,
      `/api/v1/widget/${KEY}/?x=1`,
      `/api/v1/widget/${KEY.replace('_', '%5F')}/`,
      `/widget/?anything=${JWT}`,
      `/go/abc/?note=whsec_0123456789abcdef`,
    ];
    for (const url of urls) {
      const out = scrubUrl(url);
      for (const secret of ['short-but-secret', KEY, KEY.slice(4), JWT, 'whsec_0123456789abcdef']) expect(out, url).to.not.include(secret);
      expect(out).to.include('[redacted]');
    }
  });

  it('redacts secret-looking fields of logged objects, at any depth, whatever their name spelling', () => {
    const { logger, text } = capture();
    logger.info({ body: { password: 'hunter2-secret', api_key: 'pik_abc', name: 'visible' }, req: { headers: { authorization: 'Bearer xyz' } } }, 'msg');
    logger.info({
      deep: { a: { b: [{ API_KEY: 'deep-secret-1' }, { 'api_key[]': 'deep-secret-2' }, { Refresh: 'deep-secret-3' }] } },
      channel_secret: 'deep-secret-4',
    });
    logger.warn({ url: '/x/?Api_Key[0]=deep-secret-5', err: new Error(`upstream said ${KEY} and ${JWT}`) }, `message with Bearer deep-secret-6 and ${KEY}`);
    const out = text();
    expect(out).to.include('visible');
    for (const secret of [
      'hunter2-secret',
      'pik_abc',
      'Bearer xyz',
      'deep-secret-1',
      'deep-secret-2',
      'deep-secret-3',
      'deep-secret-4',
      'deep-secret-5',
      'deep-secret-6',
      KEY.slice(4),
      JWT,
    ]) {
      expect(out, secret).to.not.include(secret);
    }
    for (const line of out.trim().split('\n')) expect(() => JSON.parse(line)).to.not.throw();
  });
});
