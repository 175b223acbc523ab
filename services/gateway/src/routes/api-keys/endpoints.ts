/** /api/v1/api-keys/: company API keys, for admins. The value is in the answers to create and rotate only. */
import { buildPage, endpoints, pageSchema, schemas, type Call, type OrderTerm, type PageRequest } from '@pi/common';
import { createApiKey, getApiKey, listApiKeys, revokeApiKey, rotateApiKey, updateApiKey, type ApiKeyChanges, type NewApiKey } from '../../commands/api-keys';
import type { GatewayContext } from '../../context';
import { apiKeySchema, apiKeyWithValueSchema, presentApiKey } from '../../presenters';
import { createKeyBody, listKeysQuery, rotateKeyBody, updateKeyBody } from './schema';

export const apiKeyPageSchema = pageSchema(apiKeySchema, 'ApiKeyPage');

const base = '/api/v1/api-keys';
const tag = 'api-keys';
const params = schemas.idParams;

const REVOKED = 'A revoked key answers 409 `key_revoked`.';
const FINAL = `${REVOKED} An expired key answers 409 \`key_expired\`: it cannot be revived (create a new key instead).`;

type KeyFilters = PageRequest & { include_revoked: boolean; include_minted: boolean; ordering?: OrderTerm[] };

export const apiKeysEndpoints = endpoints<GatewayContext>(
  {
    method: 'get',
    path: `${base}/`,
    operationId: 'listApiKeys',
    tag,
    summary: "List the company's API keys",
    description: 'Oldest first, without their values. Revoked keys only with `include_revoked=true`; keys minted for QR scans only with `include_minted=true`.',
    security: 'bearer',
    adminOnly: true,
    request: { query: listKeysQuery },
    responses: { 200: { description: 'One page of keys.', schema: apiKeyPageSchema } },
    handle: async (ctx, { query, identity, req }: Call<KeyFilters>) => {
      const { rows, count } = await listApiKeys(ctx, identity, query);
      return buildPage(
        req,
        ctx.config.PUBLIC_BASE_URL,
        query,
        count,
        rows.map((r) => presentApiKey(r)),
      );
    },
  },
  {
    method: 'post',
    path: `${base}/`,
    operationId: 'createApiKey',
    tag,
    summary: 'Create an API key',
    description:
      'The answer holds the value (`key`) this once; only its hash is stored. `permissions` default to `["read"]`, `allowed_domains` ' +
      'to none (any origin); `expires_at`, when given, must be in the future. New keys get the `free` tier.',
    security: 'bearer',
    adminOnly: true,
    request: { body: createKeyBody },
    responses: { 201: { description: 'The new key, with its value.', schema: apiKeyWithValueSchema } },
    handle: async (ctx, { body, identity }: Call<unknown, NewApiKey>) => {
      const { row, value } = await createApiKey(ctx, identity, body);
      return presentApiKey(row, value);
    },
  },
  {
    method: 'get',
    path: `${base}/{id}/`,
    operationId: 'getApiKey',
    tag,
    summary: 'One API key',
    security: 'bearer',
    adminOnly: true,
    request: { params },
    responses: { 200: { description: 'The key, without its value.', schema: apiKeySchema } },
    handle: async (ctx, { params, identity }: Call) => presentApiKey(await getApiKey(ctx, identity, params.id)),
  },
  {
    method: 'patch',
    path: `${base}/{id}/`,
    operationId: 'updateApiKey',
    tag,
    summary: 'Change an API key',
    description: `Any of \`name\`, \`permissions\`, \`allowed_domains\`, \`expires_at\` (null: never expires). ${FINAL}`,
    security: 'bearer',
    adminOnly: true,
    request: { params, body: updateKeyBody },
    responses: { 200: { description: 'The changed key, without its value.', schema: apiKeySchema } },
    errors: [409],
    handle: async (ctx, { params, body, identity }: Call<unknown, ApiKeyChanges>) => {
      const row = await updateApiKey(ctx, identity, params.id, body);
      await ctx.credentials.settle(); // the change holds on this gateway before it answers (docs/api/authentication.md "Credential cache")
      return presentApiKey(row);
    },
  },
  {
    method: 'post',
    path: `${base}/{id}/rotate/`,
    operationId: 'rotateApiKey',
    tag,
    summary: 'Rotate an API key',
    description: `No body (or \`{}\`). A new value, shown this once; the old value fails at once on every gateway, and keys minted from this one for QR scans are revoked. ${FINAL}`,
    security: 'bearer',
    adminOnly: true,
    request: { params, body: rotateKeyBody },
    responses: { 200: { description: 'The key with its new value.', schema: apiKeyWithValueSchema } },
    errors: [409],
    handle: async (ctx, { params, identity }: Call) => {
      const { row, value } = await rotateApiKey(ctx, identity, params.id);
      await ctx.credentials.settle();
      return presentApiKey(row, value);
    },
  },
  {
    method: 'delete',
    path: `${base}/{id}/`,
    operationId: 'revokeApiKey',
    tag,
    summary: 'Revoke an API key',
    description: `The key (and any key minted from it for QR scans) stops working at once; it stays listed with \`include_revoked=true\`. ${REVOKED}`,
    security: 'bearer',
    adminOnly: true,
    request: { params },
    responses: { 204: { description: 'Revoked.' } },
    errors: [409],
    handle: async (ctx, { params, identity }: Call) => {
      await revokeApiKey(ctx, identity, params.id);
      await ctx.credentials.settle();
    },
  },
);
