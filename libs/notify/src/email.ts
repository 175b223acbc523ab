/**
 * Email notifications: the message rendered from the notification body, and the transport from settings
 * (docs/operations/configuration.md, the EMAIL_* settings).
 *
 * - `EMAIL_BACKEND=console` sends nothing: it logs the message (from, to, subject, text) as one log line, the
 *   way a development console backend does. Nothing in it is secret (the body never holds one, and the SMTP
 *   settings are not logged).
 * - `EMAIL_BACKEND=smtp` connects to EMAIL_HOST:EMAIL_PORT. EMAIL_USE_TLS means STARTTLS, required (`secure`
 *   false + `requireTLS`), as the setting means in the framework these names come from; without it the
 *   connection stays plain (`ignoreTLS`). No authentication when EMAIL_HOST_USER is empty.
 *
 * Subjects read `[<SEVERITY>] <headline>: <product name> (<sku>)`, where the headline is the leading
 * "Xxx:" of the event message when it has one (the monitor writes "Low stock:", "Overstock:", "Expiring
 * batch:", "Expired batch:"), else "Stock threshold" or "Expiring batch" by event type; a TEST event's subject
 * is "Test notification". Every value in the HTML body is escaped.
 */
import { performance } from 'node:perf_hooks';
import type NodemailerModule from 'nodemailer';
import type { Transporter } from 'nodemailer';
import type SMTPTransport from 'nodemailer/lib/smtp-transport';
import { createLogger, type Logger } from '@pi/common/core';
import type { EventBody } from './payload';
import { redactSecrets } from './redact';
import type { DeliverySettings } from './settings';

export type EmailSettings = Pick<
  DeliverySettings,
  'EMAIL_BACKEND' | 'EMAIL_HOST' | 'EMAIL_PORT' | 'EMAIL_HOST_USER' | 'EMAIL_HOST_PASSWORD' | 'EMAIL_USE_TLS' | 'DEFAULT_FROM_EMAIL'
>;

export interface RenderedEmail {
  subject: string;
  text: string;
  html: string;
}

export interface EmailMessage extends RenderedEmail {
  to: string[];
}

/** The outcome of one send, shaped like a webhook attempt's. Never throws. */
export interface EmailResult {
  ok: boolean;
  error?: string;
  /** The server's answer (e.g. `250 2.0.0 OK queued`), or what the console backend did. */
  responseExcerpt?: string;
  durationMs: number;
}

export interface Mailer {
  readonly backend: 'console' | 'smtp';
  send(message: EmailMessage): Promise<EmailResult>;
  close(): void;
}

const SUBJECT_MAX = 200;
const DEFAULT_HEADLINES: Record<EventBody['type'], string> = {
  THRESHOLD: 'Stock threshold',
  DATE_OFFSET: 'Expiring batch',
  TEST: 'Test notification',
};

