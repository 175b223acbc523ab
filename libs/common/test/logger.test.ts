import { Writable } from 'node:stream';
import { expect } from 'chai';
import { createLogger, scrubUrl } from '../src';

describe('logging', () => {
  it('scrubs credential-bearing query parameters from URLs and keeps the rest', () => {
    const scrubbed = scrubUrl('/api/v1/widget/?api_key=pik_secret&location_id=abc&token=jwt.value');
    expect(scrubbed).to.not.include('pik_secret');
    expect(scrubbed).to.not.include('jwt.value');
    expect(scrubbed).to.include('location_id=abc');
    expect(scrubUrl('/plain/path/')).to.equal('/plain/path/');
  });

  it('redacts secret-looking fields of logged objects', () => {
    const lines: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, done) {
        lines.push(chunk.toString());
        done();
      },
    });
    const logger = createLogger('test', 'info', sink);
    logger.info({ body: { password: 'hunter2-secret', api_key: 'pik_abc', name: 'visible' }, req: { headers: { authorization: 'Bearer xyz' } } }, 'msg');
    const out = lines.join('');
    expect(out).to.include('visible');
    for (const secret of ['hunter2-secret', 'pik_abc', 'Bearer xyz']) expect(out).to.not.include(secret);
  });
});
