import { expect } from 'chai';
import { deadlineMarginMs, parseRequestDeadline, requestDeadlineHeader } from '../src/http/request-deadline';

describe('request deadlines (X-Request-Deadline)', () => {
  const now = 1_800_000_000_000;

  it('the gateway sends when it stops waiting, less a tenth of its timeout (at most a second)', () => {
    expect(requestDeadlineHeader(30_000, now)).to.equal(String(now + 29_000));
    expect(requestDeadlineHeader(3000, now)).to.equal(String(now + 2700));
    expect(deadlineMarginMs(100)).to.equal(10);
  });

  it('reads an epoch-millisecond deadline, absent as undefined', () => {
    expect(parseRequestDeadline(String(now + 5000), now)).to.equal(now + 5000);
    expect(parseRequestDeadline(String(now - 5000), now)).to.equal(now - 5000);
    expect(parseRequestDeadline(undefined, now)).to.equal(undefined);
  });

  for (const value of ['', ' 1', 'abc', '1.5', '-1', '1e12', '0x10', '12345678901234567', String(now + 25 * 3600_000), String(now - 25 * 3600_000)]) {
    it(`calls ${JSON.stringify(value)} malformed`, () => {
      expect(parseRequestDeadline(value, now)).to.equal('malformed');
    });
  }
});
