export { notifierRoutes } from './routes';
