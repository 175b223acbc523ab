/** The monitor service's part of the OpenAPI document: one tag per resource, every public operation. */
import type { ServiceApi } from '@pi/common';
import { checkRulesRunOperations } from './routes/check-rules-runs/openapi';
import { eventOperations } from './routes/events/openapi';
import { ruleOperations } from './routes/monitoring-rules/openapi';
import { channelOperations } from './routes/notification-channels/openapi';
import { deliveryOperations } from './routes/notification-deliveries/openapi';

export const monitorApi: ServiceApi = {
  service: 'monitor',
  tags: [
    { name: 'monitoring-rules', description: "Monitoring rules: stored ones and the ones a product's engine_config implies (read-only here)." },
    { name: 'events', description: 'The event log: one entry per triggered rule, resolved or ignored by users.' },
    { name: 'notification-channels', description: 'Webhook and email channels that deliver events, with their signing secrets (admins only).' },
    { name: 'notification-deliveries', description: 'The delivery log: every delivery of an event to a channel, with its attempts (admins only).' },
    { name: 'check-rules', description: 'The monitor runs (`check_rules`): when they ran and what they did for the company.' },
  ],
  operations: [...ruleOperations, ...eventOperations, ...channelOperations, ...deliveryOperations, ...checkRulesRunOperations],
};
