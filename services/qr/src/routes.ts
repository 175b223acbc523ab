/** QR service routes. Codes, scan redirects and token exchange arrive with the QR issue. */
import { Router } from 'express';

export function qrRoutes(): Router {
  return Router();
}
