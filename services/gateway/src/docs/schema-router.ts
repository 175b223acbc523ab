/**
 * `GET /api/schema/`: the OpenAPI document as JSON, or YAML with `?format=yaml`. Built on the first request
 * for it and kept: building it (and its YAML) took about 0.6 s of CPU, which every gateway start paid. The
 * `yaml` package itself is loaded on the first YAML request too.
 */
import { Router } from 'express';
import type YAMLModule from 'yaml';
import { ROUTER_OPTIONS, validate } from '@pi/common';
import type { OpenApiDocument } from './document';
import { schemaQuery } from './operations';

const once = <T>(make: () => T): (() => T) => {
  let made: { value: T } | undefined;
  return () => (made ??= { value: make() }).value;
};

export function schemaRouter(buildDocument: () => OpenApiDocument): Router {
  const router = Router(ROUTER_OPTIONS);
  const document = once(buildDocument);
  const json = once(() => JSON.stringify(document()));
  const yaml = once(() => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on first use, not at start (above)
    const YAML = require('yaml') as typeof YAMLModule;
    return YAML.stringify(document(), { aliasDuplicateObjects: false });
  });
  router.get('/api/schema/', validate({ query: schemaQuery }), (req, res) => {
    const { format } = req.query as { format: 'json' | 'yaml' };
    res.setHeader('Cache-Control', 'no-cache');
    if (format === 'yaml') res.type('application/yaml').send(yaml());
    else res.type('application/json').send(json());
  });
  return router;
}
