/**
 * Route steps for QR scan keys (docs/api/scanning.md): before a widget route looks anything up, a scan that
 * names a product other than its target's, or reaches an endpoint no scan needs, answers 403 `access_denied`.
 */
import type { RequestHandler } from 'express';
import { assertScanReachesProduct, refuseScan } from '@pi/common';

/** The `product_id` of the query or body must be the scan's product (after validation: it is a UUID). */
export function scanReachesProductIn(where: 'query' | 'body'): RequestHandler {
  return (req, _res, next) => {
    const productId = (req[where] as { product_id?: string } | undefined)?.product_id;
    if (productId !== undefined) assertScanReachesProduct(req.identity!, productId);
    next();
  };
}

/** The `{id}` of the path must be the scan's product. */
export const scanReachesProductParam: RequestHandler = (req, _res, next) => {
  assertScanReachesProduct(req.identity!, String(req.params.id));
  next();
};

/** For endpoints a scan never needs. */
export const noScans: RequestHandler = (req, _res, next) => {
  refuseScan(req.identity!);
  next();
};
