/** Company API keys, for admins: the value is in the answers to create and rotate only. */
import { operations, pageSchema, schemas } from '@pi/common';
import { apiKeySchema, apiKeyWithValueSchema } from '../../presenters';
import { createKeyBody, listKeysQuery, rotateKeyBody, updateKeyBody } from './schema';

export const apiKeyPageSchema = pageSchema(apiKeySchema, 'ApiKeyPage');

const REVOKED = 'A revoked key answers 409 `key_revoked`.';
const FINAL = `${REVOKED} An expired key answers 409 \`key_expired\`: it cannot be revived (create a new key instead).`;

export const apiKeysOperations = operations(
  {
    method: 'get',
    path: '/api/v1/api-keys/',
    operationId: 'listApiKeys',
    tag: 'api-keys',
    summary: "List the company's API keys",
    description: 'Oldest first, without their values. Revoked keys only with `include_revoked=true`; keys minted for QR scans only with `include_minted=true`.',
    security: 'bearer',
    adminOnly: true,
    request: { query: listKeysQuery },
    responses: { 200: { description: 'One page of keys.', schema: apiKeyPageSchema } },
  },
  {
    method: 'post',
    path: '/api/v1/api-keys/',
    operationId: 'createApiKey',
    tag: 'api-keys',
    summary: 'Create an API key',
    description:
      'The answer holds the value (`key`) this once; only its hash is stored. `permissions` default to `["read"]`, `allowed_domains` ' +
      'to none (any origin); `expires_at`, when given, must be in the future. New keys get the `free` tier.',
    security: 'bearer',
    adminOnly: true,
    request: { body: createKeyBody },
    responses: { 201: { description: 'The new key, with its value.', schema: apiKeyWithValueSchema } },
  },
  {
    method: 'get',
    path: '/api/v1/api-keys/{id}/',
    operationId: 'getApiKey',
    tag: 'api-keys',
    summary: 'One API key',
    security: 'bearer',
    adminOnly: true,
    request: { params: schemas.idParams },
    responses: { 200: { description: 'The key, without its value.', schema: apiKeySchema } },
  },
  {
    method: 'patch',
    path: '/api/v1/api-keys/{id}/',
    operationId: 'updateApiKey',
    tag: 'api-keys',
    summary: 'Change an API key',
    description: `Any of \`name\`, \`permissions\`, \`allowed_domains\`, \`expires_at\` (null: never expires). ${FINAL}`,
    security: 'bearer',
    adminOnly: true,
    request: { params: schemas.idParams, body: updateKeyBody },
    responses: { 200: { description: 'The changed key, without its value.', schema: apiKeySchema } },
    errors: [409],
  },
  {
    method: 'post',
    path: '/api/v1/api-keys/{id}/rotate/',
    operationId: 'rotateApiKey',
    tag: 'api-keys',
    summary: 'Rotate an API key',
    description: `No body (or \`{}\`). A new value, shown this once; the old value fails at once on every gateway, and keys minted from this one for QR scans are revoked. ${FINAL}`,
    security: 'bearer',
    adminOnly: true,
    request: { params: schemas.idParams, body: rotateKeyBody },
    responses: { 200: { description: 'The key with its new value.', schema: apiKeyWithValueSchema } },
    errors: [409],
  },
  {
    method: 'delete',
    path: '/api/v1/api-keys/{id}/',
    operationId: 'revokeApiKey',
    tag: 'api-keys',
    summary: 'Revoke an API key',
    description: `The key (and any key minted from it for QR scans) stops working at once; it stays listed with \`include_revoked=true\`. ${REVOKED}`,
    security: 'bearer',
    adminOnly: true,
    request: { params: schemas.idParams },
    responses: { 204: { description: 'Revoked.' } },
    errors: [409],
  },
);
