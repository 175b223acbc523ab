/**
 * The OpenAPI document (issue 6): valid by a real validator, served as JSON and YAML, and exactly the routes
 * the services have: a route missing from the document, a documented operation no service has, or a
 * documented request schema that is not the one the route validates with, fails here. (Every answer the
 * other suites receive is checked against the document by support/api.ts.)
 */
import SwaggerParser from '@apidevtools/swagger-parser';
import { expect } from 'chai';
import YAML from 'yaml';
import { ApiOperation, ServiceApi, publishApi, readPublishedApi } from '@pi/common';
import { SERVICE_APIS, buildOpenApiDocument, deprecationTable } from '@pi/gateway';
import { inventoryApi } from '@pi/inventory';
import { monitorApi } from '@pi/monitor';
import { qrApi } from '@pi/qr';
import { get } from '../../support/api';
import { ExpressRoute, serviceRoutes } from '../../support/express-routes';

const key = (r: { method: string; path: string }) => `${r.method.toUpperCase()} ${r.path}`;

describe('OpenAPI document', () => {
  it('is a valid OpenAPI 3.1 document, served as JSON and as the same YAML', async () => {
    const json = await get('/api/schema/');
    expect(json.status).to.equal(200);
    expect(json.headers.get('content-type')).to.match(/^application\/json/);
    expect(json.body.openapi).to.match(/^3\.1\./);
    await SwaggerParser.validate(structuredClone(json.body));

    const yaml = await get('/api/schema/?format=yaml');
    expect(yaml.status).to.equal(200);
    expect(yaml.headers.get('content-type')).to.match(/^application\/yaml/);
    expect(YAML.parse(yaml.body)).to.deep.equal(json.body);
  });

  it('declares every parameter of every path template as a required path parameter (GET /go/{code}/, which validates none, too)', async () => {
    const { body } = await get('/api/schema/');
    const missing: string[] = [];
    for (const [path, item] of Object.entries<Record<string, any>>(body.paths)) {
      const names = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
      for (const [method, op] of Object.entries<any>(item)) {
        const declared = (op.parameters ?? []).filter((p: any) => p.in === 'path' && p.required === true).map((p: any) => p.name);
        for (const name of names) if (!declared.includes(name)) missing.push(`${method.toUpperCase()} ${path}: ${name}`);
      }
    }
    expect(missing).to.deep.equal([]);
    expect(body.paths['/go/{code}/'].get.parameters.find((p: any) => p.in === 'path')).to.deep.equal({
      name: 'code',
      in: 'path',
      required: true,
      schema: { type: 'string' },
    });
  });

  it('answers 400 naming format for an unknown format', async () => {
    const res = await get('/api/schema/?format=xml');
    expect(res.status).to.equal(400);
    expect(res.body.details).to.have.property('format');
  });

  it('has both security schemes and marks the deprecated api_key of QR-code URLs', async () => {
    const { body } = await get('/api/schema/');
    const schemes = body.components.securitySchemes;
    expect(schemes.bearerAuth).to.include({ type: 'http', scheme: 'bearer' });
    expect(schemes.apiKeyQuery).to.include({ in: 'query', name: 'api_key' });
    expect(schemes.apiKeyHeader).to.include({ in: 'header', name: 'X-API-Key' });
    const scan = body.paths['/go/{code}/'].get;
    const apiKey = scan.parameters.find((p: any) => p.name === 'api_key');
    expect(apiKey.deprecated).to.equal(true);
    expect(scan.responses['302'].headers).to.have.keys(
      'X-API-Deprecated',
      'X-API-Sunset',
      ...Object.keys(scan.responses['302'].headers).filter((h: string) => !h.startsWith('X-API')),
    );
  });

  it('documents 503 (service_unavailable, outcome_unknown) on every operation and 504 upstream_timeout on every proxied one', async () => {
    const { body } = await get('/api/schema/');
    const own = new Set(SERVICE_APIS.filter((a) => a.service === 'gateway' || a.service === 'pages').flatMap((a) => a.operations.map(key)));
    let proxied = 0;
    for (const [path, item] of Object.entries<Record<string, any>>(body.paths)) {
      for (const [method, op] of Object.entries<any>(item)) {
        const name = key({ method, path });
        expect(op.responses, name).to.have.property('503');
        if (own.has(name)) {
          expect(op.responses, name).to.not.have.property('504');
        } else {
          expect(op.responses['504'], name).to.deep.equal({ $ref: '#/components/responses/Error504' });
          proxied += 1;
        }
      }
    }
    expect(proxied).to.be.greaterThan(40);
    expect(body.components.responses.Error503.description).to.include('service_unavailable').and.include('outcome_unknown');
    expect(body.components.responses.Error504.description).to.include('upstream_timeout').and.include('Idempotency-Key');
  });

  it('declares the Idempotency-Key header, with the 409 of a reused key, on exactly the bookings, the imports and the creations that a retry would make twice, which answer Idempotent-Replayed', async () => {
    const { body } = await get('/api/schema/');
    const keyed: string[] = [];
    for (const item of Object.values<Record<string, any>>(body.paths)) {
      for (const op of Object.values<any>(item)) {
        const header = (op.parameters ?? []).find((p: any) => p.in === 'header' && p.name === 'Idempotency-Key');
        if (!header) continue;
        keyed.push(op.operationId);
        expect(header, op.operationId).to.include({ required: false });
        expect(header.schema, op.operationId).to.include({ type: 'string', minLength: 1, maxLength: 255 });
        expect(new RegExp(header.schema.pattern).test('dashboard-0f'), op.operationId).to.equal(true);
        expect(new RegExp(header.schema.pattern).test('a b'), op.operationId).to.equal(false);
        expect(op.responses, op.operationId).to.have.property('409');
        const created = Object.entries<any>(op.responses).filter(([status, r]) => status.startsWith('2') && r.headers?.['Idempotent-Replayed']);
        expect(created, `${op.operationId}: an answer that can be replayed`).to.have.length(1);
      }
    }
    expect(keyed.sort()).to.deep.equal(
      [
        'createMovement',
        'createItem',
        'widgetBookTransaction',
        'widgetMoveStock',
        'widgetTransferStock',
        'importOpeningStock',
        'importLocations',
        'importProductModels',
        'createLocation',
        'widgetCreateLocation',
        'createWorkOrder',
      ].sort(),
    );
  });

  it("is built from what each service published (dist/api.json) exactly as from the services' own operations", () => {
    const deprecations = deprecationTable({ QR_API_KEY_URL_SUNSET: '2027-06-30' });
    const own = [inventoryApi, qrApi, monitorApi];
    const fromServices = buildOpenApiDocument({ apis: [...SERVICE_APIS.slice(0, 2), ...own], deprecations });
    expect(SERVICE_APIS.slice(2).map((api) => api.service)).to.deep.equal(own.map((api) => api.service));
    const asServed = buildOpenApiDocument({ apis: SERVICE_APIS, deprecations });
    expect(JSON.parse(JSON.stringify(asServed))).to.deep.equal(JSON.parse(JSON.stringify(fromServices)));
    // And the published text is the services' current list, not a stale build's.
    for (const [i, api] of own.entries()) expect(publishApi(SERVICE_APIS[i + 2])).to.equal(publishApi(readPublishedApi(publishApi(api))));
  });

  describe('matches the routes of every service', () => {
    const routesOf = (): Record<string, ExpressRoute[]> => serviceRoutes();
    const [gatewayApi, pagesApi] = SERVICE_APIS;
    const gatewayAndPages = { ...gatewayApi, operations: [...gatewayApi.operations, ...pagesApi.operations] };
    const apis: Record<string, ServiceApi> = { gateway: gatewayAndPages, inventory: inventoryApi, qr: qrApi, monitor: monitorApi };

    for (const service of Object.keys(apis)) {
      it(`${service}: every route is documented, every documented operation is routed, with the same request schemas`, () => {
        const routes = routesOf()[service];
        const documented = new Map<string, ApiOperation>(apis[service].operations.map((op) => [key(op), op]));
        const routed = new Map(routes.map((r) => [key(r), r]));
        expect(
          [...routed.keys()].filter((k) => !documented.has(k)),
          'routes missing from the document',
        ).to.deep.equal([]);
        expect(
          [...documented.keys()].filter((k) => !routed.has(k)),
          'documented but not routed',
        ).to.deep.equal([]);
        for (const [k, route] of routed) {
          const op = documented.get(k)!;
          for (const part of ['params', 'query', 'body'] as const) {
            expect(op.request?.[part], `${k}: documented ${part} schema is the validated one`).to.equal(route.requestSchemas?.[part]);
          }
        }
      });
    }

    it('gives every operation a unique operationId and a tag its service declares', () => {
      const ids = SERVICE_APIS.flatMap((a) => a.operations.map((op) => op.operationId));
      expect(ids.filter((id, i) => ids.indexOf(id) !== i)).to.deep.equal([]);
      for (const api of SERVICE_APIS) {
        const tags = new Set(api.tags.map((t) => t.name));
        expect(api.operations.filter((op) => !tags.has(op.tag)).map(key), `${api.service}: operations with an undeclared tag`).to.deep.equal([]);
      }
    });
  });
});
