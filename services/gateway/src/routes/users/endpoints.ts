/** /api/v1/users/: company users. Any user of the company reads; only admins write. */
import { buildPage, endpoints, pageSchema, schemas, type Call, type OrderTerm, type PageRequest } from '@pi/common';
import { createUser, getUser, listUsers, updateUser, type NewUser, type UserChanges } from '../../commands/users';
import type { GatewayContext } from '../../context';
import { presentUser, userSchema } from '../../presenters';
import { createUserBody, listUsersQuery, updateUserBody } from './schema';

export const userPageSchema = pageSchema(userSchema, 'UserPage');

const base = '/api/v1/users';
const tag = 'users';
const params = schemas.idParams;

export const usersEndpoints = endpoints<GatewayContext>(
  {
    method: 'get',
    path: `${base}/`,
    operationId: 'listUsers',
    tag,
    summary: "List the company's users",
    description: 'Oldest first.',
    security: 'bearer',
    request: { query: listUsersQuery },
    responses: { 200: { description: 'One page of users.', schema: userPageSchema } },
    handle: async (ctx, { query, identity, req }: Call<PageRequest & { ordering?: OrderTerm[] }>) => {
      const { rows, count } = await listUsers(ctx, identity, query);
      return buildPage(req, ctx.config.PUBLIC_BASE_URL, query, count, rows.map(presentUser));
    },
  },
  {
    method: 'post',
    path: `${base}/`,
    operationId: 'createUser',
    tag,
    summary: 'Create a user',
    description: 'Usernames are unique across all companies, ignoring case (409 `already_exists` naming `username`).',
    security: 'bearer',
    adminOnly: true,
    request: { body: createUserBody },
    responses: { 201: { description: 'The new user.', schema: userSchema } },
    errors: [409],
    handle: async (ctx, { body, identity }: Call<unknown, NewUser>) => presentUser(await createUser(ctx, identity, body)),
  },
  // Before `{id}/`, which would take it.
  {
    method: 'get',
    path: `${base}/me/`,
    operationId: 'getCurrentUser',
    tag,
    summary: 'The calling user',
    security: 'bearer',
    responses: { 200: { description: 'The user the access token belongs to.', schema: userSchema } },
    handle: async (ctx, { identity }: Call) => presentUser(await getUser(ctx, identity, identity.principal.id)),
  },
  {
    method: 'get',
    path: `${base}/{id}/`,
    operationId: 'getUser',
    tag,
    summary: 'One user',
    security: 'bearer',
    request: { params },
    responses: { 200: { description: 'The user.', schema: userSchema } },
    handle: async (ctx, { params, identity }: Call) => presentUser(await getUser(ctx, identity, params.id)),
  },
  {
    method: 'patch',
    path: `${base}/{id}/`,
    operationId: 'updateUser',
    tag,
    summary: 'Change a user',
    description:
      'Any of `email`, `password`, `role`, `is_active`. A company keeps at least one active admin: demoting or deactivating ' +
      'the last one answers 409 `last_admin`.',
    security: 'bearer',
    adminOnly: true,
    request: { params, body: updateUserBody },
    responses: { 200: { description: 'The changed user.', schema: userSchema } },
    errors: [409],
    handle: async (ctx, { params, body, identity }: Call<unknown, UserChanges>) => {
      const user = await updateUser(ctx, identity, params.id, body);
      await ctx.credentials.settle(); // a password, role or activity change revokes tokens on this gateway before it answers
      return presentUser(user);
    },
  },
  {
    method: 'delete',
    path: `${base}/{id}/`,
    operationId: 'deactivateUser',
    tag,
    summary: 'Deactivate a user',
    description:
      "Users are never deleted (the ledger names them): this sets `is_active` to false, and the user's tokens stop working at once. " +
      'The last active admin answers 409 `last_admin`.',
    security: 'bearer',
    adminOnly: true,
    request: { params },
    responses: { 204: { description: 'Deactivated.' } },
    errors: [409],
    handle: async (ctx, { params, identity }: Call) => {
      await updateUser(ctx, identity, params.id, { is_active: false }, 'deactivate');
      await ctx.credentials.settle();
    },
  },
);
