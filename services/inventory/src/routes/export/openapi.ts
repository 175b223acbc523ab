/** The OpenAPI operation of /api/v1/export/ (router.ts). */
import { operations } from '@pi/common';
import { companyExportSchema } from './responses';
import { exportQuery } from './schema';

export const exportOperations = operations({
  method: 'get',
  path: '/api/v1/export/',
  operationId: 'exportCompany',
  tag: 'export',
  summary: "Download all of the company's records",
  description:
    'Every record of the caller\'s company as one JSON document, streamed from one read-only snapshot (a booking made meanwhile is ' +
    'either wholly in it or not at all). If the export fails midway the connection is cut, so a partial file never looks complete.',
  security: 'bearer',
  request: { query: exportQuery },
  responses: {
    200: {
      description: 'The export document, as a download.',
      schema: companyExportSchema,
      headers: {
        'Content-Disposition': '`attachment; filename="export-<company>-<YYYY-MM-DD>.json"`.',
        'Cache-Control': '`no-store`.',
      },
    },
  },
});
