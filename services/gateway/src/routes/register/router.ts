/** POST /api/v1/register/: a new company with its admin user and first API key (shown this once). */
import { Router } from 'express';
import { ROUTER_OPTIONS, PermissionDeniedError, validate } from '@pi/common';
import { registerCompany } from '../../commands/register-company';
import type { GatewayContext } from '../../context';
import { presentApiKey, presentCompany, presentUser } from '../../presenters';
import { RegisterBody, registerBody } from './schema';

export function registerRouter(ctx: GatewayContext): Router {
  const { config } = ctx;
  const router = Router(ROUTER_OPTIONS);
  router.post('/api/v1/register/', validate({ body: registerBody }), async (req, res) => {
    if (!config.REGISTRATION_OPEN) throw new PermissionDeniedError('Registration is closed on this server.', 'registration_closed');
    const body = req.body as RegisterBody;
    const { company, user, apiKey, keyValue } = await registerCompany(
      ctx,
      { companyName: body.company_name, username: body.username, password: body.password, email: body.email },
      config.PASSWORD_HASH_COST,
    );
    res.status(201).json({ company: presentCompany(company), user: presentUser(user), api_key: presentApiKey(apiKey, keyValue) });
  });
  return router;
}
