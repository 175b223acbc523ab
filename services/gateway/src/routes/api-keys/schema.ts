import Joi from 'joi';
import { PERMISSIONS, orderingQuery, schemas } from '@pi/common';
import { API_KEY_ORDERING } from '../../commands/api-keys';
import { allowedDomainsSchema } from '../../auth/allowed-origins';

const permissions = Joi.array()
  .items(Joi.string().valid(...PERMISSIONS))
  .min(1)
  .unique();
const expiresAt = schemas.timestamp.greater('now').allow(null).messages({ 'date.greater': 'must be in the future' });

export const createKeyBody = Joi.object({
  name: Joi.string().trim().min(1).max(100).required(),
  permissions: permissions.default(['read']),
  allowed_domains: allowedDomainsSchema.default([]),
  expires_at: expiresAt,
});

export const updateKeyBody = Joi.object({
  name: Joi.string().trim().min(1).max(100),
  permissions,
  allowed_domains: allowedDomainsSchema,
  expires_at: expiresAt,
}).min(1);

/** Rotation takes no fields: an unknown one is refused, as everywhere. */
export const rotateKeyBody = Joi.object({});

export const listKeysQuery = Joi.object({
  ...schemas.pagination,
  include_revoked: Joi.boolean().default(false),
  include_minted: Joi.boolean().default(false),
  ordering: orderingQuery(API_KEY_ORDERING),
});
