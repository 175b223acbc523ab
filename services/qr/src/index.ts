export { qrPublicRoutes, qrRoutes } from './routes';
export { qrEnv } from './config';
export type { QrSettings } from './config';
export { qrApi } from './openapi';
