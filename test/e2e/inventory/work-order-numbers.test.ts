/**
 * Generated work order numbers (docs/api/catalog-and-records.md "Work order numbers"): a work order created
 * without a number gets `WO-0001`, `WO-0002`, … per company, distinct and consecutive under concurrent
 * creations, never a number already taken by hand, never a number generated before; numbers given by hand
 * still work.
 */
import { expect } from 'chai';
import { get, patch, post } from '../../support/api';
import { expectErrorShape } from '../../support/assertions';
import { TestCompany, buildCompany } from '../../support/builders';
import { count } from '../../support/sql';

async function create(company: TestCompany, body: Record<string, unknown> = {}) {
  const res = await post('/api/v1/work-orders/', { title: 'Generated', ...body }, { token: company.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body as { id: string; number: string };
}

const wo = (n: number) => `WO-${String(n).padStart(4, '0')}`;

describe('work order numbers generated when none is given', () => {
  it('numbers a company’s work orders WO-0001, WO-0002, … and answers the number', async () => {
    const company = await buildCompany();
    expect((await create(company)).number).to.equal('WO-0001');
    const second = await create(company);
    expect(second.number).to.equal('WO-0002');
    expect((await get(`/api/v1/work-orders/${second.id}/`, { token: company.token })).body.number).to.equal('WO-0002');
  });

  it('gives 12 concurrent creations 12 distinct consecutive numbers', async () => {
    const company = await buildCompany();
    const created = await Promise.all(Array.from({ length: 12 }, (_, i) => create(company, { title: `Concurrent ${i}` })));
    expect(created.map((o) => o.number).sort()).to.deep.equal(Array.from({ length: 12 }, (_, i) => wo(i + 1)));
    expect(await count('SELECT count(*) FROM work_orders WHERE company_id = $1', [company.id])).to.equal(12);
  });

  it('counts each company on its own, also when both create at once', async () => {
    const [a, b] = await Promise.all([buildCompany(), buildCompany()]);
    await create(a);
    const [fromA, fromB] = await Promise.all([Promise.all([create(a), create(a), create(a)]), Promise.all([create(b), create(b)])]);
    expect(fromA.map((o) => o.number).sort()).to.deep.equal(['WO-0002', 'WO-0003', 'WO-0004']);
    expect(fromB.map((o) => o.number).sort()).to.deep.equal(['WO-0001', 'WO-0002']);
  });

  it('still takes numbers given by hand, any format, and answers 409 already_exists for a duplicate', async () => {
    const company = await buildCompany();
    expect((await create(company, { number: 'JOB-17' })).number).to.equal('JOB-17');
    expect((await create(company)).number).to.equal('WO-0001');
    const dup = await post('/api/v1/work-orders/', { number: 'WO-0001', title: 'Again' }, { token: company.token });
    expectErrorShape(dup, 409, 'already_exists');
    expect(dup.body.details).to.have.property('number');
  });

  it('skips a number already given by hand, also when the two are created at once', async () => {
    const company = await buildCompany();
    await create(company, { number: 'WO-0002' });
    expect((await create(company)).number).to.equal('WO-0001');
    expect((await create(company)).number).to.equal('WO-0003');

    // Whichever commits first owns WO-0005: the hand-given one (and the generated ones skip it), or a
    // generated one (and the hand-given one is a duplicate). Never both, never a failure of another kind.
    const [byHand, ...generated] = await Promise.all([
      post('/api/v1/work-orders/', { number: 'WO-0005', title: 'By hand' }, { token: company.token }),
      ...Array.from({ length: 4 }, () => post('/api/v1/work-orders/', { title: 'Generated' }, { token: company.token })),
    ]);
    for (const res of generated) expect(res.status, JSON.stringify(res.body)).to.equal(201);
    const numbers = generated.map((r) => r.body.number as string);
    expect(new Set(numbers).size).to.equal(4);
    if (byHand.status === 201) {
      expect(byHand.body.number).to.equal('WO-0005');
      expect(numbers).to.not.include('WO-0005');
    } else {
      expectErrorShape(byHand, 409, 'already_exists');
      expect(numbers).to.include('WO-0005');
    }
  });

  it('never generates a number again, even after its work order was renumbered', async () => {
    const company = await buildCompany();
    const first = await create(company);
    expect((await patch(`/api/v1/work-orders/${first.id}/`, { number: 'RENAMED-1' }, { token: company.token })).status).to.equal(200);
    expect((await create(company)).number).to.equal('WO-0002');
  });
});
