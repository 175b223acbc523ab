/** Outbound notification building blocks: SSRF guard, webhook sender, signatures, secrets at rest. */
export * from './ssrf';
export * from './signing';
export * from './webhook';
export * from './secret-box';