/** One line, no control characters (a header must not break), at most `max` characters. */
function oneLine(value: string | null | undefined, max = SUBJECT_MAX): string {
  const text = String(value ?? '')
    // eslint-disable-next-line no-control-regex
    .replace(/[\u0000-\u001f\u007f]+/g, ' ')
    .replace(/\s+/g, ' ')
    .trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export function escapeHtml(value: string | null | undefined): string {
  return String(value ?? '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#39;');
}

function headline(body: EventBody): string {
  if (body.type === 'TEST') return DEFAULT_HEADLINES.TEST;
  const lead = /^([A-Z][A-Za-z ]{1,40}):\s/.exec(body.payload.message ?? '');
  return lead ? lead[1] : DEFAULT_HEADLINES[body.type];
}

function productLabel(body: EventBody): string {
  const { name, sku } = body.product;
  return sku ? `${name} (${sku})` : name;
}

/** Subject, plain text and HTML of the email for one notification body. */
export function renderEventEmail(body: EventBody): RenderedEmail {
  const severity = (body.payload.severity || 'INFO').toUpperCase();
  const subject = body.type === 'TEST' ? oneLine(`[${severity}] Test notification`) : oneLine(`[${severity}] ${headline(body)}: ${productLabel(body)}`);

  const rows: Array<[string, string | null]> = [
    ['Product', body.type === 'TEST' ? null : productLabel(body)],
    ['Product id', body.product.id],
    ['Rule', body.payload.rule_id],
    ['Batch', body.payload.batch_id],
    ['Severity', severity],
    ['Status', body.payload.status],
    ['Event type', body.type],
    ['Event id', body.event_id],
    ['Raised at', body.created_at],
    ['Company', body.company_id],
  ];
  const shown = rows.filter((r): r is [string, string] => r[1] !== null && r[1] !== undefined && r[1] !== '');
  const width = Math.max(...shown.map(([label]) => label.length)) + 2;

  const text = [
    body.payload.message,
    '',
    ...shown.map(([label, value]) => `${`${label}:`.padEnd(width)}${value}`),
    '',
    '-- ',
    'Sent by the inventory monitoring service for a notification channel of your company.',
    '',
  ].join('\n');

  const html = [
    '<!DOCTYPE html>',
    '<html><head><meta charset="utf-8"><title>' + escapeHtml(subject) + '</title></head>',
    '<body style="font-family: sans-serif; color: #222;">',
    `<h2 style="margin: 0 0 12px;">${escapeHtml(subject)}</h2>`,
    `<p style="font-size: 15px;">${escapeHtml(body.payload.message)}</p>`,
    '<table style="border-collapse: collapse; font-size: 14px;">',
    ...shown.map(
      ([label, value]) =>
        `<tr><th style="text-align: left; padding: 2px 12px 2px 0; color: #555;">${escapeHtml(label)}</th><td style="padding: 2px 0;">${escapeHtml(value)}</td></tr>`,
    ),
    '</table>',
    '<p style="color: #777; font-size: 12px;">Sent by the inventory monitoring service for a notification channel of your company.</p>',
    '</body></html>',
    '',
  ].join('\n');

  return { subject, text, html };
}

/** A mailer for the configured backend. `logger` receives the console backend's messages (default: stdout). */
export function createMailer(settings: EmailSettings, opts: { logger?: Logger } = {}): Mailer {
  if (settings.EMAIL_BACKEND === 'console') {
    const logger = opts.logger ?? createLogger('email');
    return {
      backend: 'console',
      send: (message) => {
        const started = performance.now();
        logger.info(
          { email: { from: settings.DEFAULT_FROM_EMAIL, to: message.to, subject: message.subject, text: message.text } },
          'email not sent (EMAIL_BACKEND=console)',
        );
        return Promise.resolve({
          ok: true,
          responseExcerpt: 'logged by the console email backend, not sent',
          durationMs: Math.round(performance.now() - started),
        });
      },
      close: () => {},
    };
  }

  const options: SMTPTransport.Options = {
    host: settings.EMAIL_HOST,
    port: settings.EMAIL_PORT,
    secure: false,
    requireTLS: settings.EMAIL_USE_TLS,
    ignoreTLS: !settings.EMAIL_USE_TLS,
    connectionTimeout: 10_000,
    greetingTimeout: 10_000,
    socketTimeout: 20_000,
  };
  if (settings.EMAIL_HOST_USER) options.auth = { user: settings.EMAIL_HOST_USER, pass: settings.EMAIL_HOST_PASSWORD };
  // Required here, not at the top: the console backend (the default) never needs it, and loading it is about
  // 40 ms of every monitor's and notifier's start (docs/operations/benchmarks.md, "Start-up").
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, not at start (above)
  const nodemailer = require('nodemailer') as typeof NodemailerModule;
  const transport: Transporter<SMTPTransport.SentMessageInfo> = nodemailer.createTransport(options);
  const secrets = [settings.EMAIL_HOST_PASSWORD];

  return {
    backend: 'smtp',
    send: async (message) => {
      const started = performance.now();
      const durationMs = () => Math.round(performance.now() - started);
      try {
        const info = await transport.sendMail({
          from: settings.DEFAULT_FROM_EMAIL,
          to: message.to,
          subject: message.subject,
          text: message.text,
          html: message.html,
        });
        const rejected = info.rejected?.length ?? 0;
        const response = redactSecrets(oneLine(info.response ?? '', 400), secrets);
        return {
          // Some recipients accepted: a retry would send them a second copy, so this counts as delivered.
          ok: (info.accepted?.length ?? 0) > 0,
          ...(rejected > 0 ? { error: `${rejected} recipient(s) refused by the SMTP server` } : {}),
          responseExcerpt: rejected > 0 ? `${response} (${rejected} recipient(s) refused)` : response,
          durationMs: durationMs(),
        };
      } catch (err) {
        const e = err as Error & { code?: string };
        const error = redactSecrets(oneLine(`email not sent: ${e.message}${e.code && !e.message.includes(e.code) ? ` (${e.code})` : ''}`, 1000), secrets);
        return { ok: false, error, durationMs: durationMs() };
      }
    },
    close: () => transport.close(),
  };
}
