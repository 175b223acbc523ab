/**
 * A booking runs one of two ways: STANDARD and DIMENSIONAL products in one statement (`ledger_book`,
 * sql/booking.ts), BATCH and SERIALIZED ones in a transaction of several statements
 * (ledger/general-booking.ts), which books any profile. These tests hold the two to the same rules: the
 * same orders on two identical products, one per path, book the same movements and balances and are
 * refused with the same errors; both take the same stock locks; the statement writes nothing for a
 * product it leaves to the transaction; and replays (including keys stored before bookings were stored as
 * data) answer the first answer byte for byte.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { ProductModel, type AppError } from '@pi/common';
import { findStockDifferences } from '@pi/inventory';
import { InLine, bookInMany } from '@pi/inventory/dist/src/ledger/book-many';
import type { BookingContext } from '@pi/inventory/dist/src/ledger/context';
import { bookInTransaction } from '@pi/inventory/dist/src/ledger/general-booking';
import { lockKey } from '@pi/inventory/dist/src/ledger/locks';
import type { BookedStock, BookingOrder, BookingOutcome } from '@pi/inventory/dist/src/ledger/types';
import { GeneralBookingNeeded, bookInOneStatement } from '@pi/inventory/dist/src/sql/booking';
import { get, patch, post } from '../../support/api';
import { TestCompany, addStock, buildCompany, buildLocation, buildProduct } from '../../support/builders';
import { system } from '../../support/hooks';
import { count, query, row } from '../../support/sql';
import { balanceOf, movementCount } from '../../support/stock';

type Order = BookingOrder;
type OneStatementOrder = Exclude<Order, { op: 'item' }>;

function contextOf(company: TestCompany): BookingContext {
  return {
    sequelize: system().db.sequelize,
    identity: { companyId: company.id, principal: { kind: 'api_key', id: company.apiKeyId }, permissions: ['read', 'write'] },
    requestId: `paths-${randomUUID()}`,
  };
}

/** What a booking did, without what differs between any two bookings (ids, sequence, time, product). */
function comparable(booked: BookedStock) {
  return {
    op: booked.op,
    unit: booked.unit,
    decimals: booked.decimals,
    total: booked.total,
    locations: booked.locations,
    movements: booked.movements.map((m) => [m.kind, m.from_location_id, m.to_location_id, m.quantity, m.batch_id, m.reason, m.actor_kind, m.actor_id]),
  };
}

/** The outcome of an order as plain data: what it booked, or the error it was refused with. */
async function outcomeOf(run: () => Promise<BookingOutcome>) {
  try {
    const outcome = await run();
    if (!('booked' in outcome)) throw new Error('unexpected legacy replay');
    return { booked: comparable(outcome.booked), refused: undefined };
  } catch (err) {
    const e = err as AppError;
    if (e.status === undefined) throw err;
    return { booked: undefined, refused: { status: e.status, code: e.code, message: e.message, details: e.details } };
  }
}

