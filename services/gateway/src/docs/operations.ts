/** The documentation's own operations. */
import Joi from 'joi';
import { htmlResponse, operations } from '@pi/common';

export const schemaQuery = Joi.object({
  format: Joi.string().valid('json', 'yaml').default('json').description('`yaml` answers the same document as YAML.'),
});

export const docsOperations = operations(
  {
    method: 'get',
    path: '/api/schema/',
    operationId: 'getOpenApiDocument',
    tag: 'docs',
    summary: 'The OpenAPI document',
    security: 'none',
    request: { query: schemaQuery },
    responses: {
      200: {
        description: 'This document, as JSON (or YAML with `?format=yaml`).',
        schema: Joi.object().unknown(true),
        otherContentTypes: { 'application/yaml': 'The same document as YAML (`?format=yaml`).' },
      },
    },
  },
  {
    method: 'get',
    path: '/api/docs/',
    operationId: 'getSwaggerUi',
    tag: 'docs',
    summary: 'Swagger UI',
    security: 'none',
    responses: htmlResponse('Swagger UI on this document.'),
  },
  {
    method: 'get',
    path: '/api/redoc/',
    operationId: 'getRedoc',
    tag: 'docs',
    summary: 'Redoc',
    security: 'none',
    responses: htmlResponse('Redoc on this document.'),
  },
);
