/**
 * Email channels through a real SMTP server started here (smtp-server on 127.0.0.1, plain connection:
 * EMAIL_USE_TLS false), and the console backend that sends nothing.
 */
import { expect } from 'chai';
import { SMTPServer, type SMTPServerOptions } from 'smtp-server';
import { createLogger } from '@pi/common';
import { DeliverySettings, attemptDelivery } from '@pi/notify';
import { CLOSED_PORT } from '../../support/closed-port';
import { system } from '../../support/hooks';
import { LogCapture } from '../../support/system';
import {
  ParsedMail,
  Tenant,
  TestChannel,
  attemptsOf,
  buildTenant,
  createChannel,
  createDelivery,
  deliverySettings,
  dropChannels,
  parseMail,
  reload,
} from './fixtures';

interface ReceivedMail extends ParsedMail {
  from: string;
  to: string[];
  user?: string;
}

interface TestSmtp {
  port: number;
  mails: ReceivedMail[];
  close(): Promise<void>;
}

async function startSmtp(options: Partial<SMTPServerOptions> = {}): Promise<TestSmtp> {
  const mails: ReceivedMail[] = [];
  const server = new SMTPServer({
    authOptional: true,
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = [];
      stream.on('data', (c: Buffer) => chunks.push(c));
      stream.on('end', () => {
        mails.push({
          ...parseMail(Buffer.concat(chunks).toString('utf8')),
          from: session.envelope.mailFrom ? session.envelope.mailFrom.address : '',
          to: session.envelope.rcptTo.map((r) => r.address),
          user: session.user as string | undefined,
        });
        callback();
      });
    },
    ...options,
  });
  server.on('error', () => {});
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const port = (server.server.address() as { port: number }).port;
  return { port, mails, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('notification delivery: email', () => {
  let tenant: Tenant;
  let smtp: TestSmtp;
  let settings: DeliverySettings;
  const channels: TestChannel[] = [];
  const recipients = ['ops@example.com', 'lead@example.com'];
  const sequelize = () => system().db.sequelize;
  const emailChannel = async (s: DeliverySettings) => {
    const c = await createChannel(tenant, s, { kind: 'EMAIL', recipients });
    channels.push(c);
    return c;
  };

  before(async () => {
    tenant = await buildTenant();
    // STARTTLS stays advertised: with EMAIL_USE_TLS false the client must not try it (it would fail on the
    // server's self-signed certificate).
    smtp = await startSmtp();
    settings = deliverySettings({ EMAIL_BACKEND: 'smtp', EMAIL_HOST: '127.0.0.1', EMAIL_PORT: smtp.port, EMAIL_USE_TLS: false });
  });
  beforeEach(() => {
    smtp.mails.length = 0;
  });
  afterEach(() => dropChannels(channels));
  after(() => smtp?.close());

  it('sends the alert to every recipient, with the subject, a text body and an HTML body naming product, rule, severity and message', async () => {
    const c = await emailChannel(settings);
    const now = new Date();
    const { delivery, event, rule } = await createDelivery(tenant, c, now);

    expect(await attemptDelivery(sequelize(), delivery.id, settings, now)).to.equal('delivered');

    expect(smtp.mails).to.have.length(1);
    const mail = smtp.mails[0];
    expect(mail.from).to.equal('alerts@inventory.test');
    expect(mail.to).to.deep.equal(recipients);
    const label = `${tenant.product.name} (${tenant.product.sku})`;
    expect(mail.headers.subject).to.equal(`[CRITICAL] Low stock: ${label}`);
    expect(mail.headers.from).to.include('alerts@inventory.test');
    expect(mail.headers.to).to.include('ops@example.com').and.include('lead@example.com');
    for (const [part, content] of [
      ['text', mail.text],
      ['html', mail.html],
    ] as const) {
      expect(content, `${part} body`).to.be.a('string');
      expect(content).to.include(label);
      expect(content).to.include(rule.id);
      expect(content).to.include('CRITICAL');
      expect(content).to.include(event.id);
    }
    expect(mail.text).to.include(event.message);
    expect(mail.html).to.include('<table').and.include(event.message.replace(/&/g, '&amp;'));

    const row = await reload(delivery);
    expect(row).to.deep.include({ status: 'DELIVERED', attempts: 1, lastError: null, lastStatusCode: null });
    const [a] = await attemptsOf(delivery);
    expect(a).to.deep.include({ number: 1, ok: true, error: null });
    expect(a.responseExcerpt).to.match(/^250 /);
  });

  it('logs in with EMAIL_HOST_USER / EMAIL_HOST_PASSWORD, and a refused login retries without the password stored or logged', async () => {
    const password = `smtp-pw-${Date.now()}-secret`;
    const authSmtp = await startSmtp({
      authOptional: false,
      allowInsecureAuth: true,
      onAuth(auth, _session, callback) {
        if (auth.username === 'notifier' && auth.password === password) return callback(null, { user: 'notifier' });
        callback(new Error(`Invalid username or password (${auth.password})`));
      },
    });
    try {
      const good = { ...settings, EMAIL_PORT: authSmtp.port, EMAIL_HOST_USER: 'notifier', EMAIL_HOST_PASSWORD: password };
      const c = await emailChannel(good);
      const first = await createDelivery(tenant, c);
      expect(await attemptDelivery(sequelize(), first.delivery.id, good, new Date())).to.equal('delivered');
      expect(authSmtp.mails).to.have.length(1);
      expect(authSmtp.mails[0].user).to.equal('notifier');

      // The server echoes the password it was given in its refusal; the stored error must not keep it.
      const wrongPassword = `${password}-wrong`;
      const bad = { ...good, EMAIL_HOST_PASSWORD: wrongPassword };
      const logs = new LogCapture();
      const second = await createDelivery(tenant, c);
      const outcome = await attemptDelivery(sequelize(), second.delivery.id, bad, new Date(), { logger: createLogger('notify-test', 'debug', logs) });
      expect(outcome).to.equal('retrying');
      expect(authSmtp.mails).to.have.length(1);
      const [a] = await attemptsOf(second.delivery);
      expect(a.ok).to.equal(false);
      expect(a.error).to.match(/^email not sent: .*(Invalid|auth)/i);
      for (const text of [a.error!, (await reload(second.delivery)).lastError!, logs.text()]) {
        expect(text.includes(wrongPassword), 'the SMTP password was kept').to.equal(false);
        expect(text.includes(password), 'the SMTP password was kept').to.equal(false);
      }
    } finally {
      await authSmtp.close();
    }
  });

  it('fails the attempt and retries on schedule when the SMTP server cannot be reached', async () => {
    const closed = { ...settings, EMAIL_PORT: CLOSED_PORT };
    const c = await emailChannel(closed);
    const now = new Date();
    const { delivery } = await createDelivery(tenant, c, now);

    expect(await attemptDelivery(sequelize(), delivery.id, closed, now)).to.equal('retrying');
    const row = await reload(delivery);
    expect(row).to.deep.include({ status: 'RETRYING', attempts: 1 });
    expect(row.lastError).to.match(/^email not sent: .*ECONNREFUSED/);
    expect(row.nextAttemptAt.getTime()).to.equal(now.getTime() + 2 * 60_000);
  });

  it('with EMAIL_BACKEND=console, logs the message and sends nothing', async () => {
    const consoleSettings = { ...settings, EMAIL_BACKEND: 'console' as const, EMAIL_HOST_USER: 'notifier', EMAIL_HOST_PASSWORD: 'console-pw-never-logged' };
    const c = await emailChannel(consoleSettings);
    const { delivery, event } = await createDelivery(tenant, c);
    const logs = new LogCapture();

    const outcome = await attemptDelivery(sequelize(), delivery.id, consoleSettings, new Date(), { logger: createLogger('notify-test', 'info', logs) });
    expect(outcome).to.equal('delivered');
    expect(smtp.mails).to.have.length(0);

    const line = logs.lines.map((l) => JSON.parse(l)).find((l) => l.email);
    expect(line, logs.text()).to.not.equal(undefined);
    expect(line.msg).to.equal('email not sent (EMAIL_BACKEND=console)');
    expect(line.email).to.deep.include({
      from: 'alerts@inventory.test',
      to: recipients,
      subject: `[CRITICAL] Low stock: ${tenant.product.name} (${tenant.product.sku})`,
    });
    expect(line.email.text).to.include(event.message);
    expect(logs.text()).to.not.include('console-pw-never-logged');
    expect(logs.text().includes(c.secret)).to.equal(false);
    const [a] = await attemptsOf(delivery);
    expect(a).to.deep.include({ ok: true, responseExcerpt: 'logged by the console email backend, not sent' });
  });
});
