/**
 * Notification channels (admins): webhooks (signed with the channel's secret) and email. `#/channels` lists
 * and creates them, under a panel saying when the monitor (check_rules) last ran and what it did for the
 * company; `#/channels/<id>` shows one: a webhook's secret (masked until revealed; rotate) or, for email,
 * where messages go when the server only logs them, a test send, and its deliveries with their attempts. A
 * channel the circuit breaker paused shows since when and why, with a "Resume" action.
 */
import { del, get, getAll, patch, post } from '../api.js';
import { fill, h, time } from '../dom.js';
import { FieldSpec, Form, Values, formDialog, lines, num, str, text } from '../form.js';
import { table } from '../list.js';
import { EVENT_TYPES } from '../model.js';
import type { Screen, ScreenContext } from '../screen.js';
import { actions, badge, button, confirmAction, errorBox, facts, notify, panel, screenHeader, secretField, section, statusBadge } from '../ui.js';
import { Delivery, deliveriesList } from './deliveries.js';

interface Channel {
  id: string;
  name: string;
  kind: 'WEBHOOK' | 'EMAIL';
  url: string | null;
  recipients: string[] | null;
  events: string[];
  max_attempts: number;
  is_active: boolean;
  /** WEBHOOK channels only (null for EMAIL). */
  secret: string | null;
  /** EMAIL channels: `console` when the server logs emails instead of sending them. */
  email_backend: 'console' | 'smtp' | null;
  /** `paused`: held by the circuit breaker after failures in a row; `inactive`: switched off. */
  state: 'active' | 'paused' | 'inactive';
  paused_at: string | null;
  paused_reason: string | null;
  next_probe_at: string | null;
  consecutive_failures: number;
  created_at: string;
  updated_at: string;
}

/** One check_rules run as the API shows it to this company (its own numbers only). */
interface MonitorRun {
  id: string;
  trigger: 'scheduler' | 'command';
  status: 'completed' | 'failed' | 'skipped';
  started_at: string;
  finished_at: string;
  results: Record<
    | 'products_evaluated'
    | 'events_opened'
    | 'events_resolved'
    | 'deliveries_created'
    | 'due_deliveries'
    | 'deliveries_sent'
    | 'deliveries_retrying'
    | 'deliveries_failed'
    | 'deliveries_enqueued',
    number
  > | null;
}

const RUN_STATUS: Record<MonitorRun['status'], string> = {
  completed: 'completed',
  failed: 'failed for your company (see the output of the run)',
  skipped: 'skipped: another run was checking your company',
};

/** When the monitor last ran and what it did for this company: rules only act through these runs. */
async function lastRunPanel(): Promise<HTMLElement> {
  const { results } = await get<{ results: MonitorRun[] }>('/api/v1/check-rules/runs/', { page_size: 1 });
  const [run] = results;
  if (!run) {
    return section(
      'Monitor runs',
      h(
        'p',
        null,
        'No monitor run has checked your company yet. Rules are evaluated, and alerts sent, by ',
        h('code', null, 'check_rules'),
        ': ',
        h('code', null, 'npm start'),
        ' runs it every minute by default (',
        h('code', null, 'CHECK_RULES_INTERVAL_SECONDS'),
        '); elsewhere it is scheduled by the operator.',
      ),
    );
  }
  const r = run.results;
  return section(
    'Monitor runs',
    facts([
      [
        'Last run',
        [time(run.started_at), ' ', h('span', { class: 'muted small' }, run.trigger === 'scheduler' ? '(scheduled by npm start)' : '(check_rules command)')],
      ],
      ['Outcome', RUN_STATUS[run.status]],
      ...(r
        ? ([
            ['Evaluated', `${r.products_evaluated} products`],
            ['Events', `${r.events_opened} opened, ${r.events_resolved} resolved`],
            [
              'Deliveries',
              `${r.deliveries_created} new, ${r.due_deliveries} due from earlier runs; ${r.deliveries_sent} sent, ${r.deliveries_retrying} retrying, ${r.deliveries_failed} failed, ${r.deliveries_enqueued} queued`,
            ],
          ] as [string, string][])
        : []),
    ]),
  );
}

/** Where the emails of a console backend can be read (they are logged, not sent). */
function consoleEmailNote(): HTMLElement {
  return h(
    'div',
    { class: 'notice notice-info', role: 'note' },
    h(
      'p',
      null,
      'Emails are not sent: this server uses the console email backend (debug mode). Each message is written as an "email not sent" log line to the output of the process that sends it: with ',
      h('code', null, 'npm start'),
      ', the terminal where it runs. Set ',
      h('code', null, 'EMAIL_HOST'),
      ' (or ',
      h('code', null, 'EMAIL_BACKEND=smtp'),
      ') to send them.',
    ),
  );
}

const stateBadge = (c: Channel) => (c.state === 'paused' ? badge('paused', 'bad') : c.state === 'active' ? badge('active', 'ok') : badge('inactive'));

