/** The pages' entry points in the OpenAPI document (their assets are static files, not operations). */
import { type ServiceApi, htmlResponse } from '@pi/common';

export const pagesApi: ServiceApi = {
  service: 'pages',
  tags: [{ name: 'pages', description: 'The widget and the dashboard, served by the gateway.' }],
  operations: [
    {
      method: 'get',
      path: '/widget/',
      operationId: 'getWidgetPage',
      tag: 'pages',
      summary: 'The widget page',
      description: 'Opened from a scan (`?token=`, exchanged once) or embedded by `sdk.js` with a company API key. Any site may frame it.',
      security: 'none',
      responses: htmlResponse('The widget.'),
    },
    {
      method: 'get',
      path: '/widget/sdk.js',
      operationId: 'getWidgetSdk',
      tag: 'pages',
      summary: 'The embedding script',
      description: "Mounts the widget in a sandboxed iframe on a site in the key's `allowed_domains`.",
      security: 'none',
      responses: { 200: { description: 'The script.', contentType: 'application/javascript' } },
    },
    {
      method: 'get',
      path: '/dashboard/',
      operationId: 'getDashboardPage',
      tag: 'pages',
      summary: 'The administration dashboard',
      description: 'Signs in with a username and password (bearer tokens). It may not be framed.',
      security: 'none',
      responses: htmlResponse('The dashboard.'),
    },
  ],
};
