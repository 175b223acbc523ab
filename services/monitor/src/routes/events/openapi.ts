/** /api/v1/events/ in the OpenAPI document: the event log and the two moves out of OPEN. */
import { ApiOperation, operations, pageSchema, schemas } from '@pi/common';
import { eventSchema } from '../../presenters/event';
import { listEventsQuery, transitionBody } from './schema';

const eventPage = pageSchema(eventSchema, 'EventPage');

const move = (action: 'resolve' | 'ignore', to: string, summary: string): ApiOperation => ({
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
});

export const eventOperations = operations(
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
  },
  move('resolve', 'RESOLVED', 'Mark an OPEN event resolved'),
  move('ignore', 'IGNORED', 'Dismiss an OPEN event'),
);
