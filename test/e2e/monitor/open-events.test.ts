/**
 * check_rules opens a company's events in bulk (check-rules/open-events.ts): one statement per chunk inserts
 * the events and the deliveries of those it opened. Chunks of 2 here, so that five events cross chunk
 * boundaries: an event still live for its (rule, product, batch) opens nothing and gets no delivery, each
 * opened event gets one delivery per active channel subscribed to its type, carrying a body that names it,
 * and opening the same events again opens nothing.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { parseEventBody } from '@pi/notify';
import type { EventOpening } from '@pi/monitor/dist/src/check-rules/open-events';
import { openEvents } from '@pi/monitor/dist/src/check-rules/open-events';
import { patch } from '../../support/api';
import { TestProduct, buildCompany, buildProduct } from '../../support/builders';
import { system } from '../../support/hooks';
import { query } from '../../support/sql';
import { buildChannel, buildEvent } from './helpers';

describe('check_rules: opening events in bulk', () => {
  it('opens each event once across chunks, with one delivery per subscribed active channel, and nothing the second time', async () => {
    const company = await buildCompany();
    const products: TestProduct[] = [];
    for (let i = 0; i < 5; i++) products.push(await buildProduct(company));
    const first = await buildChannel(company, { events: ['THRESHOLD'] });
    const second = await buildChannel(company, { events: ['THRESHOLD', 'DATE_OFFSET'] });
    await buildChannel(company, { events: ['DATE_OFFSET'] });
    const off = await buildChannel(company, { events: ['THRESHOLD'] });
    expect((await patch(`/api/v1/notification-channels/${off.id}/`, { is_active: false }, { token: company.token })).status).to.equal(200);

    const openings: EventOpening[] = products.map((p) => ({
      product: { id: p.id, sku: p.sku, name: p.name, unit: 'pcs', decimals: 0, quantity: '1', batches: [] },
      event: {
        rule: {
          id: randomUUID(),
          source: 'rule',
          productId: p.id,
          name: null,
          triggerType: 'THRESHOLD',
          conditionConfig: { min: 5 },
          severity: 'CRITICAL',
          isActive: true,
        },
        batchId: null,
        message: `Low stock: ${p.name}`,
        details: { quantity: 1, min: 5 },
      },
    }));
    // Events still live for the rules of products 2 (OPEN) and 3 (IGNORED): nothing new opens for them.
    for (const [i, status] of [
      [2, 'OPEN'],
      [3, 'IGNORED'],
    ] as const) {
      await buildEvent(company, products[i], { ruleId: openings[i].event.rule.id, status });
    }

    const now = new Date('2031-05-01T08:00:00.000Z');
    const result = await openEvents(system().db.sequelize, company.id, openings, now, 2);
    expect(result.opened).to.equal(3);
    expect(result.deliveryIds).to.have.length(6);

    const deliveries = await query<{ id: string; channel_id: string; event_id: string; payload: string; status: string; product_id: string; severity: string }>(
      `SELECT d.id, d.channel_id, d.event_id, d.payload, d.status, e.product_id, e.severity
         FROM notification_deliveries d JOIN event_log e ON e.id = d.event_id WHERE d.company_id = $1`,
      [company.id],
    );
    const byId = new Map(deliveries.map((d) => [d.id, d]));
    const opened = [0, 1, 4].map((i) => products[i].id);
    // In the order of the events, each event's channels in id order.
    expect(result.deliveryIds.map((id) => byId.get(id)!.product_id)).to.deep.equal(opened.flatMap((id) => [id, id]));
    for (const productId of opened) {
      const own = deliveries.filter((d) => d.product_id === productId);
      expect(own.map((d) => d.channel_id).sort()).to.deep.equal([first.id, second.id].sort());
      for (const d of own) {
        const body = parseEventBody(d.payload);
        expect(body).to.include({ event_id: d.event_id, type: 'THRESHOLD', company_id: company.id, created_at: now.toISOString() });
        expect(body.payload).to.include({ severity: 'CRITICAL', status: 'OPEN' });
        expect(d).to.include({ status: 'PENDING', severity: 'CRITICAL' });
      }
    }

    const again = await openEvents(system().db.sequelize, company.id, openings, now, 2);
    expect(again).to.deep.equal({ opened: 0, deliveryIds: [] });
    const live = await query<{ product_id: string; n: string }>(
      "SELECT product_id, count(*) AS n FROM event_log WHERE company_id = $1 AND status IN ('OPEN', 'IGNORED') GROUP BY product_id",
      [company.id],
    );
    expect(live.map((r) => Number(r.n))).to.deep.equal([1, 1, 1, 1, 1]);
  });
});