/** Why a paused channel's deliveries wait, and the action that lets them go. */
function pausedNotice(c: Channel, resume: () => Promise<void>): HTMLElement {
  return h(
    'div',
    { class: 'notice notice-error', role: 'status' },
    h(
      'div',
      null,
      h('p', null, 'Paused since ', time(c.paused_at), ': ', c.paused_reason ?? '', '.'),
      h('p', null, 'Its deliveries wait; one is tried again at ', time(c.next_probe_at), ', and a success resumes the channel.'),
    ),
    button('Resume', resume, { kind: 'primary', label: `Resume ${c.name}` }),
  );
}

const target = (c: Channel) => (c.kind === 'WEBHOOK' ? (c.url ?? '') : (c.recipients ?? []).join(', '));

function channelFields(channel?: Channel): FieldSpec[] {
  const kind = channel?.kind ?? 'WEBHOOK';
  return [
    { name: 'name', label: 'Name', required: true, value: channel?.name },
    ...(channel
      ? []
      : [
          {
            name: 'kind',
            label: 'Kind',
            type: 'select' as const,
            options: [
              { value: 'WEBHOOK', label: 'Webhook' },
              { value: 'EMAIL', label: 'Email' },
            ],
            value: kind,
          },
        ]),
    {
      name: 'url',
      label: 'Webhook URL',
      type: 'url',
      required: true,
      value: channel?.url ?? '',
      placeholder: 'https://example.com/hooks/inventory',
      hidden: kind !== 'WEBHOOK',
      help: 'http or https; private and loopback addresses are refused.',
    },
    {
      name: 'recipients',
      label: 'Recipients',
      type: 'textarea',
      rows: 2,
      value: (channel?.recipients ?? []).join('\n'),
      hidden: kind !== 'EMAIL',
      help: 'Email addresses, one per line (1–20).',
    },
    {
      name: 'events',
      label: 'Events',
      type: 'checkboxes',
      options: EVENT_TYPES,
      value: channel?.events ?? [...EVENT_TYPES],
      help: 'THRESHOLD and DATE_OFFSET alerts, and TEST sends.',
    },
    {
      name: 'max_attempts',
      label: 'Max attempts',
      type: 'number',
      min: 1,
      max: 5,
      step: 1,
      value: String(channel?.max_attempts ?? 5),
      help: '1–5; failed sends are retried on later monitor runs.',
    },
  ];
}

function channelBody(values: Values, kind: string): Record<string, unknown> {
  return {
    name: text(values.name) ?? '',
    ...(kind === 'WEBHOOK' ? { url: text(values.url) ?? '' } : { recipients: lines(values.recipients) }),
    events: values.events,
    ...(num(values.max_attempts) !== undefined ? { max_attempts: num(values.max_attempts) } : {}),
  };
}

async function renderList({ root, go }: ScreenContext): Promise<void> {
  root.append(
    screenHeader(
      'Notification channels',
      'Where monitoring alerts go: signed webhooks and email. Open a channel to see its secret, send a test and read its deliveries.',
    ),
  );
  const listSlot = h('div');
  const load = async () => {
    const channels = await getAll<Channel>('/api/v1/notification-channels/');
    fill(
      listSlot,
      table(
        [
          { label: 'Name', cell: (c) => h('a', { href: `#/channels/${c.id}` }, c.name), class: 'wide' },
          { label: 'Kind', cell: (c) => c.kind },
          { label: 'Sends to', cell: (c) => h('span', { class: 'break' }, target(c)) },
          { label: 'Events', cell: (c) => c.events.join(', ') },
          { label: 'Status', cell: (c) => stateBadge(c) },
          { label: 'Actions', class: 'actions', cell: (c) => button('Open', () => go(`#/channels/${c.id}`), { label: `Open ${c.name}` }) },
        ],
        channels,
        { caption: 'Notification channels', empty: 'No channels yet: create one above.' },
      ),
    );
  };
  const form = new Form({
    label: 'New channel',
    fields: channelFields(),
    submitLabel: 'Create channel',
    onSubmit: async (values) => {
      const created = await post<Channel>('/api/v1/notification-channels/', { kind: values.kind, ...channelBody(values, str(values.kind)) });
      notify(`Channel ${created.name} created.`);
      go(`#/channels/${created.id}`);
    },
  });
  form.onChange('kind', (kind: string) => {
    form.show('url', kind === 'WEBHOOK');
    form.show('recipients', kind === 'EMAIL');
  });
  root.append(await lastRunPanel(), panel('New channel', form.el), listSlot);
  await load();
}