describe('bookings: the one-statement path and the transaction book alike', () => {
  let company: TestCompany;
  let ctx: BookingContext;
  let a: string;
  let b: string;
  let inactive: string;
  let inbound: string;
  let outbound: string;
  let foreign: string;
  before(async () => {
    company = await buildCompany();
    ctx = contextOf(company);
    [a, b, inactive] = [(await buildLocation(company)).id, (await buildLocation(company)).id, (await buildLocation(company)).id];
    expect((await patch(`/api/v1/locations/${inactive}/`, { is_active: false }, { token: company.token })).status).to.equal(200);
    const virtual = (await get('/api/v1/locations/?type=VIRTUAL', { token: company.token })).body.results as Array<{ id: string; name: string }>;
    inbound = virtual.find((l) => l.name === 'Inbound')!.id;
    outbound = virtual.find((l) => l.name === 'Outbound')!.id;
    foreign = (await buildLocation(await buildCompany())).id;
  });

  /** The same orders, in order, for a product: what each did. */
  const script = (productId: string): Array<[string, Order]> => {
    const nowhere = randomUUID();
    const order = (o: Record<string, unknown>) => ({ productId, ...o }) as unknown as Order;
    return [
      ['add 10 at A', order({ op: 'in', kind: 'ADD', locationId: a, details: { quantity: 10, reason: 'delivery' } })],
      ['take 3 from A', order({ op: 'out', kind: 'MOVE_OUT', locationId: a, details: { quantity: 3, reason: '' } })],
      ['transfer 4 from A to B', order({ op: 'transfer', fromId: a, toId: b, details: { quantity: 4, reason: 'rebalance' } })],
      ['count A as 5, expecting 3', order({ op: 'count', locationId: a, details: { quantity: 5, expected_quantity: 3, reason: 'count' } })],
      ['count A as 5 again, expecting 4', order({ op: 'count', locationId: a, details: { quantity: 5, expected_quantity: 4, reason: 'count' } })],
      ['count B as 1 (down)', order({ op: 'count', locationId: b, details: { quantity: 1, reason: '' } })],
      ['count B as 1 again (nothing)', order({ op: 'count', locationId: b, details: { quantity: 1, reason: '' } })],
      ['core: from Inbound (uppercase id) to B', order({ op: 'core', fromId: inbound.toUpperCase(), toId: b, details: { quantity: 2, reason: '' } })],
      ['core: from B to Outbound', order({ op: 'core', fromId: b, toId: outbound, details: { quantity: 1, reason: '' } })],
      ['core: from A to B', order({ op: 'core', fromId: a, toId: b, details: { quantity: 1, reason: '' } })],
      ['core: from Inbound to Outbound', order({ op: 'core', fromId: inbound, toId: outbound, details: { quantity: 1, reason: '' } })],
      ['take more than there is', order({ op: 'out', kind: 'SUBTRACT', locationId: a, details: { quantity: 100, reason: '' } })],
      ['transfer more than there is', order({ op: 'transfer', fromId: b, toId: a, details: { quantity: 100, reason: '' } })],
      ['transfer to the same location', order({ op: 'transfer', fromId: a, toId: a, details: { quantity: 1, reason: '' } })],
      ['transfer from a VIRTUAL location', order({ op: 'transfer', fromId: inbound, toId: a, details: { quantity: 1, reason: '' } })],
      ['add at an inactive location', order({ op: 'in', kind: 'ADD', locationId: inactive, details: { quantity: 1, reason: '' } })],
      ["add at another company's location", order({ op: 'in', kind: 'ADD', locationId: foreign, details: { quantity: 1, reason: '' } })],
      ['add at a location that exists nowhere', order({ op: 'in', kind: 'ADD', locationId: nowhere, details: { quantity: 1, reason: '' } })],
      ['add 1.5 of a whole-unit product', order({ op: 'in', kind: 'ADD', locationId: a, details: { quantity: 1.5, reason: '' } })],
      ['count with an over-precise expected quantity', order({ op: 'count', locationId: a, details: { quantity: 1, expected_quantity: 0.5, reason: '' } })],
      ['transfer without a quantity', order({ op: 'transfer', fromId: a, toId: b, details: { reason: '' } })],
    ];
  };

  it('books the same movements and balances, and refuses with the same errors, for every kind of order', async function () {
    this.timeout(60_000);
    const [fast, general] = [await buildProduct(company), await buildProduct(company)];
    const viaStatement = script(fast.id);
    const viaTransaction = script(general.id);
    const refusals: string[] = [];
    for (let i = 0; i < viaStatement.length; i++) {
      const [what, order] = viaStatement[i];
      const one = await outcomeOf(() => bookInOneStatement(ctx, order as OneStatementOrder, 200));
      const several = await outcomeOf(() => bookInTransaction(ctx, viaTransaction[i][1], 200));
      expect(one, what).to.deep.equal(several);
      if (one.refused) refusals.push(`${what}: ${one.refused.status} ${one.refused.code}`);
    }
    // The script exercises every refusal the statement has, each with the status the API promises.
    expect(refusals).to.deep.equal([
      'count A as 5 again, expecting 4: 409 stock_changed',
      'core: from Inbound to Outbound: 400 validation_error',
      'take more than there is: 409 insufficient_stock',
      'transfer more than there is: 409 insufficient_stock',
      'transfer to the same location: 400 validation_error',
      'transfer from a VIRTUAL location: 400 validation_error',
      'add at an inactive location: 400 validation_error',
      "add at another company's location: 403 access_denied",
      'add at a location that exists nowhere: 404 not_found',
      'add 1.5 of a whole-unit product: 400 validation_error',
      'count with an over-precise expected quantity: 400 validation_error',
      'transfer without a quantity: 400 validation_error',
    ]);
    for (const at of [a, b]) expect(await balanceOf(fast.id, at), `stock at ${at}`).to.equal(await balanceOf(general.id, at));
    expect(await balanceOf(fast.id, a)).to.equal(4);
    expect((await findStockDifferences(system().db, company.id)).differences).to.deep.equal([]);
  });

  it("refuses a product that is not the caller's, exists nowhere, or is inactive, alike on both paths", async () => {
    const other = await buildCompany();
    const theirs = await buildProduct(other);
    const gone = await buildProduct(company);
    expect((await patch(`/api/v1/product-models/${gone.id}/`, { is_active: false }, { token: company.token })).status).to.equal(200);
    for (const productId of [theirs.id, randomUUID(), gone.id]) {
      const order = { op: 'in', kind: 'ADD', productId, locationId: a, details: { quantity: 1, reason: '' } } as const;
      const one = await outcomeOf(() => bookInOneStatement(ctx, order, 200));
      expect(one).to.deep.equal(await outcomeOf(() => bookInTransaction(ctx, order, 200)));
      expect(one.refused).to.be.an('object');
    }
  });

  it('takes the same advisory lock keys in SQL as in the service, so both paths wait for each other', async () => {
    const pairs = Array.from({ length: 20 }, () => [randomUUID(), randomUUID()]);
    const keys = await query<{ key: string }>('SELECT ledger_lock_key(p::uuid, l::uuid)::text AS key FROM unnest($1::text[], $2::text[]) AS t(p, l)', [
      pairs.map(([p]) => p),
      pairs.map(([, l]) => l),
    ]);
    expect(keys.map((k) => k.key)).to.deep.equal(pairs.map(([p, l]) => lockKey(p, l).toString()));
  });

  it('writes nothing, not even the key claim, for a product it leaves to the transaction (BATCH, SERIALIZED)', async () => {
    for (const profile of ['BATCH', 'SERIALIZED'] as const) {
      const product = await buildProduct(company, { profile });
      const before = await movementCount(company.id);
      const key = `left-${randomUUID()}`;
      const order = { op: 'in', kind: 'ADD', productId: product.id, locationId: a, details: { quantity: 1, reason: '' } } as const;
      let thrown: unknown;
      await bookInOneStatement(ctx, order, 200, { key, fingerprint: 'f'.repeat(64) }).catch((err) => (thrown = err));
      expect(thrown, profile).to.be.instanceOf(GeneralBookingNeeded);
      expect(await count('SELECT count(*) FROM idempotency_keys WHERE company_id = $1 AND key = $2', [company.id, key])).to.equal(0);
      expect(await movementCount(company.id)).to.equal(before);
    }
  });
});

