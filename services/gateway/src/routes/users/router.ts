/** /api/v1/users/: company users. Any user of the company reads; only admins write. */
import { Router } from 'express';
import { OrderTerm, ROUTER_OPTIONS, buildPage, idParam, schemas, validate } from '@pi/common';
import { authenticateUser, requireAdmin } from '../../auth/authenticate';
import { createUser, getUser, listUsers, updateUser, type NewUser, type UserChanges } from '../../commands/users';
import type { GatewayContext } from '../../context';
import { presentUser } from '../../presenters';
import { createUserBody, listUsersQuery, updateUserBody } from './schema';

export function usersRouter(ctx: GatewayContext): Router {
  const { config, credentials } = ctx;
  const router = Router(ROUTER_OPTIONS);
  const base = '/api/v1/users';
  router.use(base, authenticateUser(config.JWT_SECRET, credentials));

  router.get(`${base}/`, validate({ query: listUsersQuery }), async (req, res) => {
    const page = req.query as unknown as { page: number; page_size: number; ordering?: OrderTerm[] };
    const { rows, count } = await listUsers(ctx, req.identity!, page);
    res.json(buildPage(req, config.PUBLIC_BASE_URL, page, count, rows.map(presentUser)));
  });

  router.get(`${base}/me/`, async (req, res) => {
    res.json(presentUser(await getUser(ctx, req.identity!, req.identity!.principal.id)));
  });

  router.post(`${base}/`, requireAdmin, validate({ body: createUserBody }), async (req, res) => {
    const body = req.body as NewUser;
    res.status(201).json(presentUser(await createUser(ctx, req.identity!, body)));
  });

  router.get(`${base}/:id/`, validate({ params: schemas.idParams }), async (req, res) => {
    res.json(presentUser(await getUser(ctx, req.identity!, idParam(req))));
  });

  router.patch(`${base}/:id/`, requireAdmin, validate({ params: schemas.idParams, body: updateUserBody }), async (req, res) => {
    const body = req.body as UserChanges;
    const user = await updateUser(ctx, req.identity!, idParam(req), body);
    await credentials.settle(); // a password, role or activity change revokes tokens on this gateway before it answers
    res.json(presentUser(user));
  });

  /** Users are deactivated, never deleted: the ledger keeps naming who booked what. */
  router.delete(`${base}/:id/`, requireAdmin, validate({ params: schemas.idParams }), async (req, res) => {
    await updateUser(ctx, req.identity!, idParam(req), { is_active: false }, 'deactivate');
    await credentials.settle();
    res.status(204).end();
  });
  return router;
}
