/** The event log: what monitoring found, newest first; an OPEN event can be resolved or ignored. */
import { getAll, post } from '../api.js';
import { fromLocalInput, h, time } from '../dom.js';
import { str } from '../form.js';
import { PagedList } from '../list.js';
import { SEVERITIES, names, productLabel, productNameCell, productPicker } from '../model.js';
import type { Screen } from '../screen.js';
import { actions, button, notify, screenHeader, statusBadge } from '../ui.js';
import { ruleLabel } from '../../kit/messages.js';
import type { Schema } from '../../kit/api-types.js';

type EventEntry = Schema<'Event'>;

const MOVES: Record<string, { verb: string; path: string }> = { RESOLVED: { verb: 'Resolve', path: 'resolve' }, IGNORED: { verb: 'Ignore', path: 'ignore' } };

export const screen: Screen = {
  path: 'events',
  title: 'Events',
  group: 'Monitoring',
  async render({ root, query }) {
    root.append(
      screenHeader(
        'Events',
        'Opened by monitor runs when a rule holds. Resolve an event once handled, or ignore it; a run closes events whose condition has cleared.',
      ),
    );
    const rules = await getAll<Schema<'MonitoringRule'>>('/api/v1/monitoring-rules/');
    const productName = productNameCell(productLabel);
    const ruleName = names(rules, ruleLabel);
    const list: PagedList<EventEntry> = new PagedList<EventEntry>({
      path: '/api/v1/events/',
      search: 'Search message',
      sort: { field: 'created_at', descending: true },
      caption: 'Events',
      empty: 'No events match.',
      // The overview links here with `status` and `severity` (docs/api/overview-and-appearance.md).
      initial: { status: query.get('status') ?? 'OPEN', severity: query.get('severity') ?? '', product_id: query.get('product_id') ?? '' },
      filters: [
        { name: 'status', label: 'Status', type: 'select', options: [{ value: '', label: 'Any status' }, 'OPEN', 'RESOLVED', 'IGNORED'] },
        { name: 'severity', label: 'Severity', type: 'select', options: [{ value: '', label: 'Any severity' }, ...SEVERITIES] },
        { name: 'trigger_type', label: 'Trigger', type: 'select', options: [{ value: '', label: 'Any trigger' }, 'THRESHOLD', 'DATE_OFFSET'] },
        productPicker({ name: 'product_id', label: 'Product', empty: 'All products', value: query.get('product_id') ?? '' }),
        { name: 'created_after', label: 'From', type: 'datetime-local' },
        { name: 'created_before', label: 'Until', type: 'datetime-local' },
      ],
      toQuery: (v) => ({ ...v, created_after: fromLocalInput(str(v.created_after)), created_before: fromLocalInput(str(v.created_before)) }),
      columns: [
        { label: 'Opened', sort: 'created_at', cell: (e) => time(e.created_at) },
        { label: 'Severity', sort: 'severity', cell: (e) => statusBadge(e.severity) },
        { label: 'Rule', cell: (e) => [ruleName(e.rule_id), h('br'), h('span', { class: 'muted small' }, e.trigger_type)] },
        { label: 'Product', cell: (e) => productName(e.product_id) },
        { label: 'Message', cell: (e) => e.message, class: 'wide' },
        {
          label: 'Status',
          sort: 'status',
          cell: (e) => [statusBadge(e.status), e.status_changed_at ? [' ', h('span', { class: 'muted small' }, time(e.status_changed_at))] : null],
        },
        {
          label: 'Actions',
          class: 'actions',
          cell: (e) =>
            e.allowed_transitions.length
              ? actions(
                  e.allowed_transitions
                    .filter((t) => MOVES[t])
                    .map((t) =>
                      button(
                        MOVES[t].verb,
                        async () => {
                          await post(`/api/v1/events/${e.id}/${MOVES[t].path}/`, {});
                          notify(`Event ${t.toLowerCase()}.`);
                          await list.reload();
                        },
                        { label: `${MOVES[t].verb} event: ${e.message}` },
                      ),
                    ),
                )
              : '—',
        },
      ],
    });
    root.append(list.el);
    await list.load();
  },
};
