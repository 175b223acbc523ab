/**
 * Notification deliveries with their attempts: what was sent where, what the receiver answered, what comes
 * next; a FAILED delivery can be sent again at once (docs/api/monitoring-and-notifications.md "Retrying a
 * failed delivery").
 */
import { getAll, post } from '../api.js';
import { h, time } from '../dom.js';
import { Column, PagedList, table } from '../list.js';
import { EVENT_TYPES } from '../model.js';
import type { Screen } from '../screen.js';
import { actions, badge, button, notify, screenHeader, statusBadge } from '../ui.js';
import type { Schema } from '../../kit/api-types.js';

export type Attempt = Schema<'NotificationAttempt'>;

export type Delivery = Schema<'NotificationDelivery'>;

export const DELIVERY_STATUSES = ['PENDING', 'RETRYING', 'DELIVERED', 'FAILED'];

/**
 * An attempt's status as what it is: in flight (STARTED), succeeded, failed, or interrupted (its sender stopped
 * before it finished: the receiver may or may not have it).
 */
const ATTEMPT_BADGES: Record<Attempt['status'], { text: string; tone: 'ok' | 'warn' | 'bad' | 'info' }> = {
  STARTED: { text: 'IN FLIGHT', tone: 'info' },
  SUCCEEDED: { text: 'SUCCEEDED', tone: 'ok' },
  FAILED: { text: 'FAILED', tone: 'bad' },
  INTERRUPTED: { text: 'INTERRUPTED', tone: 'warn' },
};
export const attemptBadge = (a: Attempt) => {
  const shown = ATTEMPT_BADGES[a.status] ?? { text: a.status, tone: 'info' as const };
  const el = badge(shown.text, shown.tone);
  if (a.status === 'INTERRUPTED') el.title = 'The sender stopped before this attempt finished; the receiver may or may not have it.';
  if (a.status === 'STARTED') el.title = 'This attempt is being sent now.';
  return el;
};

const lastResult = (d: Delivery) => (d.last_status_code ? `HTTP ${d.last_status_code}` : d.last_error ? d.last_error : d.status === 'DELIVERED' ? 'sent' : '—');

/** The attempts of a delivery (and the body it sends) behind a disclosure. */
export function attemptsOf(d: Delivery): HTMLElement {
  return h(
    'details',
    { class: 'attempts' },
    h('summary', null, `Attempts (${d.attempts.length})`),
    table(
      [
        { label: '#', cell: (a) => String(a.number), class: 'num' },
        { label: 'Started', cell: (a) => time(a.started_at) },
        { label: 'Result', cell: (a) => [attemptBadge(a), ' ', a.status_code ? `HTTP ${a.status_code}` : ''] },
        { label: 'Duration', cell: (a) => (a.status === 'STARTED' || a.duration_ms === null ? '—' : `${a.duration_ms} ms`), class: 'num' },
        {
          label: 'Error / response',
          cell: (a) => (a.error || a.response_excerpt ? h('code', { class: 'excerpt' }, a.error ?? a.response_excerpt ?? '') : '—'),
          class: 'wide',
        },
      ] as Column<Attempt>[],
      d.attempts,
      { caption: `Attempts of delivery ${d.id}`, empty: 'No attempt yet.' },
    ),
    h('p', { class: 'muted small' }, 'Body sent:'),
    h('pre', { class: 'json' }, JSON.stringify(d.body, null, 2)),
  );
}

/** The button that sends a FAILED delivery again now (POST …/retry/), then reloads the list. */
function retryButton(d: Delivery, list: () => PagedList<Delivery>): HTMLButtonElement {
  return button(
    'Retry now',
    async () => {
      const retried = await post<Delivery>(`/api/v1/notification-deliveries/${d.id}/retry/`);
      notify(
        retried.status === 'DELIVERED'
          ? 'Delivery sent again: delivered.'
          : retried.status === 'FAILED'
            ? 'Delivery sent again: it failed again.'
            : 'Delivery queued to be sent again now.',
      );
      await list().reload();
    },
    { label: `Retry delivery ${d.id.slice(0, 8)} now`, kind: 'primary' },
  );
}

/** A list of deliveries (of one channel when `channelId` is given). */
export function deliveriesList(
  opts: { channelId?: string; channels?: { id: string; name: string }[]; initial?: Record<string, string> } = {},
): PagedList<Delivery> {
  const names = new Map((opts.channels ?? []).map((c) => [c.id, c.name]));
  // eslint-disable-next-line prefer-const -- the columns' buttons below reload it, so it is declared before it is made
  let list: PagedList<Delivery>;
  const columns: Column<Delivery>[] = [
    { label: 'Created', cell: (d) => time(d.created_at) },
    ...(opts.channelId
      ? []
      : [{ label: 'Channel', cell: (d: Delivery) => h('a', { href: `#/channels/${d.channel_id}` }, names.get(d.channel_id) ?? 'unknown channel') }]),
    { label: 'Event', cell: (d) => d.event_type },
    { label: 'Status', cell: (d) => statusBadge(d.status) },
    { label: 'Attempts', cell: (d) => `${d.attempt_count} of ${d.max_attempts}`, class: 'num' },
    { label: 'Last result', cell: (d) => lastResult(d) },
    { label: 'Next attempt', cell: (d) => (d.status === 'RETRYING' || d.status === 'PENDING' ? time(d.next_attempt_at) : '—') },
    { label: 'Actions', class: 'actions', cell: (d) => (d.status === 'FAILED' ? actions(retryButton(d, () => list)) : '—') },
  ];
  list = new PagedList<Delivery>({
    path: '/api/v1/notification-deliveries/',
    caption: 'Deliveries',
    empty: 'No deliveries yet.',
    fixed: opts.channelId ? { channel_id: opts.channelId } : {},
    initial: opts.initial,
    pageSize: 20,
    detail: attemptsOf,
    filters: [
      ...(opts.channelId
        ? []
        : [
            {
              name: 'channel_id',
              label: 'Channel',
              type: 'select' as const,
              options: [{ value: '', label: 'All channels' }, ...(opts.channels ?? []).map((c) => ({ value: c.id, label: c.name }))],
            },
          ]),
      { name: 'status', label: 'Status', type: 'select', options: [{ value: '', label: 'Any status' }, ...DELIVERY_STATUSES] },
      { name: 'event_type', label: 'Event type', type: 'select', options: [{ value: '', label: 'Any type' }, ...EVENT_TYPES] },
    ],
    columns,
  });
  return list;
}

export const screen: Screen = {
  path: 'deliveries',
  title: 'Deliveries',
  group: 'Monitoring',
  adminOnly: true,
  async render({ root, query }) {
    root.append(
      screenHeader(
        'Deliveries',
        'Every notification sent through a channel, with each attempt. Failed attempts are retried by the next monitor runs (2ⁿ minutes apart, at most 5 attempts); a delivery that failed for good can be retried now.',
      ),
    );
    const channels = await getAll<{ id: string; name: string }>('/api/v1/notification-channels/');
    const list = deliveriesList({ channels, initial: { status: query.get('status') ?? '', channel_id: query.get('channel_id') ?? '' } });
    root.append(list.el);
    await list.load();
  },
};
