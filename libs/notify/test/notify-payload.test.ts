import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { buildEventBody, buildTestBody, parseEventBody, renderEventEmail, retryDelayMs, TEST_PRODUCT_NAME } from '../src';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

function sampleInput(overrides: Partial<Parameters<typeof buildEventBody>[0]> = {}): Parameters<typeof buildEventBody>[0] {
  return {
    eventId: randomUUID(),
    type: 'THRESHOLD',
    companyId: randomUUID(),
    product: { id: randomUUID(), sku: 'SKU-1', name: 'Blue widget' },
    message: 'Low stock: Blue widget (SKU-1) has 2 pcs, below the minimum of 5 pcs.',
    severity: 'CRITICAL',
    ruleId: randomUUID(),
    batchId: null,
    status: 'OPEN',
    createdAt: new Date('2025-03-04T05:06:07.089Z'),
    ...overrides,
  };
}

describe('notification body (docs/api/monitoring-and-notifications.md, The webhook body)', () => {
  it('has exactly the documented fields, in their order, with their types', () => {
    const input = sampleInput();
    const text = buildEventBody(input);
    const body = JSON.parse(text);
    expect(Object.keys(body)).to.deep.equal(['event_id', 'type', 'company_id', 'product', 'payload', 'created_at']);
    expect(Object.keys(body.product)).to.deep.equal(['id', 'sku', 'name']);
    expect(Object.keys(body.payload)).to.deep.equal(['message', 'severity', 'rule_id', 'batch_id', 'status']);
    expect(body).to.deep.equal({
      event_id: input.eventId,
      type: 'THRESHOLD',
      company_id: input.companyId,
      product: { id: input.product.id, sku: 'SKU-1', name: 'Blue widget' },
      payload: { message: input.message, severity: 'CRITICAL', rule_id: input.ruleId, batch_id: null, status: 'OPEN' },
      created_at: '2025-03-04T05:06:07.089Z',
    });
    expect(body.event_id).to.match(UUID);
    expect(body.company_id).to.match(UUID);
    expect(body.product.id).to.match(UUID);
    expect(body.payload.rule_id).to.match(UUID);
  });

  it('carries the batch id of a DATE_OFFSET event and writes created_at as ISO 8601 UTC whatever the input zone', () => {
    const batchId = randomUUID();
    const body = JSON.parse(buildEventBody(sampleInput({ type: 'DATE_OFFSET', batchId, createdAt: '2025-03-04T07:06:07+02:00' })));
    expect(body.type).to.equal('DATE_OFFSET');
    expect(body.payload.batch_id).to.equal(batchId);
    expect(body.created_at).to.equal('2025-03-04T05:06:07.000Z');
    expect(body.created_at).to.match(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/);
  });

  it('is byte-for-byte stable for the same input, so every retry sends (and signs) the same bytes', () => {
    const input = sampleInput();
    expect(buildEventBody(input)).to.equal(buildEventBody({ ...input }));
  });

  it('refuses an unknown event type and an invalid date', () => {
    expect(() => buildEventBody(sampleInput({ type: 'CUSTOM' as never }))).to.throw(TypeError, /event type/);
    expect(() => buildEventBody(sampleInput({ createdAt: 'not a date' }))).to.throw(TypeError, /created_at/);
  });

  it('builds a TEST body of the same shape, with a fresh event id and no product, rule or batch', () => {
    const companyId = randomUUID();
    const now = new Date('2025-01-02T03:04:05.000Z');
    const body = JSON.parse(buildTestBody(companyId, now));
    expect(Object.keys(body)).to.deep.equal(['event_id', 'type', 'company_id', 'product', 'payload', 'created_at']);
    expect(body.event_id).to.match(UUID);
    expect(body).to.deep.include({ type: 'TEST', company_id: companyId, created_at: '2025-01-02T03:04:05.000Z' });
    expect(body.product).to.deep.equal({ id: null, sku: null, name: TEST_PRODUCT_NAME });
    expect(body.payload).to.include({ severity: 'INFO', rule_id: null, batch_id: null, status: 'OPEN' });
    expect(body.payload.message).to.be.a('string').and.not.empty;
    expect(JSON.parse(buildTestBody(companyId, now)).event_id).to.not.equal(body.event_id);
  });

  it('parses a stored body back and refuses anything else', () => {
    const text = buildEventBody(sampleInput());
    expect(parseEventBody(text)).to.deep.equal(JSON.parse(text));
    expect(() => parseEventBody('{"hello":1}')).to.throw(TypeError);
    expect(() => parseEventBody('null')).to.throw(TypeError);
  });
});

describe('notification email rendering', () => {
  it('names severity, headline and product in the subject, and product, rule, severity and message in both bodies', () => {
    const input = sampleInput();
    const email = renderEventEmail(parseEventBody(buildEventBody(input)));
    expect(email.subject).to.equal('[CRITICAL] Low stock: Blue widget (SKU-1)');
    for (const part of [email.text, email.html]) {
      expect(part).to.include('Blue widget (SKU-1)');
      expect(part).to.include(input.ruleId!);
      expect(part).to.include('CRITICAL');
      expect(part).to.include('below the minimum of 5 pcs.');
    }
  });

  it('falls back to a headline per event type, and titles a TEST event "Test notification"', () => {
    const expiring = renderEventEmail(
      parseEventBody(buildEventBody(sampleInput({ type: 'DATE_OFFSET', severity: 'WARNING', message: 'batch B7 is close to expiry' }))),
    );
    expect(expiring.subject).to.equal('[WARNING] Expiring batch: Blue widget (SKU-1)');
    const test = renderEventEmail(parseEventBody(buildTestBody(randomUUID())));
    expect(test.subject).to.equal('[INFO] Test notification');
    expect(test.text).to.not.include('null');
  });

  it('escapes every value in the HTML body and keeps the subject on one line', () => {
    const email = renderEventEmail(
      parseEventBody(
        buildEventBody(
          sampleInput({
            product: { id: randomUUID(), sku: '<b>S&1</b>', name: 'Evil\r\nBcc: x@example.com <script>alert(1)</script>' },
            message: 'Low stock: "quoted" & <i>tagged</i>',
          }),
        ),
      ),
    );
    expect(email.subject).to.not.match(/[\r\n]/);
    expect(email.html).to.not.include('<script>');
    expect(email.html).to.not.include('<b>S&1</b>');
    expect(email.html).to.include('&lt;script&gt;alert(1)&lt;/script&gt;');
    expect(email.html).to.include('&lt;b&gt;S&amp;1&lt;/b&gt;');
    expect(email.html).to.include('&quot;quoted&quot; &amp; &lt;i&gt;tagged&lt;/i&gt;');
  });
});

describe('retry schedule (2^n × 60 s, at most 5 attempts)', () => {
  it('waits 2^n × 60 s after the n-th failed attempt', () => {
    expect([1, 2, 3, 4].map(retryDelayMs)).to.deep.equal([120_000, 240_000, 480_000, 960_000]);
  });
});
