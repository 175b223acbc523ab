/** The qr service's part of the OpenAPI document: one tag per resource, every public operation. */
import type { ServiceApi } from '@pi/common';
import { qrCodeEndpoints } from './routes/qr-codes/endpoints';
import { qrLabelEndpoints } from './routes/qr-codes/labels';
import { scanEndpoints } from './routes/scan';
import { widgetQrEndpoints } from './routes/widget/endpoints';

export const qrApi: ServiceApi = {
  service: 'qr',
  tags: [
    { name: 'qr-codes', description: "The company's QR codes on the dashboard: generated in batches, listed and looked up." },
    { name: 'qr-labels', description: 'Printable labels of QR codes: one as SVG or PNG, A4 sheets as SVG or PDF.' },
    { name: 'widget-qr', description: 'QR codes in the widget: read, assign to a product, item or work order, lock.' },
    { name: 'scan', description: 'Scanning a label: the redirect and the token exchange.' },
  ],
  operations: [...qrCodeEndpoints, ...qrLabelEndpoints, ...widgetQrEndpoints, ...scanEndpoints],
};
