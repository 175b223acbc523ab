/**
 * The route a request reached, as its documented template (`/api/v1/product-models/{id}/`), for the `route`
 * label: never the raw path, whose ids would make a new series per record. Set by whatever resolved the path
 * (a service's path gate, the gateway's public path table); read when the answer is finished.
 */
import type { Request } from 'express';

const templates = new WeakMap<Request, string>();

export function setRouteTemplate(req: Request, template: string): void {
  templates.set(req, template);
}

export function routeTemplateOf(req: Request): string | undefined {
  return templates.get(req);
}
