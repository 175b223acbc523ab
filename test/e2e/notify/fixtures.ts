/**
 * What the notification suites share: delivery settings with a fresh encryption key, a company and product
 * built once per suite, channels, events and deliveries created directly through the models (the way
 * check_rules creates them), Redis availability, and a small MIME reader for the SMTP suite. The webhook
 * receiver is in test/support/receiver.ts.
 */
import { randomBytes } from 'node:crypto';
import { EventLogEntry, MonitoringRule, NotificationAttempt, NotificationChannel, NotificationDelivery } from '@pi/common';
import { CHANNEL_DEFAULTS, DeliverySettings, buildEventBody, createDeliveries, encryptSecret, generateChannelSecret, parseEncryptionKey } from '@pi/notify';
import { buildCompany, buildProduct, type TestCompany, type TestProduct } from '../../support/builders';
import { system } from '../../support/hooks';
export { REDIS_URL, redisAvailable, requireRedis } from '../../support/redis';

export function deliverySettings(overrides: Partial<DeliverySettings> = {}): DeliverySettings {
  return {
    SECRET_ENCRYPTION_KEY: randomBytes(32).toString('base64'),
    ALLOW_LOOPBACK_WEBHOOKS: true,
    DEBUG: false,
    EMAIL_BACKEND: 'console',
    EMAIL_HOST: '127.0.0.1',
    EMAIL_PORT: 2525,
    EMAIL_HOST_USER: '',
    EMAIL_HOST_PASSWORD: '',
    EMAIL_USE_TLS: false,
    DEFAULT_FROM_EMAIL: 'alerts@inventory.test',
    ...CHANNEL_DEFAULTS,
    ...overrides,
  };
}

// ---- data --------------------------------------------------------------------------------------------------

export interface Tenant {
  company: TestCompany;
  product: TestProduct;
}

/** A company and a product, through the API (the slow part: build once per suite). */
export async function buildTenant(): Promise<Tenant> {
  const company = await buildCompany();
  const product = await buildProduct(company, { name: 'Blue widget', sku: `SKU-${randomBytes(3).toString('hex')}` });
  return { company, product };
}

export interface ChannelSpec {
  kind?: 'WEBHOOK' | 'EMAIL';
  url?: string;
  recipients?: string[];
  events?: Array<'THRESHOLD' | 'DATE_OFFSET' | 'TEST'>;
  maxAttempts?: number;
  isActive?: boolean;
}

export interface TestChannel {
  row: NotificationChannel;
  /** The plain signing secret (what the company's admins see). */
  secret: string;
}

export async function createChannel(tenant: Tenant, settings: DeliverySettings, spec: ChannelSpec = {}): Promise<TestChannel> {
  const secret = generateChannelSecret();
  const kind = spec.kind ?? 'WEBHOOK';
  const row = await NotificationChannel.create({
    companyId: tenant.company.id,
    name: `channel ${randomBytes(3).toString('hex')}`,
    kind,
    url: kind === 'WEBHOOK' ? spec.url : null,
    recipients: kind === 'EMAIL' ? spec.recipients : null,
    events: spec.events ?? ['THRESHOLD', 'DATE_OFFSET', 'TEST'],
    secretEncrypted: encryptSecret(secret, parseEncryptionKey(settings.SECRET_ENCRYPTION_KEY)),
    maxAttempts: spec.maxAttempts ?? 5,
    isActive: spec.isActive ?? true,
  });
  return { row, secret };
}

export interface TestEvent {
  event: EventLogEntry;
  rule: MonitoringRule;
  body: string;
}

/** A THRESHOLD rule and the OPEN event it raised, with the body check_rules would build for it. */
export async function createEvent(tenant: Tenant, createdAt = new Date()): Promise<TestEvent> {
  const { company, product } = tenant;
  const rule = await MonitoringRule.create({
    companyId: company.id,
    productId: product.id,
    name: 'Minimum stock',
    triggerType: 'THRESHOLD',
    conditionConfig: { min: 5 },
    severity: 'CRITICAL',
    isActive: true,
  });
  const message = `Low stock: ${product.name} (${product.sku}) has 2 pcs, below the minimum of 5 pcs.`;
  const event = await EventLogEntry.create({
    companyId: company.id,
    ruleId: rule.id,
    ruleSource: 'rule',
    productId: product.id,
    batchId: null,
    triggerType: 'THRESHOLD',
    severity: 'CRITICAL',
    message,
    details: { quantity: 2, min: 5 },
    status: 'OPEN',
  });
  const body = buildEventBody({
    eventId: event.id,
    type: 'THRESHOLD',
    companyId: company.id,
    product: { id: product.id, sku: product.sku, name: product.name },
    message,
    severity: 'CRITICAL',
    ruleId: rule.id,
    batchId: null,
    status: 'OPEN',
    createdAt,
  });
  return { event, rule, body };
}

