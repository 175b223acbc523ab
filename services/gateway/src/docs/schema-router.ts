/** `GET /api/schema/`: the OpenAPI document as JSON, or YAML with `?format=yaml`. Built once per process. */
import { Router } from 'express';
import YAML from 'yaml';
import { ROUTER_OPTIONS, validate } from '@pi/common';
import type { OpenApiDocument } from './document';
import { schemaQuery } from './operations';

export function schemaRouter(document: OpenApiDocument): Router {
  const router = Router(ROUTER_OPTIONS);
  const json = JSON.stringify(document);
  const yaml = YAML.stringify(document, { aliasDuplicateObjects: false });
  router.get('/api/schema/', validate({ query: schemaQuery }), (req, res) => {
    const { format } = req.query as { format: 'json' | 'yaml' };
    res.setHeader('Cache-Control', 'no-cache');
    if (format === 'yaml') res.type('application/yaml').send(yaml);
    else res.type('application/json').send(json);
  });
  return router;
}
