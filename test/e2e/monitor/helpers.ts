/**
 * Builders for the monitor suites. Events are written straight into the event log
 * (check_rules opens them in production); everything else goes through the public API.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { EventLogEntry, NotificationAttempt, NotificationDelivery, closeServer, createLogger, createServiceApp, listen, pathsOf } from '@pi/common';
import { DeliveryQueue } from '@pi/notify';
import { loadMonitorSettings, monitorApi, monitorRoutes } from '@pi/monitor';
import { ApiResponse, post } from '../../support/api';
import { TestCompany, TestProduct } from '../../support/builders';
import { system } from '../../support/hooks';
import { REDIS_URL } from '../../support/redis';

/** An OPEN THRESHOLD event of `product` (or `overrides`), as check_rules would open it. */
export async function buildEvent(
  company: TestCompany,
  product: TestProduct,
  overrides: Partial<Pick<EventLogEntry, 'status' | 'severity' | 'triggerType' | 'ruleId' | 'batchId' | 'message' | 'createdAt'>> = {},
) {
  const event = await EventLogEntry.create({
    companyId: company.id,
    ruleId: randomUUID(),
    ruleSource: 'rule',
    productId: product.id,
    batchId: null,
    triggerType: 'THRESHOLD',
    severity: 'WARNING',
    message: `Low stock: ${product.name} has 2, below 5`,
    details: { quantity: 2, min: 5 },
    status: 'OPEN',
    ...overrides,
  });
  return event;
}

export interface ChannelBody {
  name?: string;
  kind?: 'WEBHOOK' | 'EMAIL';
  url?: string;
  recipients?: string[];
  events?: string[];
  max_attempts?: number;
  is_active?: boolean;
}

/** A channel through POST /api/v1/notification-channels/ (a WEBHOOK to `url` unless told otherwise). */
export async function buildChannel(company: TestCompany, body: ChannelBody = {}) {
  const kind = body.kind ?? 'WEBHOOK';
  const res = await post(
    '/api/v1/notification-channels/',
    {
      name: 'Ops',
      kind,
      ...(kind === 'WEBHOOK' ? { url: 'http://127.0.0.1:9/hook' } : { recipients: ['ops@example.com'] }),
      events: ['THRESHOLD', 'DATE_OFFSET', 'TEST'],
      ...body,
    },
    { token: company.token },
  );
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body as { id: string; secret: string; url: string | null; [key: string]: unknown };
}

/** A delivery of `channelId` with `attempts` recorded attempts, written straight into the outbox. */
export async function buildDelivery(company: TestCompany, channelId: string, attempts: Array<{ ok: boolean; statusCode: number | null }> = []) {
  const delivery = await NotificationDelivery.create({
    companyId: company.id,
    channelId,
    eventId: null,
    eventType: 'TEST',
    payload: JSON.stringify({ event_id: randomUUID(), type: 'TEST' }),
    status: attempts.some((a) => a.ok) ? 'DELIVERED' : attempts.length ? 'RETRYING' : 'PENDING',
    attempts: attempts.length,
    maxAttempts: 5,
    nextAttemptAt: new Date(),
  });
  for (const [index, attempt] of attempts.entries()) {
    await NotificationAttempt.create({
      companyId: company.id,
      deliveryId: delivery.id,
      number: index + 1,
      status: attempt.ok ? 'SUCCEEDED' : 'FAILED',
      ok: attempt.ok,
      statusCode: attempt.statusCode,
      error: attempt.ok ? null : 'HTTP 500',
      responseExcerpt: attempt.ok ? 'ok' : 'boom',
      durationMs: 12,
      startedAt: new Date(),
      finishedAt: new Date(),
    });
  }
  return delivery;
}

/** 409 invalid_transition with the allowed next states at the top level and in details. */
export function expectInvalidTransition(res: ApiResponse, allowed: string[]) {
  expect(res.status, JSON.stringify(res.body)).to.equal(409);
  expect(res.body).to.have.all.keys('error', 'code', 'details', 'allowed_transitions', 'request_id');
  expect(res.body.code).to.equal('invalid_transition');
  expect(res.body.error).to.be.a('string').and.not.empty;
  expect(res.body.request_id).to.equal(res.headers.get('x-request-id'));
  expect(res.body.allowed_transitions).to.deep.equal(allowed);
  expect(res.body.details.allowed_transitions).to.deep.equal(allowed);
}

/** A monitor service of its own with a delivery queue (on `REDIS_URL`), and a gateway in front of it. */
export interface QueuedMonitor {
  queue: DeliveryQueue;
  queueName: string;
  gatewayUrl: string;
  /** Stops the gateway and the monitor, and empties and closes the queue. */
  close(): Promise<void>;
}

/** The test system's monitor answers without a queue; this one enqueues, on a queue named `<prefix>-<uuid>`. */
export async function startQueuedMonitor(prefix: string, settings: Record<string, string> = {}): Promise<QueuedMonitor> {
  const queueName = `${prefix}-${randomUUID()}`;
  const queue = new DeliveryQueue(REDIS_URL, { name: queueName, connectTimeoutMs: 2000 });
  const s = system();
  const config = {
    PUBLIC_BASE_URL: 'http://localhost:8000',
    ...loadMonitorSettings({ NODE_ENV: 'test', SECRET_ENCRYPTION_KEY: s.secretEncryptionKey, REDIS_URL, DELIVERY_QUEUE_NAME: queueName, ...settings }),
  };
  const logger = createLogger('monitor', 'info', s.logs);
  const server = await listen(
    createServiceApp(
      { logger, db: s.db, internalJwtSecret: s.internalJwtSecret, paths: pathsOf(monitorApi) },
      monitorRoutes({ db: s.db, config, logger, queue }),
    ),
    0,
    '127.0.0.1',
  );
  const gateway = await s.startGateway({ MONITOR_URL: `http://127.0.0.1:${(server.address() as { port: number }).port}` });
  return {
    queue,
    queueName,
    gatewayUrl: gateway.url,
    close: async () => {
      await gateway.close();
      await closeServer(server, 2000);
      await queue.queue.obliterate({ force: true }).catch(() => {});
      await queue.close();
    },
  };
}
