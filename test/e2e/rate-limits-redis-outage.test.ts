/**
 * Redis stopped mid-test (issue 6): two gateways count in a private Redis, the Redis is killed while they are
 * serving, and comes back on the same port. While it is gone each gateway keeps serving and limits on its own
 * (in-memory insurance limiter), logging the outage once; once it is back they share counters in Redis again.
 * The shared Redis of support/redis.ts is never touched: this suite starts and kills its own `redis-server`.
 */
import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { ApiResponse, get } from '../support/api';
import { expectRateLimited } from '../support/assertions';
import { TestCompany, buildCompany } from '../support/builders';
import { system } from '../support/hooks';
import { PrivateRedis, requireRedisServer } from '../support/redis-server';
import type { RunningGateway } from '../support/system';

const LIMIT = 4;
const SUITE = 'rate limits when Redis stops mid-test';

function expectLimited(res: ApiResponse, scope: string) {
  expectRateLimited(res, scope);
  expect(res.body.request_id).to.equal(res.headers.get('x-request-id'));
}

/** A widget request with the company's key through `gw`, and how long it took. */
async function widget(company: TestCompany, gw: RunningGateway): Promise<ApiResponse & { ms: number }> {
  const started = Date.now();
  const res = await get('/api/v1/widget/', { apiKey: company.apiKey, baseUrl: gw.url });
  return { ...res, ms: Date.now() - started };
}

/** Log lines written since `mark` (an index into the captured lines) that contain `text`. */
const linesSince = (mark: number, text: string) =>
  system()
    .logs.lines.slice(mark)
    .filter((line) => line.includes(text));

async function waitForLines(mark: number, text: string, count: number, timeoutMs: number): Promise<string[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const found = linesSince(mark, text);
    if (found.length >= count || Date.now() > deadline) return found;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const UNREACHABLE = 'rate limits: Redis unreachable';
const BACK = 'rate limits: Redis is reachable again';

describe(SUITE, () => {
  let redis: PrivateRedis | undefined;
  const gateways: RunningGateway[] = [];

  before(function () {
    requireRedisServer(this, SUITE);
  });

  after(async function () {
    this.timeout(15_000);
    // Closing a gateway closes its Redis client too, so stopping this server afterwards logs nothing.
    for (const gw of gateways) await gw.close();
    if (redis) await redis.stop();
  });

  it('counts in Redis, keeps serving and limiting per process while Redis is killed, logs it once, and shares counters again once Redis is back', async function () {
    this.timeout(60_000);
    redis = await PrivateRedis.start();
    const prefix = `pitest:outage:${randomBytes(6).toString('hex')}`;
    const env = { RATE_LIMITS: 'on', REDIS_URL: redis.url, RATE_LIMIT_KEY_PREFIX: prefix, RATE_LIMIT_OVERRIDES: `widget_burst=${LIMIT}` };
    const a = await system().startGateway(env);
    gateways.push(a);
    const b = await system().startGateway(env);
    gateways.push(b);
    const [before, during, after] = [await buildCompany(), await buildCompany(), await buildCompany()];

    // 1. Redis up: the two gateways share one budget, counted in Redis.
    for (const gw of [a, b, a, b]) expect((await widget(before, gw)).status).to.equal(200);
    expectLimited(await widget(before, a), 'widget_burst');
    expectLimited(await widget(before, b), 'widget_burst');
    const burstKey = `${prefix}:widget_burst:${before.apiKeyId}`;
    expect(await redis.keys(`${prefix}:*`)).to.include(burstKey);
    expect(Number(await redis.withClient((c) => c.get(burstKey)))).to.be.at.least(LIMIT + 1);
    expect(await redis.withClient((c) => c.pttl(burstKey))).to.be.within(1, 60_000);

    // 2. Redis killed while both gateways are serving.
    const outageMark = system().logs.lines.length;
    await redis.kill('SIGKILL');
    expect(redis.running).to.equal(false);

    //    Still served (2xx, without waiting on Redis), and limited by each process on its own: `b` still has its
    //    whole budget after `a` spent its own.
    for (const gw of [a, b]) {
      for (let i = 1; i <= LIMIT; i++) {
        const res = await widget(during, gw);
        expect(res.status, `${gw === a ? 'a' : 'b'} request ${i} during the outage: ${JSON.stringify(res.body)}`).to.equal(200);
        expect(res.ms, 'a request during the outage does not wait on Redis').to.be.below(2000);
      }
      const over = await widget(during, gw);
      expectLimited(over, 'widget_burst');
      expect(over.ms).to.be.below(2000);
    }
    //    A key already spent in Redis before the outage starts afresh in each process's memory: served.
    expect((await widget(before, a)).status).to.equal(200);
    //    Other routes are served too.
    expect((await get('/api/v1/locations/', { token: during.token, baseUrl: a.url })).status).to.equal(200);

    //    The outage is logged once per gateway, not once per request.
    const outageLines = await waitForLines(outageMark, UNREACHABLE, 2, 2000);
    expect(outageLines, 'one outage line per gateway').to.have.length(2);
    for (const line of outageLines) expect(JSON.parse(line)).to.include({ service: 'gateway' });

    // 3. Redis back on the same port (empty: no persistence). Both gateways reconnect on their own.
    const backMark = system().logs.lines.length;
    await redis.start();
    const backLines = await waitForLines(backMark, BACK, 2, 10_000);
    expect(backLines, 'each gateway reports that Redis is reachable again').to.have.length(2);
    expect(linesSince(backMark, UNREACHABLE), 'no new outage line once Redis is back').to.deep.equal([]);

    //    Shared counters again: a budget spent across both gateways, limited on both, counted in Redis.
    for (const gw of [a, b, a, b]) expect((await widget(after, gw)).status).to.equal(200);
    expectLimited(await widget(after, a), 'widget_burst');
    expectLimited(await widget(after, b), 'widget_burst');
    const afterKey = `${prefix}:widget_burst:${after.apiKeyId}`;
    expect(await redis.keys(`${prefix}:*`)).to.include(afterKey);
    expect(Number(await redis.withClient((c) => c.get(afterKey)))).to.be.at.least(LIMIT + 1);
  });
});
