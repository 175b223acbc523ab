/** Company users: any user of the company reads, admins write. */
import { operations, pageSchema, schemas } from '@pi/common';
import { userSchema } from '../../presenters';
import { createUserBody, listUsersQuery, updateUserBody } from './schema';

export const userPageSchema = pageSchema(userSchema, 'UserPage');

export const usersOperations = operations(
  {
    method: 'get',
    path: '/api/v1/users/',
    operationId: 'listUsers',
    tag: 'users',
    summary: "List the company's users",
    description: 'Oldest first.',
    security: 'bearer',
    request: { query: listUsersQuery },
    responses: { 200: { description: 'One page of users.', schema: userPageSchema } },
  },
  {
    method: 'post',
    path: '/api/v1/users/',
    operationId: 'createUser',
    tag: 'users',
    summary: 'Create a user',
    description: 'Usernames are unique across all companies, ignoring case (409 `already_exists` naming `username`).',
    security: 'bearer',
    adminOnly: true,
    request: { body: createUserBody },
    responses: { 201: { description: 'The new user.', schema: userSchema } },
    errors: [409],
  },
  {
    method: 'get',
    path: '/api/v1/users/me/',
    operationId: 'getCurrentUser',
    tag: 'users',
    summary: 'The calling user',
    security: 'bearer',
    responses: { 200: { description: 'The user the access token belongs to.', schema: userSchema } },
  },
  {
    method: 'get',
    path: '/api/v1/users/{id}/',
    operationId: 'getUser',
    tag: 'users',
    summary: 'One user',
    security: 'bearer',
    request: { params: schemas.idParams },
    responses: { 200: { description: 'The user.', schema: userSchema } },
  },
  {
    method: 'patch',
    path: '/api/v1/users/{id}/',
    operationId: 'updateUser',
    tag: 'users',
    summary: 'Change a user',
    description:
      'Any of `email`, `password`, `role`, `is_active`. A company keeps at least one active admin: demoting or deactivating ' +
      'the last one answers 409 `last_admin`.',
    security: 'bearer',
    adminOnly: true,
    request: { params: schemas.idParams, body: updateUserBody },
    responses: { 200: { description: 'The changed user.', schema: userSchema } },
    errors: [409],
  },
  {
    method: 'delete',
    path: '/api/v1/users/{id}/',
    operationId: 'deactivateUser',
    tag: 'users',
    summary: 'Deactivate a user',
    description:
      "Users are never deleted (the ledger names them): this sets `is_active` to false, and the user's tokens stop working at once. " +
      'The last active admin answers 409 `last_admin`.',
    security: 'bearer',
    adminOnly: true,
    request: { params: schemas.idParams },
    responses: { 204: { description: 'Deactivated.' } },
    errors: [409],
  },
);
