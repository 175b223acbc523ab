/**
 * Notification delivery, used by the services that deliver (monitor and notifier): channel settings, the SSRF
 * guard, webhook sender and signatures, secrets at rest, event payloads, deliveries and their attempts, the
 * circuit breaker, email and the BullMQ delivery queue (docs/architecture.md).
 */
export * from './settings';
export * from './ssrf';
export * from './signing';
export * from './webhook';
export * from './secret-box';
export * from './payload';
export * from './deliveries';
export * from './deliver';
export * from './attempt-log';
export * from './breaker';
export * from './email';
export * from './queue';