function testResult(delivery: Delivery, queued: boolean): HTMLElement {
  const last = delivery.attempts[delivery.attempts.length - 1];
  return h(
    'div',
    { class: `notice ${delivery.status === 'DELIVERED' ? 'notice-success' : queued ? 'notice-info' : 'notice-error'}`, role: 'status' },
    h(
      'p',
      null,
      queued ? 'Test queued: the notifier sends it shortly. ' : 'Test sent: ',
      statusBadge(delivery.status),
      last?.status_code ? ` HTTP ${last.status_code}` : '',
      last?.error ? ` · ${last.error}` : '',
    ),
  );
}

async function renderDetail(ctx: ScreenContext): Promise<void> {
  const { root, go } = ctx;
  let channel = await get<Channel>(`/api/v1/notification-channels/${ctx.id}/`);
  const head = screenHeader(`Channel: ${channel.name}`, h('a', { href: '#/channels' }, '← All channels'));
  const factsSlot = h('div');
  const pausedSlot = h('div');
  const secretSlot = h('div');
  const testSlot = h('div', { class: 'test-result' });
  const deliveries = deliveriesList({ channelId: channel.id });

  const resume = async () => {
    channel = await post<Channel>(`/api/v1/notification-channels/${channel.id}/resume/`, {});
    showFacts();
    notify(`Channel ${channel.name} resumed.`);
  };
  const showFacts = () => {
    fill(
      factsSlot,
      facts([
        ['Kind', channel.kind],
        [channel.kind === 'WEBHOOK' ? 'URL' : 'Recipients', h('span', { class: 'break' }, target(channel))],
        ['Events', channel.events.join(', ')],
        ['Max attempts', String(channel.max_attempts)],
        ['Status', stateBadge(channel)],
        ['Updated', time(channel.updated_at)],
      ]),
    );
    if (channel.state === 'paused') fill(pausedSlot, pausedNotice(channel, resume));
    else fill(pausedSlot);
  };
  // Only a webhook signs its deliveries; an email channel shows where console emails go instead.
  const showSecret = () =>
    fill(
      secretSlot,
      channel.kind === 'WEBHOOK'
        ? secretField('Signing secret', channel.secret ?? '', {
            help: ['Receivers check ', h('code', null, 'X-PI-Signature: sha256=<HMAC-SHA256 of the body>'), ' with this secret.'],
          })
        : channel.email_backend === 'console'
          ? consoleEmailNote()
          : null,
    );
  showFacts();
  showSecret();

  const toolbar = actions(
    button(
      'Send test',
      async () => {
        fill(testSlot, h('p', { class: 'muted' }, 'Sending…'));
        try {
          const res = await post<{ delivery: Delivery }>(`/api/v1/notification-channels/${channel.id}/test/`, {});
          fill(testSlot, testResult(res.delivery, res.delivery.status === 'PENDING'));
        } catch (err) {
          fill(testSlot, errorBox(err));
        }
        await deliveries.reload();
      },
      { kind: 'primary' },
    ),
    channel.kind === 'WEBHOOK'
      ? button('Rotate secret', async () => {
          const ok = await confirmAction(
            'Rotate the signing secret?',
            'A new secret is generated now; receivers must switch to it, the old one no longer signs anything.',
            'Rotate secret',
          );
          if (!ok) return;
          channel = await post<Channel>(`/api/v1/notification-channels/${channel.id}/rotate-secret/`, {});
          showSecret();
          notify('Signing secret rotated.');
        })
      : null,
    button('Edit', () =>
      formDialog(`Edit ${channel.name}`, {
        fields: channelFields(channel),
        submitLabel: 'Save channel',
        save: async (values) => {
          channel = await patch<Channel>(`/api/v1/notification-channels/${channel.id}/`, channelBody(values, channel.kind));
        },
        after: () => {
          showFacts();
          notify('Channel saved.');
        },
      }),
    ),
    button(channel.is_active ? 'Deactivate' : 'Activate', async (btn) => {
      channel = await patch<Channel>(`/api/v1/notification-channels/${channel.id}/`, { is_active: !channel.is_active });
      btn.textContent = channel.is_active ? 'Deactivate' : 'Activate';
      showFacts();
      notify(`Channel ${channel.is_active ? 'activated' : 'deactivated'}.`);
    }),
    button(
      'Delete',
      async () => {
        if (!(await confirmAction(`Delete ${channel.name}?`, 'The channel and its delivery log are removed.', 'Delete channel'))) return;
        await del(`/api/v1/notification-channels/${channel.id}/`);
        notify(`Channel ${channel.name} deleted.`);
        go('#/channels');
      },
      { kind: 'danger' },
    ),
  );

  root.append(head, factsSlot, pausedSlot, secretSlot, toolbar, testSlot, h('h2', null, 'Deliveries'), deliveries.el);
  await deliveries.load();
}

export const screen: Screen = {
  path: 'channels',
  title: 'Channels',
  group: 'Monitoring',
  adminOnly: true,
  render: (ctx) => (ctx.id ? renderDetail(ctx) : renderList(ctx)),
};
