/** The qr service's endpoints, in routing order, and its part of the OpenAPI document: one tag per resource, every public operation. */
import type { Endpoint, ServiceApi } from '@pi/common';
import type { QrContext } from './context';
import { qrCodeEndpoints } from './routes/qr-codes/endpoints';
import { qrLabelEndpoints } from './routes/qr-codes/labels';
import { scanEndpoints } from './routes/scan';
import { widgetQrEndpoints } from './routes/widget/endpoints';

/**
 * Every operation but the scan redirect (which has its own `qr_redirect` budget) is a QR API request and
 * counts against `qr_api` (docs/api/rate-limits-cors-headers.md). In route order: the labels' fixed names
 * (`labels.svg`) before `{code}/`, which would take them.
 */
export const qrEndpoints: Endpoint<QrContext>[] = [...qrLabelEndpoints, ...qrCodeEndpoints, ...widgetQrEndpoints, ...scanEndpoints].map((endpoint) =>
  endpoint.rateLimits ? endpoint : { ...endpoint, rateLimits: ['qr_api'] },
);

export const qrApi: ServiceApi = {
  service: 'qr',
  tags: [
    { name: 'qr-codes', description: "The company's QR codes on the dashboard: generated in batches, listed and looked up." },
    { name: 'qr-labels', description: 'Printable labels of QR codes: one as SVG or PNG, A4 sheets as SVG or PDF.' },
    { name: 'widget-qr', description: 'QR codes in the widget: read, assign to a product, item or work order, lock.' },
    { name: 'scan', description: 'Scanning a label: the redirect and the token exchange.' },
  ],
  operations: qrEndpoints,
};
