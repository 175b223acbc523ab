export { qrRoutes } from './routes';
