/**
 * /api/v1/events/: the company's event log (any user reads it and handles events): list, one event, and the
 * two moves out of OPEN, `resolve/` and `ignore/`.
 */
import { ID_OWNERS, buildPage, endpoints, pageSchema, schemas, type Call, type Endpoint } from '@pi/common';
import type { MonitorContext } from '../../context';
import { EventFilters, getEvent, listEvents, moveEvent } from '../../commands/events';
import { ruleIdOwner } from '../../commands/rules';
import { eventSchema, presentEvent } from '../../presenters/event';
import { listEventsQuery, transitionBody } from './schema';

const eventPage = pageSchema(eventSchema, 'EventPage');

const move = (action: 'resolve' | 'ignore', to: 'RESOLVED' | 'IGNORED', summary: string): Endpoint<MonitorContext> => ({
  method: 'post',
  path: `/api/v1/events/{id}/${action}/`,
  operationId: `${action}Event`,
  tag: 'events',
  summary,
  description: `Moves an OPEN event to ${to}; any other move answers 409 \`invalid_transition\` with \`allowed_transitions\`. The body is empty or \`{}\`.`,
  security: 'bearer',
  request: { params: schemas.idParams, body: transitionBody },
  responses: { 200: { description: `The ${to} event.`, schema: eventSchema } },
  errors: [409],
  handle: async (ctx, { params, identity }: Call) => presentEvent(await moveEvent(ctx, identity, params.id, to)),
});

export const eventEndpoints = endpoints<MonitorContext>(
  {
    method: 'get',
    path: '/api/v1/events/',
    operationId: 'listEvents',
    tag: 'events',
    summary: 'List events',
    description:
      'Newest first. A `product_id` or `rule_id` of another company answers 403, one that exists nowhere 404 (a rule id that only events still name counts as existing).',
    security: 'bearer',
    request: { query: listEventsQuery },
    responses: { 200: { description: 'A page of events.', schema: eventPage } },
    errors: [404],
    ownedFilters: { product_id: ID_OWNERS.product, rule_id: ruleIdOwner },
    handle: async (ctx, { query, identity, req }: Call<EventFilters>) => {
      const { rows, count } = await listEvents(ctx, identity, query);
      return buildPage(req, ctx.config.PUBLIC_BASE_URL, query, count, rows.map(presentEvent));
    },
  },
  {
    method: 'get',
    path: '/api/v1/events/{id}/',
    operationId: 'getEvent',
    tag: 'events',
    summary: 'One event',
    security: 'bearer',
    request: { params: schemas.idParams },
    responses: { 200: { description: 'The event.', schema: eventSchema } },
    handle: async (ctx, { params, identity }: Call) => presentEvent(await getEvent(ctx, identity, params.id)),
  },
  move('resolve', 'RESOLVED', 'Mark an OPEN event resolved'),
  move('ignore', 'IGNORED', 'Dismiss an OPEN event'),
);
