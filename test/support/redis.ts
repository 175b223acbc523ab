/** The Redis the Redis suites use, and how they find out it is missing (CI may have none). */
import IORedis from 'ioredis';
import { skipLoudly } from './skip';

export const REDIS_URL = process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379';

export async function redisAvailable(url = REDIS_URL): Promise<boolean> {
  const client = new IORedis(url, { lazyConnect: true, enableOfflineQueue: false, connectTimeout: 1000, maxRetriesPerRequest: 0, retryStrategy: () => null });
  client.on('error', () => {});
  try {
    await client.connect();
    return (await client.ping()) === 'PONG';
  } catch {
    return false;
  } finally {
    client.disconnect();
  }
}

/** In a suite's `before`: skips the suite, loudly, when Redis is not there (CI may have none). */
export async function requireRedis(ctx: Mocha.Context, suite: string): Promise<void> {
  if (!(await redisAvailable())) skipLoudly(ctx, `REDIS IS NOT REACHABLE at ${REDIS_URL}: SKIPPING "${suite}"`);
}
