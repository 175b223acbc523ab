export { createGatewayApp } from './app';
export { gatewayConfigSchema, loadGatewayConfig } from './config';
export type { GatewayConfig } from './config';
export type { GatewayDeps } from './deps';
export { UsageRecorder } from './auth/usage-recorder';
export { ACCESS_TOKEN_SECONDS, REFRESH_TOKEN_SECONDS } from './auth/user-tokens';
export { registerCompany } from './commands/register-company';
