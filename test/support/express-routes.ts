/** The routes an Express app or router really has, found by walking its layers (Express 5 / router 2). */
import type { RequestSchemas } from '@pi/common';

export interface ExpressRoute {
  method: string;
  /** As an OpenAPI template: `:id` becomes `{id}`. */
  path: string;
  /** The schemas of the route's `validate()` step, if it has one. */
  requestSchemas?: RequestSchemas;
}

interface Layer {
  route?: { path: string | string[]; methods: Record<string, boolean>; stack: Layer[] };
  handle?: { stack?: Layer[]; requestSchemas?: RequestSchemas };
}

export function expressRoutes(routerOrApp: unknown): ExpressRoute[] {
  const root = routerOrApp as { stack?: Layer[]; router?: { stack: Layer[] } };
  const stack = root.router?.stack ?? root.stack ?? [];
  return stack.flatMap(routesOfLayer);
}

function routesOfLayer(layer: Layer): ExpressRoute[] {
  if (layer.route) {
    const validator = layer.route.stack.find((l) => l.handle?.requestSchemas)?.handle?.requestSchemas;
    const paths = Array.isArray(layer.route.path) ? layer.route.path : [layer.route.path];
    return paths.flatMap((path) =>
      Object.keys(layer.route!.methods)
        .filter((m) => m !== '_all')
        .map((method) => ({ method: method.toLowerCase(), path: path.replace(/:(\w+)/g, '{$1}'), requestSchemas: validator })),
    );
  }
  return layer.handle?.stack ? layer.handle.stack.flatMap(routesOfLayer) : [];
}
