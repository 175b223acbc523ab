/**
 * Counters for every scope of limits.ts. With REDIS_URL they live in Redis (shared by every gateway replica)
 * with an in-memory insurance limiter: while Redis is unreachable each process limits on its own, and that
 * is logged once per outage rather than failing requests. Without REDIS_URL (standalone) they are in memory.
 * Over a limit: 429 `rate_limited` with `Retry-After` and `retry_after`; no RateLimit headers are ever sent.
 */
import type { Request, RequestHandler } from 'express';
import IORedis, { type Redis } from 'ioredis';
import { RateLimiterAbstract, RateLimiterMemory, RateLimiterRedis, RateLimiterRes } from 'rate-limiter-flexible';
import { AppError, Logger } from '@pi/common';
import { GIVEN_BACK_ON_FAILURE, RATE_LIMIT_SCOPES, RateLimit, RateLimitScope } from './limits';

export class RateLimitedError extends AppError {
  constructor(
    scope: RateLimitScope,
    limit: RateLimit,
    readonly retryAfter: number,
  ) {
    super(
      429,
      'rate_limited',
      `Rate limit exceeded. Retry after ${retryAfter} seconds.`,
      { scope, limit: limit.points, window_seconds: limit.durationSeconds },
      {
        retry_after: retryAfter,
      },
    );
  }
}

export interface RateLimiterOptions {
  enabled: boolean;
  limits: Record<RateLimitScope, RateLimit>;
  redisUrl?: string;
  keyPrefix: string;
  logger: Logger;
}

export class RateLimits {
  private readonly limiters = new Map<RateLimitScope, RateLimiterAbstract>();
  private readonly redis?: Redis;
  private degraded = false;
  /** Settles on the first connection outcome, so the first requests after start are counted in Redis. */
  private firstConnection: Promise<void> = Promise.resolve();

  constructor(private readonly options: RateLimiterOptions) {
    if (!options.enabled) return;
    const { logger } = options;
    if (options.redisUrl) {
      const redis = new IORedis(options.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 1, connectTimeout: 2000 });
      redis.on('error', (err: Error) => this.markDegraded(err));
      redis.on('ready', () => {
        if (this.degraded) logger.info('rate limits: Redis is reachable again; counters are shared');
        this.degraded = false;
      });
      this.redis = redis;
      this.firstConnection = new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, 2000);
        timer.unref();
        const settle = () => {
          clearTimeout(timer);
          resolve();
        };
        redis.once('ready', settle);
        redis.once('error', settle);
      });
    }
    for (const scope of RATE_LIMIT_SCOPES) {
      const { points, durationSeconds: duration } = options.limits[scope];
      const keyPrefix = `${options.keyPrefix}:${scope}`;
      const memory = new RateLimiterMemory({ points, duration, keyPrefix });
      this.limiters.set(
        scope,
        this.redis
          ? new RateLimiterRedis({ storeClient: this.redis, points, duration, keyPrefix, insuranceLimiter: memory, rejectIfRedisNotReady: true })
          : memory,
      );
    }
  }

  get enabled(): boolean {
    return this.options.enabled;
  }

  private markDegraded(err: Error) {
    if (this.degraded) return;
    this.degraded = true;
    this.options.logger.warn({ err: { message: err.message } }, 'rate limits: Redis unreachable; limiting per process until it is back');
  }

  /** Counts one request against `scope` for `key`; rejects with RateLimitedError when over the limit. */
  async consume(scope: RateLimitScope, key: string): Promise<void> {
    const limiter = this.limiters.get(scope);
    if (!limiter) return;
    await this.firstConnection;
    if (this.redis && this.redis.status !== 'ready') this.markDegraded(new Error(`Redis connection is ${this.redis.status}`));
    try {
      await limiter.consume(key);
    } catch (rejection) {
      if (rejection instanceof RateLimiterRes) {
        throw new RateLimitedError(scope, this.options.limits[scope], Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)));
      }
      // A store failure the insurance limiter did not absorb: serve the request rather than fail it.
      this.markDegraded(rejection as Error);
    }
  }

  /** Gives back one point of `scope` for `key` (a store that cannot be reached keeps it: nothing to do). */
  async giveBack(scope: RateLimitScope, key: string): Promise<void> {
    await this.limiters
      .get(scope)
      ?.reward(key, 1)
      .catch((err: Error) => this.markDegraded(err));
  }

  /**
   * Counts against each scope in turn; stops at the first one over its limit. The scopes of
   * GIVEN_BACK_ON_FAILURE get their point back when the answer turns out to be a 5xx.
   */
  middleware(plan: (req: Request) => Array<[RateLimitScope, string | undefined]>): RequestHandler {
    return (req, res, next) => {
      if (!this.enabled) return next();
      const steps = plan(req).filter((step): step is [RateLimitScope, string] => Boolean(step[1]));
      this.check(steps).then(
        () => {
          const refundable = steps.filter(([scope]) => GIVEN_BACK_ON_FAILURE.has(scope));
          if (refundable.length) {
            res.once('finish', () => {
              if (res.statusCode >= 500) for (const [scope, key] of refundable) void this.giveBack(scope, key);
            });
          }
          next();
        },
        (err: unknown) => {
          if (err instanceof RateLimitedError) res.set('Retry-After', String(err.retryAfter));
          next(err);
        },
      );
    };
  }

  private async check(steps: Array<[RateLimitScope, string]>) {
    for (const [scope, key] of steps) await this.consume(scope, key);
  }

  close(): Promise<void> {
    if (this.redis) this.redis.disconnect();
    return Promise.resolve();
  }
}

/** The client address: the socket peer, or X-Forwarded-For when the peer is a trusted proxy (`trust proxy`). */
export function clientAddress(req: Request): string {
  return req.ip ?? req.socket.remoteAddress ?? 'unknown';
}