/** One event and its delivery to `channel`, created in one transaction like check_rules does. */
export async function createDelivery(tenant: Tenant, channel: TestChannel, now = new Date()): Promise<{ delivery: NotificationDelivery } & TestEvent> {
  const created = await createEvent(tenant, now);
  const sequelize = system().db.sequelize;
  const [delivery] = await sequelize.transaction((t) =>
    createDeliveries(sequelize, t, {
      companyId: tenant.company.id,
      eventId: created.event.id,
      eventType: 'THRESHOLD',
      body: created.body,
      channels: [channel.row],
      now,
    }),
  );
  if (!delivery) throw new Error('no delivery was created');
  return { delivery, ...created };
}

export async function reload(delivery: NotificationDelivery | string): Promise<NotificationDelivery> {
  const id = typeof delivery === 'string' ? delivery : delivery.id;
  const row = await NotificationDelivery.findByPk(id);
  if (!row) throw new Error(`delivery ${id} is gone`);
  return row;
}

export async function attemptsOf(delivery: NotificationDelivery | string): Promise<NotificationAttempt[]> {
  const id = typeof delivery === 'string' ? delivery : delivery.id;
  return NotificationAttempt.findAll({ where: { deliveryId: id }, order: [['number', 'ASC']] });
}

/** Removes the channels a suite made (their deliveries and attempts go with them), so no other suite's run finds them due. */
export async function dropChannels(channels: TestChannel[]): Promise<void> {
  for (const c of channels.splice(0)) await NotificationChannel.destroy({ where: { id: c.row.id } });
}

// ---- Redis ---------------------------------------------------------------------------------------------------

export const uniqueQueue = () => ({ name: `deliveries-test-${randomBytes(4).toString('hex')}`, prefix: `pi-test-${randomBytes(4).toString('hex')}` });

// ---- MIME (enough for the messages nodemailer writes) ----------------------------------------------------------

export interface ParsedMail {
  headers: Record<string, string>;
  text?: string;
  html?: string;
}

function splitHeaders(raw: string): { headers: Record<string, string>; body: string } {
  const at = raw.indexOf('\r\n\r\n');
  const head = at === -1 ? raw : raw.slice(0, at);
  const body = at === -1 ? '' : raw.slice(at + 4);
  const headers: Record<string, string> = {};
  for (const line of head.replace(/\r\n[ \t]+/g, ' ').split('\r\n')) {
    const colon = line.indexOf(':');
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
  }
  return { headers, body };
}

function decodeBody(body: string, encoding = '7bit'): string {
  switch (encoding.toLowerCase()) {
    case 'base64':
      return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8');
    case 'quoted-printable': {
      const soft = body.replace(/=\r?\n/g, '');
      const bytes: number[] = [];
      for (let i = 0; i < soft.length; i++) {
        const hex = soft.slice(i + 1, i + 3);
        if (soft[i] === '=' && /^[0-9A-F]{2}$/i.test(hex)) {
          bytes.push(parseInt(hex, 16));
          i += 2;
        } else {
          bytes.push(...Buffer.from(soft[i], 'utf8'));
        }
      }
      return Buffer.from(bytes).toString('utf8');
    }
    default:
      return body;
  }
}

/** Decodes a message of one text part, one HTML part, or a multipart/alternative of both. */
export function parseMail(raw: string): ParsedMail {
  const { headers, body } = splitHeaders(raw);
  const result: ParsedMail = { headers };
  const type = headers['content-type'] ?? 'text/plain';
  const boundary = /boundary="?([^";]+)"?/i.exec(type)?.[1];
  const parts = boundary
    ? body
        .split(`--${boundary}`)
        .slice(1)
        .filter((p) => !p.startsWith('--'))
        .map((p) => splitHeaders(p.replace(/^\r\n/, '').replace(/\r\n$/, '')))
    : [{ headers, body }];
  for (const part of parts) {
    const decoded = decodeBody(part.body, part.headers['content-transfer-encoding']);
    if ((part.headers['content-type'] ?? '').startsWith('text/html')) result.html = decoded;
    else if ((part.headers['content-type'] ?? 'text/plain').startsWith('text/plain')) result.text = decoded;
  }
  return result;
}