describe('Idempotency-Key replays on both paths', () => {
  /** A booking request answered as raw bytes (the API client parses JSON, which would hide a byte change). */
  async function rawPost(company: TestCompany, path: string, body: unknown, key: string) {
    const res = await fetch(`${system().url}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': company.apiKey, 'idempotency-key': key },
      body: JSON.stringify(body),
    });
    return { status: res.status, text: await res.text(), replayed: res.headers.get('idempotent-replayed') };
  }

  it('answers a replay with the first answer byte for byte, for a STANDARD (one statement) and a BATCH (transaction) product', async () => {
    const company = await buildCompany();
    const shelf = await buildLocation(company);
    const standard = await buildProduct(company);
    const batch = await buildProduct(company, { profile: 'BATCH' });
    const requests: Array<[string, Record<string, unknown>]> = [
      [`/api/v1/widget/${standard.id}/transaction/`, { operation: 'add', quantity: 5, location_id: shelf.id }],
      [`/api/v1/widget/${batch.id}/transaction/`, { operation: 'add', quantity: 5, location_id: shelf.id, batch: { code: `R-${batch.id.slice(0, 8)}` } }],
    ];
    for (const [path, body] of requests) {
      const key = `replay-${randomUUID()}`;
      const first = await rawPost(company, path, body, key);
      expect(first.status, first.text).to.equal(200);
      expect(first.replayed).to.equal(null);
      // Time passes and stock moves before the retry: the replay still shows the first answer.
      await addStock(
        company,
        path.includes(standard.id) ? standard.id : batch.id,
        shelf.id,
        1,
        path.includes(batch.id) ? { batch_id: JSON.parse(first.text).batch.id } : {},
      );
      const again = await rawPost(company, path, body, key);
      expect(again).to.deep.equal({ status: 200, text: first.text, replayed: 'true' });
    }
    expect(await balanceOf(standard.id, shelf.id)).to.equal(6);
    expect(await balanceOf(batch.id, shelf.id)).to.equal(6);
  });

  it('replays a key stored before bookings were stored as data (its HTTP body) as it was stored', async () => {
    const company = await buildCompany();
    const shelf = await buildLocation(company);
    for (const profile of ['STANDARD', 'BATCH'] as const) {
      const product = await buildProduct(company, { profile });
      const key = `legacy-${profile}`;
      const body = { operation: 'add', quantity: 2, location_id: shelf.id, ...(profile === 'BATCH' ? { batch: { code: `L-${product.id.slice(0, 8)}` } } : {}) };
      expect((await post(`/api/v1/widget/${product.id}/transaction/`, body, { apiKey: company.apiKey, headers: { 'idempotency-key': key } })).status).to.equal(
        200,
      );
      const legacy = {
        success: true,
        operation: 'add',
        product_id: product.id,
        location_id: shelf.id,
        new_stock_display: '2 pcs',
        location_stock_display: '2 pcs',
        movements: [],
      };
      await system().db.sequelize.query('UPDATE idempotency_keys SET booking = NULL, response_body = $3 WHERE company_id = $1 AND key = $2', {
        bind: [company.id, key, JSON.stringify(legacy)],
      });
      const replay = await post(`/api/v1/widget/${product.id}/transaction/`, body, { apiKey: company.apiKey, headers: { 'idempotency-key': key } });
      expect(replay.status, profile).to.equal(200);
      expect(replay.headers.get('idempotent-replayed')).to.equal('true');
      expect(replay.body, profile).to.deep.equal(legacy);
      expect(await balanceOf(product.id, shelf.id)).to.equal(2);
    }
  });

  it('refuses a key first used on one path with another request on the other path (409 idempotency_key_reused)', async () => {
    const company = await buildCompany();
    const shelf = await buildLocation(company);
    const [standard, batch] = [await buildProduct(company), await buildProduct(company, { profile: 'BATCH' })];
    const headers = { 'idempotency-key': 'shared-between-paths' };
    expect(
      (await post(`/api/v1/widget/${standard.id}/transaction/`, { operation: 'add', quantity: 1, location_id: shelf.id }, { apiKey: company.apiKey, headers }))
        .status,
    ).to.equal(200);
    const other = await post(
      `/api/v1/widget/${batch.id}/transaction/`,
      { operation: 'add', quantity: 1, location_id: shelf.id, batch: { code: 'X-1' } },
      { apiKey: company.apiKey, headers },
    );
    expect(other.status).to.equal(409);
    expect(other.body.code).to.equal('idempotency_key_reused');
    expect(await balanceOf(batch.id, shelf.id)).to.equal(0);
    const stored = await row<{ booking: string }>('SELECT booking FROM idempotency_keys WHERE company_id = $1 AND key = $2', [
      company.id,
      'shared-between-paths',
    ]);
    expect(JSON.parse(stored.booking).product_id).to.equal(standard.id);
  });
});

describe('BATCH transfers across batches (the transaction path, set-based)', () => {
  it('moves the earliest-expiring batches first, one movement per batch, and refuses a named batch that lacks the stock', async () => {
    const company = await buildCompany();
    const [from, to] = [await buildLocation(company), await buildLocation(company)];
    const milk = await buildProduct(company, { profile: 'BATCH' });
    const tag = milk.id.slice(0, 8);
    const late = await addStock(company, milk.id, from.id, 5, { batch: { code: `late-${tag}`, expiration_date: '2031-06-01' } });
    const early = await addStock(company, milk.id, from.id, 3, { batch: { code: `early-${tag}`, expiration_date: '2030-06-01' } });
    const res = await post(
      '/api/v1/widget/transfer/',
      { product_id: milk.id, from_location_id: from.id, to_location_id: to.id, quantity: 6 },
      { apiKey: company.apiKey },
    );
    expect(res.status, JSON.stringify(res.body)).to.equal(200);
    expect(res.body.movements.map((m: { batch_id: string; quantity: number; kind: string }) => [m.kind, m.batch_id, m.quantity])).to.deep.equal([
      ['TRANSFER', early.batch.id, 3],
      ['TRANSFER', late.batch.id, 3],
    ]);
    expect(res.body).to.include({ from_stock_display: '2 pcs', to_stock_display: '6 pcs', new_stock_display: '8 pcs' });
    const atTo = await query<{ batch_id: string; quantity: string }>(
      'SELECT batch_id, quantity::text AS quantity FROM stock_balances WHERE product_id = $1 AND location_id = $2 ORDER BY quantity',
      [milk.id, to.id],
    );
    expect(atTo.map((r) => [r.batch_id, Number(r.quantity)])).to.have.deep.members([
      [early.batch.id, 3],
      [late.batch.id, 3],
    ]);

    const before = await movementCount(company.id);
    const short = await post(
      '/api/v1/widget/transfer/',
      { product_id: milk.id, from_location_id: from.id, to_location_id: to.id, quantity: 1, batch_id: early.batch.id },
      { apiKey: company.apiKey },
    );
    expect(short.status).to.equal(409);
    expect(short.body.details).to.deep.equal({ available: 0, requested: 1, location_id: from.id, batch_id: early.batch.id });
    expect(await movementCount(company.id)).to.equal(before);
    expect((await findStockDifferences(system().db, company.id)).differences).to.deep.equal([]);
  });
});

describe('bookInMany (the opening-stock import) checks every line of a batch code, as bookIn does', () => {
  it('refuses a line that names a batch code another line made for another product, or with another date, naming that line and writing nothing', async () => {
    const company = await buildCompany();
    const location = await buildLocation(company);
    const [milk, cream] = [await buildProduct(company, { profile: 'BATCH' }), await buildProduct(company, { profile: 'BATCH' })];
    const [milkModel, creamModel] = [await ProductModel.findByPk(milk.id), await ProductModel.findByPk(cream.id)];
    const code = `lot-${milk.id.slice(0, 8)}`;
    const line = (product: ProductModel, expiration_date: string) => ({
      product,
      locationId: location.id,
      batch: { code, expiration_date },
      quantity: '1',
      reason: 'opening stock',
    });
    const refusal = async (lines: InLine[]) =>
      system()
        .db.sequelize.transaction((tx) => bookInMany(contextOf(company), tx, lines, 'ADD', (err, i) => ({ line: i, code: (err as AppError).code })))
        .then(
          () => 'booked',
          (thrown: unknown) => thrown,
        );
    expect(await refusal([line(milkModel!, '2031-01-01'), line(creamModel!, '2031-01-01')])).to.deep.equal({ line: 1, code: 'already_exists' });
    expect(await refusal([line(milkModel!, '2031-01-01'), line(milkModel!, '2031-02-01')])).to.deep.equal({ line: 1, code: 'batch_mismatch' });
    expect(await count('SELECT count(*) FROM stock_movements WHERE product_id = ANY($1::uuid[])', [[milk.id, cream.id]])).to.equal(0);
    expect(await count('SELECT count(*) FROM batches WHERE company_id = $1 AND code = $2', [company.id, code])).to.equal(0);
  });
});
