/** The monitor service's part of the OpenAPI document: one tag per resource, every public operation. */
import type { Endpoint, ServiceApi } from '@pi/common';
import type { MonitorContext } from './context';
import { checkRulesRunEndpoints } from './routes/check-rules-runs/endpoints';
import { eventEndpoints } from './routes/events/endpoints';
import { ruleEndpoints } from './routes/monitoring-rules/endpoints';
import { channelEndpoints } from './routes/notification-channels/endpoints';
import { deliveryEndpoints } from './routes/notification-deliveries/endpoints';

/** Every endpoint of the service, by resource, in the order they are routed (routes.ts) and documented. */
export const monitorEndpoints: Endpoint<MonitorContext>[] = [
  ...ruleEndpoints,
  ...eventEndpoints,
  ...channelEndpoints,
  ...deliveryEndpoints,
  ...checkRulesRunEndpoints,
];

export const monitorApi: ServiceApi = {
  service: 'monitor',
  tags: [
    { name: 'monitoring-rules', description: "Monitoring rules: stored ones and the ones a product's engine_config implies (read-only here)." },
    { name: 'events', description: 'The event log: one entry per triggered rule, resolved or ignored by users.' },
    { name: 'notification-channels', description: 'Webhook and email channels that deliver events, with their signing secrets (admins only).' },
    { name: 'notification-deliveries', description: 'The delivery log: every delivery of an event to a channel, with its attempts (admins only).' },
    { name: 'check-rules', description: 'The monitor runs (`check_rules`): when they ran and what they did for the company.' },
  ],
  operations: monitorEndpoints,
};
