/** /api/v1/api-keys/: company API keys, for admins. The value is in the answer to create and rotate only. */
import { Router } from 'express';
import { OrderTerm, ROUTER_OPTIONS, buildPage, idParam, schemas, validate } from '@pi/common';
import { authenticateUser, requireAdmin } from '../../auth/authenticate';
import { createApiKey, getApiKey, listApiKeys, revokeApiKey, rotateApiKey, updateApiKey, type NewApiKey, type ApiKeyChanges } from '../../commands/api-keys';
import type { GatewayContext } from '../../context';
import { presentApiKey } from '../../presenters';
import { createKeyBody, listKeysQuery, rotateKeyBody, updateKeyBody } from './schema';

export function apiKeysRouter(ctx: GatewayContext): Router {
  const { config, credentials } = ctx;
  const router = Router(ROUTER_OPTIONS);
  const base = '/api/v1/api-keys';
  router.use(base, authenticateUser(config.JWT_SECRET, credentials), requireAdmin);

  router.get(`${base}/`, validate({ query: listKeysQuery }), async (req, res) => {
    const query = req.query as unknown as { page: number; page_size: number; include_revoked: boolean; include_minted: boolean; ordering?: OrderTerm[] };
    const { rows, count } = await listApiKeys(ctx, req.identity!, query);
    res.json(
      buildPage(
        req,
        config.PUBLIC_BASE_URL,
        query,
        count,
        rows.map((r) => presentApiKey(r)),
      ),
    );
  });

  router.post(`${base}/`, validate({ body: createKeyBody }), async (req, res) => {
    const body = req.body as NewApiKey;
    const { row, value } = await createApiKey(ctx, req.identity!, body);
    res.status(201).json(presentApiKey(row, value));
  });

  router.get(`${base}/:id/`, validate({ params: schemas.idParams }), async (req, res) => {
    res.json(presentApiKey(await getApiKey(ctx, req.identity!, idParam(req))));
  });

  router.patch(`${base}/:id/`, validate({ params: schemas.idParams, body: updateKeyBody }), async (req, res) => {
    const body = req.body as ApiKeyChanges;
    const row = await updateApiKey(ctx, req.identity!, idParam(req), body);
    await credentials.settle(); // the change holds on this gateway before it answers (docs/api/authentication.md "Credential cache")
    res.json(presentApiKey(row));
  });

  router.post(`${base}/:id/rotate/`, validate({ params: schemas.idParams, body: rotateKeyBody }), async (req, res) => {
    const { row, value } = await rotateApiKey(ctx, req.identity!, idParam(req));
    await credentials.settle();
    res.json(presentApiKey(row, value));
  });

  router.delete(`${base}/:id/`, validate({ params: schemas.idParams }), async (req, res) => {
    await revokeApiKey(ctx, req.identity!, idParam(req));
    await credentials.settle();
    res.status(204).end();
  });
  return router;
}
