/**
 * Location changes that race other requests (docs/api/catalog-and-records.md, Locations): the tree stays a
 * tree however the moves that would loop it are spelled or interleaved, and a deactivated location never
 * holds stock, whatever booking was under way as it was deactivated.
 */
import { expect } from 'chai';
import { patch, post } from '../../support/api';
import { expectErrorShape } from '../../support/assertions';
import { Profile, TestCompany, buildCompany, buildLocation, buildProduct } from '../../support/builders';
import { holdLock, lineUpBehind } from '../../support/held-lock';
import { query, row } from '../../support/sql';
import { brokenRules } from '../fuzz/consistency';

const moveUnder = (company: TestCompany, id: string, parentId: string) => patch(`/api/v1/locations/${id}/`, { parent_id: parentId }, { token: company.token });

/** Each location's parent, by id, as stored. */
async function parents(ids: string[]): Promise<Record<string, string | null>> {
  const rows = await query<{ id: string; parent_id: string | null }>('SELECT id, parent_id FROM locations WHERE id = ANY($1::uuid[])', [ids]);
  return Object.fromEntries(rows.map((r) => [r.id, r.parent_id]));
}

describe('the location tree', () => {
  it('refuses to make a location its own parent or put it under its own descendant (400 naming parent_id), and changes nothing', async () => {
    const company = await buildCompany();
    const site = await buildLocation(company);
    const hall = await buildLocation(company);
    const shelf = await buildLocation(company);
    expect((await moveUnder(company, hall.id, site.id)).status).to.equal(200);
    expect((await moveUnder(company, shelf.id, hall.id)).status).to.equal(200);
    for (const [id, parentId] of [
      [site.id, site.id],
      [site.id, hall.id],
      [site.id, shelf.id],
    ]) {
      const refused = await moveUnder(company, id, parentId);
      expectErrorShape(refused, 400, 'validation_error');
      expect(refused.body.details).to.have.all.keys('parent_id');
    }
    expect(await parents([site.id, hall.id, shelf.id])).to.deep.equal({ [site.id]: null, [hall.id]: site.id, [shelf.id]: hall.id });
  });

  it('takes two moves that would close a loop between them one after the other: A under B and B under A give one 200 and one 400, never a 500', async () => {
    const company = await buildCompany();
    const a = await buildLocation(company);
    const b = await buildLocation(company);
    // Both rows held: each move waits on its own location, then both start together.
    const lock = await holdLock('SELECT id FROM locations WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE', [[a.id, b.id]]);
    const answers = await lineUpBehind(lock, [() => moveUnder(company, a.id, b.id), () => moveUnder(company, b.id, a.id)]);
    expect(answers.map((res) => res.status).sort(), JSON.stringify(answers.map((res) => res.body))).to.deep.equal([200, 400]);
    expectErrorShape(
      answers.find((res) => res.status === 400)!,
      400,
      'validation_error',
    );
    expect(await brokenRules([company.id])).to.deep.equal([]);
  });

  it('refuses the second half of a longer loop made at the same moment (1 under 2, 3 under 4, with 2 under 3 and 4 under 1 already)', async () => {
    const company = await buildCompany();
    const [one, two, three, four] = [await buildLocation(company), await buildLocation(company), await buildLocation(company), await buildLocation(company)];
    expect((await moveUnder(company, two.id, three.id)).status).to.equal(200);
    expect((await moveUnder(company, four.id, one.id)).status).to.equal(200);
    // The new parents held: each move has checked for a loop on the tree as committed before it waits here.
    const lock = await holdLock('SELECT id FROM locations WHERE id = ANY($1::uuid[]) ORDER BY id FOR UPDATE', [[two.id, four.id]]);
    const answers = await lineUpBehind(lock, [() => moveUnder(company, one.id, two.id), () => moveUnder(company, three.id, four.id)]);
    expect(answers.map((res) => res.status).sort(), JSON.stringify(answers.map((res) => res.body))).to.deep.equal([200, 400]);
    expect(await brokenRules([company.id])).to.deep.equal([]);
  });

  for (const profile of ['STANDARD', 'BATCH'] as Profile[]) {
    it(`does not deactivate a location while a booking into it is under way: the booking counts, the deactivation answers 409 (${profile})`, async () => {
      const company = await buildCompany();
      const product = await buildProduct(company, { profile });
      const location = await buildLocation(company);
      // The booking's stock lock held: the booking has checked the location and waits here.
      const lock = await holdLock('SELECT pg_advisory_xact_lock(ledger_lock_key($1::uuid, $2::uuid))', [product.id, location.id]);
      let booking: ReturnType<typeof post>;
      let deactivation: ReturnType<typeof patch>;
      let deactivationWaited: boolean;
      try {
        const batch = profile === 'BATCH' ? { batch: { code: 'LOT-1', expiration_date: '2031-01-01' } } : {};
        booking = post(
          `/api/v1/widget/${product.id}/transaction/`,
          { operation: 'add', quantity: 5, location_id: location.id, ...batch },
          { apiKey: company.apiKey },
        );
        await lock.waitForWaiters(1);
        deactivation = patch(`/api/v1/locations/${location.id}/`, { is_active: false }, { token: company.token });
        deactivationWaited = await Promise.race([
          deactivation.then(() => false),
          lock.waitForWaiters(2).then(
            () => true,
            () => false,
          ),
        ]);
      } finally {
        await lock.release();
      }
      const [booked, deactivated] = await Promise.all([booking!, deactivation!]);
      expect(booked.status, JSON.stringify(booked.body)).to.equal(200);
      expectErrorShape(deactivated, 409, 'location_has_stock');
      expect(deactivationWaited, 'the deactivation waited for the booking').to.equal(true);
      const stored = await row<{ is_active: boolean; stock: number }>(
        'SELECT l.is_active, (SELECT COALESCE(sum(quantity), 0) FROM stock_balances WHERE location_id = l.id)::int AS stock FROM locations l WHERE l.id = $1',
        [location.id],
      );
      expect(stored).to.deep.equal({ is_active: true, stock: 5 });
    });
  }
});
