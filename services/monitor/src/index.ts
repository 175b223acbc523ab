export { monitorRoutes } from './routes';
export type { MonitorRoutesOptions } from './routes';
export { loadMonitorSettings, monitorEnv } from './config';
export type { MonitorConfig, MonitorSettings } from './config';
export { checkRules } from './check-rules/run';
export type { RunSummary } from './check-rules/run';
export { monitorApi } from './openapi';
export { RunLock } from './check-rules/run-lock';
