/**
 * Work orders through the gateway: `/api/v1/work-orders/` (bearer) and the widget's open list
 * (`/api/v1/widget/work_orders/`, API key). CRUD, the status transitions (DONE and CANCELLED are final),
 * number uniqueness per company, filters, company isolation and bad input. Refused requests change nothing.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { api, get, patch, post } from '../../support/api';
import { BadCase, expectAccessDenied, expectErrorShape, expectMethodNotAllowed, expectNotFound, expectValidationError } from '../../support/assertions';
import { TestCompany, buildCompany, buildProduct, omit, unique } from '../../support/builders';
import { count, row } from '../../support/sql';

const STATUSES = ['OPEN', 'IN_PROGRESS', 'DONE', 'CANCELLED'] as const;
type Status = (typeof STATUSES)[number];
const ALLOWED: Record<Status, Status[]> = {
  OPEN: ['IN_PROGRESS', 'DONE', 'CANCELLED'],
  IN_PROGRESS: ['DONE', 'CANCELLED', 'OPEN'],
  DONE: [],
  CANCELLED: [],
};
const WORK_ORDER_KEYS = ['id', 'number', 'title', 'status', 'product_id', 'quantity', 'due_date', 'created_at', 'updated_at'];

const readWorkOrder = (id: string) =>
  row('SELECT company_id, number, title, status, product_id, quantity, due_date::text AS due_date, updated_at FROM work_orders WHERE id = $1', [id]);

const workOrdersOf = (company: TestCompany) => count('SELECT count(*) FROM work_orders WHERE company_id = $1', [company.id]);

async function createWorkOrder(company: TestCompany, body: Record<string, unknown> = {}) {
  const res = await post('/api/v1/work-orders/', { number: unique('WO'), title: 'Assemble shelves', ...body }, { token: company.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body;
}

describe('/api/v1/work-orders/: create, read, update, list', () => {
  it('creates a work order from a number and a title, OPEN by default, and answers 201 with the work order', async () => {
    const company = await buildCompany();
    const res = await post('/api/v1/work-orders/', { number: 'WO-1', title: 'Paint the fence' }, { token: company.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(201);
    expect(res.body).to.have.all.keys(...WORK_ORDER_KEYS);
    expect(res.body).to.include({ number: 'WO-1', title: 'Paint the fence', status: 'OPEN', product_id: null, quantity: null, due_date: null });
    expect(res.body.id).to.match(/^[0-9a-f-]{36}$/);
    expect(new Date(res.body.created_at).toISOString()).to.equal(res.body.created_at);
    expect(await readWorkOrder(res.body.id)).to.include({ company_id: company.id, number: 'WO-1', status: 'OPEN', product_id: null, quantity: null });
  });

  it('creates a work order for a product with a quantity, a due date and a status, and reads it back with GET', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    const created = await createWorkOrder(company, { number: 'WO-7', product_id: product.id, quantity: 12, due_date: '2031-03-15', status: 'IN_PROGRESS' });
    expect(created).to.include({ number: 'WO-7', status: 'IN_PROGRESS', product_id: product.id, quantity: 12, due_date: '2031-03-15' });
    const read = await get(`/api/v1/work-orders/${created.id}/`, { token: company.token });
    expect(read.status).to.equal(200);
    expect(read.body).to.deep.equal(created);
  });

  it('trims the number and the title', async () => {
    const company = await buildCompany();
    const created = await createWorkOrder(company, { number: '  WO-9  ', title: '  Fix the door ' });
    expect(created).to.include({ number: 'WO-9', title: 'Fix the door' });
  });

  it('updates any field with PATCH, clears optional ones with null, and moves updated_at', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    const created = await createWorkOrder(company, { product_id: product.id, quantity: 3, due_date: '2030-01-01' });
    const res = await patch(
      `/api/v1/work-orders/${created.id}/`,
      { number: 'WO-NEW', title: 'Renamed', quantity: 4, due_date: null },
      { token: company.token },
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ id: created.id, number: 'WO-NEW', title: 'Renamed', quantity: 4, due_date: null, product_id: product.id, status: 'OPEN' });
    expect(res.body.created_at).to.equal(created.created_at);
    expect(new Date(res.body.updated_at).getTime()).to.be.greaterThan(new Date(created.updated_at).getTime());

    const cleared = await patch(`/api/v1/work-orders/${created.id}/`, { product_id: null, quantity: null }, { token: company.token });
    expect(cleared.status, JSON.stringify(cleared.body)).to.equal(200);
    expect(cleared.body).to.include({ product_id: null, quantity: null });
    expect((await get(`/api/v1/work-orders/${created.id}/`, { token: company.token })).body).to.deep.equal(cleared.body);
  });

  it('takes a quantity with as many decimals as the product allows, and answers 400 naming quantity beyond them', async () => {
    const company = await buildCompany();
    const pieces = await buildProduct(company); // STANDARD: whole units
    const cable = await buildProduct(company, { profile: 'DIMENSIONAL', engine_config: { engine_type: 'dimensional', unit: 'm', decimals: 2 } });
    expect((await createWorkOrder(company, { product_id: cable.id, quantity: 2.75 })).quantity).to.equal(2.75);
    expect((await createWorkOrder(company, { quantity: 0.125 })).quantity).to.equal(0.125); // no product: the column's 6 decimals
    const before = await workOrdersOf(company);
    expectValidationError(
      await post('/api/v1/work-orders/', { number: unique('WO'), title: 't', product_id: pieces.id, quantity: 1.5 }, { token: company.token }),
      'quantity',
    );
    expectValidationError(
      await post('/api/v1/work-orders/', { number: unique('WO'), title: 't', product_id: cable.id, quantity: 1.255 }, { token: company.token }),
      'quantity',
    );
    expectValidationError(await post('/api/v1/work-orders/', { number: unique('WO'), title: 't', quantity: 0.0000001 }, { token: company.token }), 'quantity');
    expect(await workOrdersOf(company)).to.equal(before);
  });

  it("checks the stored quantity against a new product's decimals, and answers 400 naming quantity without changing the work order", async () => {
    const company = await buildCompany();
    const pieces = await buildProduct(company);
    const cable = await buildProduct(company, { profile: 'DIMENSIONAL', engine_config: { engine_type: 'dimensional', unit: 'm', decimals: 2 } });
    const created = await createWorkOrder(company, { product_id: cable.id, quantity: 2.5 });
    const before = await readWorkOrder(created.id);
    expectValidationError(await patch(`/api/v1/work-orders/${created.id}/`, { product_id: pieces.id }, { token: company.token }), 'quantity');
    expectValidationError(await patch(`/api/v1/work-orders/${created.id}/`, { quantity: 2.125 }, { token: company.token }), 'quantity');
    expect(await readWorkOrder(created.id)).to.deep.equal(before);
    const whole = await patch(`/api/v1/work-orders/${created.id}/`, { product_id: pieces.id, quantity: 3 }, { token: company.token });
    expect(whole.status, JSON.stringify(whole.body)).to.equal(200);
    expect(whole.body).to.include({ product_id: pieces.id, quantity: 3 });
  });

  it('lists the work orders paginated, in creation order, with count, next and previous', async () => {
    const company = await buildCompany();
    const ids: string[] = [];
    for (let i = 1; i <= 5; i++) ids.push((await createWorkOrder(company, { number: `WO-${i}` })).id);
    const first = await get('/api/v1/work-orders/?page_size=2', { token: company.token });
    expect(first.status).to.equal(200);
    expect(first.body).to.have.all.keys('count', 'next', 'previous', 'results');
    expect(first.body.count).to.equal(5);
    expect(first.body.previous).to.equal(null);
    expect(first.body.next).to.be.a('string').and.include('page=2');
    expect(first.body.results.map((w: { id: string }) => w.id)).to.deep.equal(ids.slice(0, 2));
    expect(first.body.results[0]).to.have.all.keys(...WORK_ORDER_KEYS);
    const last = await get('/api/v1/work-orders/?page=3&page_size=2', { token: company.token });
    expect(last.body.results.map((w: { id: string }) => w.id)).to.deep.equal(ids.slice(4));
    expect(last.body.next).to.equal(null);
    expect(last.body.previous).to.include('page=2');
  });

  it('filters the list by status and by product_id', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    const open = await createWorkOrder(company, { product_id: product.id });
    const started = await createWorkOrder(company, { status: 'IN_PROGRESS' });
    const done = await createWorkOrder(company, { status: 'DONE', product_id: product.id });
    const ids = async (query: string) => (await get(`/api/v1/work-orders/?${query}`, { token: company.token })).body.results.map((w: { id: string }) => w.id);
    expect(await ids('status=OPEN')).to.deep.equal([open.id]);
    expect(await ids('status=IN_PROGRESS')).to.deep.equal([started.id]);
    expect(await ids('status=CANCELLED')).to.deep.equal([]);
    expect(await ids(`product_id=${product.id}`)).to.deep.equal([open.id, done.id]);
    expect(await ids(`product_id=${product.id}&status=DONE`)).to.deep.equal([done.id]);
  });

  it('answers 405 method_not_allowed (Allow without DELETE) to DELETE: work orders are closed through their status, never deleted', async () => {
    const company = await buildCompany();
    const created = await createWorkOrder(company);
    expectMethodNotAllowed(await api('DELETE', `/api/v1/work-orders/${created.id}/`, { token: company.token }));
    expect(await workOrdersOf(company)).to.equal(1);
  });
});

describe('/api/v1/work-orders/: number uniqueness', () => {
  it('answers 409 already_exists naming number for a number the company already uses, and creates nothing', async () => {
    const company = await buildCompany();
    await createWorkOrder(company, { number: 'WO-100' });
    const res = await post('/api/v1/work-orders/', { number: 'WO-100', title: 'Another' }, { token: company.token });
    expectErrorShape(res, 409, 'already_exists');
    expect(res.body.details).to.have.all.keys('number');
    expect(await workOrdersOf(company)).to.equal(1);
  });

  it('answers 409 already_exists naming number when a PATCH takes a used number, and leaves the work order unchanged', async () => {
    const company = await buildCompany();
    await createWorkOrder(company, { number: 'WO-1' });
    const second = await createWorkOrder(company, { number: 'WO-2' });
    const before = await readWorkOrder(second.id);
    const res = await patch(`/api/v1/work-orders/${second.id}/`, { number: 'WO-1', title: 'Changed' }, { token: company.token });
    expectErrorShape(res, 409, 'already_exists');
    expect(res.body.details).to.have.all.keys('number');
    expect(await readWorkOrder(second.id)).to.deep.equal(before);
  });

  it('lets two companies use the same number', async () => {
    const a = await buildCompany();
    const b = await buildCompany();
    await createWorkOrder(a, { number: 'WO-SAME' });
    expect((await createWorkOrder(b, { number: 'WO-SAME' })).number).to.equal('WO-SAME');
  });

  it('creates one work order when ten requests race for the same number; the others answer 409', async () => {
    const company = await buildCompany();
    const answers = await Promise.all(
      Array.from({ length: 10 }, (_, i) => post('/api/v1/work-orders/', { number: 'WO-RACE', title: `Racer ${i}` }, { token: company.token })),
    );
    expect(answers.filter((r) => r.status === 201)).to.have.length(1);
    expect(answers.filter((r) => r.status === 409 && r.body.code === 'already_exists')).to.have.length(9);
    expect(await workOrdersOf(company)).to.equal(1);
  });
});

describe('/api/v1/work-orders/{id}/: status transitions', () => {
  let company: TestCompany;
  before(async () => {
    company = await buildCompany();
  });

  for (const from of STATUSES) {
    for (const to of STATUSES.filter((s) => s !== from)) {
      if (ALLOWED[from].includes(to)) {
        it(`moves a work order from ${from} to ${to}`, async () => {
          const created = await createWorkOrder(company, { status: from });
          const res = await patch(`/api/v1/work-orders/${created.id}/`, { status: to }, { token: company.token });
          expect(res.status, JSON.stringify(res.body)).to.equal(200);
          expect(res.body.status).to.equal(to);
          expect((await readWorkOrder(created.id)).status).to.equal(to);
        });
      } else {
        it(`answers 409 invalid_transition from ${from} to ${to} with allowed_transitions ${JSON.stringify(ALLOWED[from])}, changing nothing`, async () => {
          const created = await createWorkOrder(company, { status: from });
          const before = await readWorkOrder(created.id);
          const res = await patch(`/api/v1/work-orders/${created.id}/`, { status: to, title: 'Should not stick' }, { token: company.token });
          expectErrorShape(res, 409, 'invalid_transition');
          expect(res.body.details.allowed_transitions).to.deep.equal(ALLOWED[from]);
          expect(await readWorkOrder(created.id)).to.deep.equal(before);
        });
      }
    }
  }

  it('accepts a status equal to the current one as no transition, even when the status is final', async () => {
    for (const status of STATUSES) {
      const created = await createWorkOrder(company, { status });
      const res = await patch(`/api/v1/work-orders/${created.id}/`, { status }, { token: company.token });
      expect(res.status, `${status}: ${JSON.stringify(res.body)}`).to.equal(200);
      expect(res.body.status).to.equal(status);
    }
  });

  it('keeps a DONE work order DONE but lets its title and due date be corrected', async () => {
    const created = await createWorkOrder(company, { status: 'DONE' });
    const res = await patch(`/api/v1/work-orders/${created.id}/`, { title: 'Typo fixed', due_date: '2030-05-05' }, { token: company.token });
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body).to.include({ status: 'DONE', title: 'Typo fixed', due_date: '2030-05-05' });
  });
});

describe('/api/v1/work-orders/: company isolation', () => {
  it("answers 403 access_denied to B reading or updating A's work order, with nothing of it in the answer, and changes nothing", async () => {
    const a = await buildCompany();
    const b = await buildCompany();
    const order = await createWorkOrder(a, { number: unique('A_WO'), title: unique('A_title') });
    const before = await readWorkOrder(order.id);
    const secrets = [order.number, order.title, a.id];
    expectAccessDenied(await get(`/api/v1/work-orders/${order.id}/`, { token: b.token }), secrets);
    for (const body of [{ title: 'hijacked' }, { status: 'CANCELLED' }, { number: 'B-1', due_date: '2030-01-01' }]) {
      expectAccessDenied(await patch(`/api/v1/work-orders/${order.id}/`, body, { token: b.token }), secrets);
    }
    expect(await readWorkOrder(order.id)).to.deep.equal(before);
  });

  it("answers 403 access_denied to B creating a work order for A's product, and creates nothing", async () => {
    const a = await buildCompany();
    const b = await buildCompany();
    const product = await buildProduct(a);
    const res = await post('/api/v1/work-orders/', { number: 'WO-1', title: 'Steal', product_id: product.id, quantity: 1 }, { token: b.token });
    expectAccessDenied(res, [product.sku, product.name, a.id]);
    expect(await workOrdersOf(b)).to.equal(0);
  });

  it("answers 403 access_denied to B pointing its own work order at A's product, and leaves it unchanged", async () => {
    const a = await buildCompany();
    const b = await buildCompany();
    const product = await buildProduct(a);
    const order = await createWorkOrder(b);
    const before = await readWorkOrder(order.id);
    expectAccessDenied(await patch(`/api/v1/work-orders/${order.id}/`, { product_id: product.id }, { token: b.token }), [product.sku, a.id]);
    expect(await readWorkOrder(order.id)).to.deep.equal(before);
  });

  it("answers 403 access_denied to B filtering the list by A's product", async () => {
    const a = await buildCompany();
    const b = await buildCompany();
    const product = await buildProduct(a);
    await createWorkOrder(a, { product_id: product.id });
    expectAccessDenied(await get(`/api/v1/work-orders/?product_id=${product.id}`, { token: b.token }), [product.sku, a.id]);
  });

  it("lists none of A's work orders to B, on the dashboard or with B's key on /api/v1/widget/work_orders/", async () => {
    const a = await buildCompany();
    const b = await buildCompany();
    const aOrder = await createWorkOrder(a, { title: unique('A_secret') });
    const bOrder = await createWorkOrder(b);
    const list = await get('/api/v1/work-orders/?page_size=500', { token: b.token });
    expect(list.body.results.map((w: { id: string }) => w.id)).to.deep.equal([bOrder.id]);
    const widget = await get('/api/v1/widget/work_orders/', { apiKey: b.apiKey });
    expect(widget.status, JSON.stringify(widget.body)).to.equal(200);
    expect(widget.body.work_orders.map((w: { id: string }) => w.id)).to.deep.equal([bOrder.id]);
    expect(JSON.stringify([list.body, widget.body])).not.to.include(aOrder.title);
  });

  it('answers 404 not_found for a work order or product id that exists nowhere, and creates nothing', async () => {
    const b = await buildCompany();
    const nowhere = randomUUID();
    expectNotFound(await get(`/api/v1/work-orders/${nowhere}/`, { token: b.token }));
    expectNotFound(await patch(`/api/v1/work-orders/${nowhere}/`, { title: 'x' }, { token: b.token }));
    expectNotFound(await post('/api/v1/work-orders/', { number: 'WO-1', title: 'x', product_id: nowhere }, { token: b.token }));
    expectNotFound(await get(`/api/v1/work-orders/?product_id=${nowhere}`, { token: b.token }));
    expect(await workOrdersOf(b)).to.equal(0);
  });

  it('answers 401 without a bearer token, and to an API key (core endpoints take bearer tokens only)', async () => {
    const a = await buildCompany();
    expectErrorShape(await get('/api/v1/work-orders/'), 401, 'authentication_failed');
    expectErrorShape(await post('/api/v1/work-orders/', { number: 'WO-1', title: 'x' }, { apiKey: a.apiKey }), 401, 'authentication_failed');
    expect(await workOrdersOf(a)).to.equal(0);
  });
});

describe('POST /api/v1/work-orders/ with bad input', () => {
  const valid = () => ({ number: unique('WO'), title: 'Title', due_date: '2030-01-31', quantity: 2 });
  const without = (key: string) => omit(valid(), key);
  const cases: BadCase[] = [
    // A missing number is generated (work-order-numbers.test.ts); a missing title is still refused.
    { when: 'title is missing', body: without('title'), fields: ['title'] },
    { when: 'the body is empty', body: {}, fields: ['title'] },
    { when: 'number is null', body: { ...valid(), number: null }, fields: ['number'] },
    { when: 'number is 51 characters long', body: { ...valid(), number: 'x'.repeat(51) }, fields: ['number'] },
    { when: 'number is only blanks', body: { ...valid(), number: '   ' }, fields: ['number'] },
    { when: 'number is a JSON number', body: { ...valid(), number: 42 }, fields: ['number'] },
    { when: 'title is 201 characters long', body: { ...valid(), title: 'x'.repeat(201) }, fields: ['title'] },
    { when: 'title is empty', body: { ...valid(), title: '' }, fields: ['title'] },
    { when: 'status is not a status', body: { ...valid(), status: 'CLOSED' }, fields: ['status'] },
    { when: 'status is lower case', body: { ...valid(), status: 'open' }, fields: ['status'] },
    { when: 'product_id is not a UUID', body: { ...valid(), product_id: 'not-a-uuid' }, fields: ['product_id'] },
    { when: 'quantity is zero', body: { ...valid(), quantity: 0 }, fields: ['quantity'] },
    { when: 'quantity is negative', body: { ...valid(), quantity: -3 }, fields: ['quantity'] },
    { when: 'quantity is a string', body: { ...valid(), quantity: '5' }, fields: ['quantity'] },
    { when: 'due_date is not a date', body: { ...valid(), due_date: 'tomorrow' }, fields: ['due_date'] },
    { when: 'due_date has month 13', body: { ...valid(), due_date: '2030-13-01' }, fields: ['due_date'] },
    { when: 'due_date is February 30th', body: { ...valid(), due_date: '2030-02-30' }, fields: ['due_date'] },
    { when: 'due_date carries a time', body: { ...valid(), due_date: '2030-02-03T00:00:00Z' }, fields: ['due_date'] },
    { when: 'due_date is day-month-year', body: { ...valid(), due_date: '31-01-2030' }, fields: ['due_date'] },
    { when: 'an unknown field (company_id) is sent', body: { ...valid(), company_id: randomUUID() }, fields: ['company_id'] },
    {
      when: 'several fields are wrong at once',
      body: { number: '', title: 7, due_date: 'x', quantity: 0 },
      fields: ['number', 'title', 'due_date', 'quantity'],
    },
    { when: 'the body is a JSON array', body: [valid()], fields: ['body'] },
  ];
  for (const c of cases) {
    it(`answers 400 naming ${c.fields.join(', ')} when ${c.when}, and creates no work order`, async () => {
      const company = await buildCompany();
      const res = await post('/api/v1/work-orders/', c.body, { token: company.token });
      expectValidationError(res, ...c.fields);
      expect(await workOrdersOf(company)).to.equal(0);
    });
  }
});

describe('PATCH /api/v1/work-orders/{id}/ and the list with bad input', () => {
  const cases: BadCase[] = [
    { when: 'the body is empty', body: {}, fields: ['body'] },
    { when: 'title is 201 characters long', body: { title: 'x'.repeat(201) }, fields: ['title'] },
    { when: 'number is null', body: { number: null }, fields: ['number'] },
    { when: 'status is not a status', body: { status: 'ARCHIVED' }, fields: ['status'] },
    { when: 'due_date is not a date', body: { due_date: '2030-02-30' }, fields: ['due_date'] },
    { when: 'product_id is not a UUID', body: { product_id: '1234' }, fields: ['product_id'] },
    { when: 'an unknown field (id) is sent', body: { id: randomUUID() }, fields: ['id'] },
  ];
  for (const c of cases) {
    it(`answers 400 naming ${c.fields.join(', ')} when ${c.when}, and leaves the work order unchanged`, async () => {
      const company = await buildCompany();
      const order = await createWorkOrder(company);
      const before = await readWorkOrder(order.id);
      expectValidationError(await patch(`/api/v1/work-orders/${order.id}/`, c.body, { token: company.token }), ...c.fields);
      expect(await readWorkOrder(order.id)).to.deep.equal(before);
    });
  }

  it('answers 400 naming id for a malformed UUID in the path of GET and PATCH', async () => {
    const company = await buildCompany();
    expectValidationError(await get('/api/v1/work-orders/not-a-uuid/', { token: company.token }), 'id');
    expectValidationError(await patch('/api/v1/work-orders/not-a-uuid/', { title: 'x' }, { token: company.token }), 'id');
  });

  it('answers 400 naming each bad list parameter: status, product_id, page, page_size and unknown ones', async () => {
    const company = await buildCompany();
    expectValidationError(await get('/api/v1/work-orders/?status=LATE', { token: company.token }), 'status');
    expectValidationError(await get('/api/v1/work-orders/?product_id=abc', { token: company.token }), 'product_id');
    expectValidationError(await get('/api/v1/work-orders/?page=0&page_size=501', { token: company.token }), 'page', 'page_size');
    expectValidationError(await get(`/api/v1/work-orders/?company_id=${randomUUID()}`, { token: company.token }), 'company_id');
  });
});
