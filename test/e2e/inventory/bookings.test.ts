import { expect } from 'chai';
import { get, patch, post } from '../../support/api';
import { buildStock, TestCompany, addStock, buildCompany, buildLocation, buildProduct } from '../../support/builders';
import { balanceOf, ledgerStockOf, movementCount } from '../../support/stock';

const transaction = (company: TestCompany, productId: string, body: Record<string, unknown>, headers?: Record<string, string>) =>
  post(`/api/v1/widget/${productId}/transaction/`, body, { apiKey: company.apiKey, headers });

describe('POST /api/v1/widget/{id}/transaction/', () => {
  let company: TestCompany;
  let shelf: { id: string };
  before(async () => {
    company = await buildCompany();
    shelf = await buildLocation(company);
  });

  it('adds and subtracts a STANDARD product and answers the new stock_display', async () => {
    const product = await buildProduct(company);
    const added = await transaction(company, product.id, { operation: 'add', quantity: 12, location_id: shelf.id, reason: 'delivery' });
    expect(added.status).to.equal(200);
    expect(added.body).to.include({ success: true, operation: 'add', new_stock_display: '12 pcs', location_stock_display: '12 pcs' });
    expect(added.body.movements).to.have.length(1);
    expect(added.body.movements[0]).to.include({ kind: 'ADD', quantity: 12, to_location_id: shelf.id, reason: 'delivery' });
    expect(added.body.movements[0].actor.kind).to.equal('api_key');
    const taken = await transaction(company, product.id, { operation: 'subtract', quantity: 5, location_id: shelf.id, reason: 'sale' });
    expect(taken.body).to.include({ success: true, new_stock_display: '7 pcs' });
    expect(taken.body.movements[0]).to.include({ kind: 'SUBTRACT', from_location_id: shelf.id });
    expect(await ledgerStockOf(product.id, shelf.id)).to.equal(7);
  });

  it('answers 409 insufficient_stock with the available quantity and books nothing', async () => {
    const product = await buildProduct(company);
    await addStock(company, product.id, shelf.id, 3);
    const before = await movementCount(company.id);
    const res = await transaction(company, product.id, { operation: 'subtract', quantity: 4, location_id: shelf.id });
    expect(res.status).to.equal(409);
    expect(res.body.code).to.equal('insufficient_stock');
    expect(res.body.details).to.include({ available: 3, requested: 4, location_id: shelf.id });
    expect(await movementCount(company.id)).to.equal(before);
    expect(await balanceOf(product.id, shelf.id)).to.equal(3);
  });

  it('books decimals for a DIMENSIONAL product and shows them in its unit', async () => {
    const product = await buildProduct(company, { profile: 'DIMENSIONAL', engine_config: { engine_type: 'dimensional', unit: 'm' } });
    const res = await transaction(company, product.id, { operation: 'add', quantity: 3.5, location_id: shelf.id });
    expect(res.body.new_stock_display).to.equal('3.50 m');
    const cut = await transaction(company, product.id, { operation: 'subtract', quantity: 1.25, location_id: shelf.id });
    expect(cut.body.new_stock_display).to.equal('2.25 m');
  });

  it('sets a counted stock by booking the difference as ADJUST, and nothing when it matches', async () => {
    const product = await buildProduct(company);
    await addStock(company, product.id, shelf.id, 10);
    const down = await transaction(company, product.id, { operation: 'set', quantity: 7, location_id: shelf.id, reason: 'count' });
    expect(down.status).to.equal(200);
    expect(down.body.new_stock_display).to.equal('7 pcs');
    expect(down.body.movements[0]).to.include({ kind: 'ADJUST', quantity: 3, from_location_id: shelf.id });
    const up = await transaction(company, product.id, { operation: 'set', quantity: 9, location_id: shelf.id });
    expect(up.body.movements[0]).to.include({ kind: 'ADJUST', quantity: 2, to_location_id: shelf.id });
    const same = await transaction(company, product.id, { operation: 'set', quantity: 9, location_id: shelf.id });
    expect(same.body.movements).to.deep.equal([]);
    const zero = await transaction(company, product.id, { operation: 'set', quantity: 0, location_id: shelf.id });
    expect(zero.body.new_stock_display).to.equal('0 pcs');
  });

  it('treats set with expected_quantity as compare-and-swap: 409 stock_changed if the stock moved', async () => {
    const product = await buildProduct(company);
    await addStock(company, product.id, shelf.id, 10);
    const stale = await transaction(company, product.id, { operation: 'set', quantity: 8, expected_quantity: 9, location_id: shelf.id });
    expect(stale.status).to.equal(409);
    expect(stale.body.code).to.equal('stock_changed');
    expect(stale.body.details).to.deep.equal({ expected_quantity: 9, current_quantity: 10 });
    expect(await balanceOf(product.id, shelf.id)).to.equal(10);
    const fresh = await transaction(company, product.id, { operation: 'set', quantity: 8, expected_quantity: 10, location_id: shelf.id });
    expect(fresh.status).to.equal(200);
    expect(await balanceOf(product.id, shelf.id)).to.equal(8);
  });

  describe('BATCH products', () => {
    it('creates a batch on add, reuses it by code, and refuses another expiration date for the same code', async () => {
      const product = await buildProduct(company, { profile: 'BATCH' });
      const first = await transaction(company, product.id, {
        operation: 'add',
        quantity: 5,
        location_id: shelf.id,
        batch: { code: `L-${product.id.slice(0, 8)}`, expiration_date: '2030-01-31' },
      });
      expect(first.status).to.equal(200);
      expect(first.body.batch).to.include({ code: `L-${product.id.slice(0, 8)}`, expiration_date: '2030-01-31' });
      const again = await transaction(company, product.id, {
        operation: 'add',
        quantity: 2,
        location_id: shelf.id,
        batch: { code: `L-${product.id.slice(0, 8)}` },
      });
      expect(again.body.batch.id).to.equal(first.body.batch.id);
      expect(again.body.new_stock_display).to.equal('7 pcs');
      const clash = await transaction(company, product.id, {
        operation: 'add',
        quantity: 1,
        location_id: shelf.id,
        batch: { code: `L-${product.id.slice(0, 8)}`, expiration_date: '2031-01-01' },
      });
      expect(clash.status).to.equal(409);
      expect(clash.body.code).to.equal('batch_mismatch');
    });

    it('needs a batch on add (400 naming batch_id)', async () => {
      const product = await buildProduct(company, { profile: 'BATCH' });
      const res = await transaction(company, product.id, { operation: 'add', quantity: 5, location_id: shelf.id });
      expect(res.status).to.equal(400);
      expect(res.body.details).to.have.property('batch_id');
    });

    it('subtracts earliest-expiring batches first when no batch is named, across several batches', async () => {
      const product = await buildProduct(company, { profile: 'BATCH' });
      const tag = product.id.slice(0, 8);
      const late = await addStock(company, product.id, shelf.id, 5, { batch: { code: `late-${tag}`, expiration_date: '2031-06-01' } });
      const early = await addStock(company, product.id, shelf.id, 3, { batch: { code: `early-${tag}`, expiration_date: '2030-06-01' } });
      const undated = await addStock(company, product.id, shelf.id, 4, { batch: { code: `none-${tag}` } });
      const res = await transaction(company, product.id, { operation: 'subtract', quantity: 6, location_id: shelf.id });
      expect(res.status).to.equal(200);
      expect(res.body.movements.map((m: { batch_id: string; quantity: number }) => [m.batch_id, m.quantity])).to.deep.equal([
        [early.batch.id, 3],
        [late.batch.id, 3],
      ]);
      const detail = await get(`/api/v1/widget/${product.id}/`, { apiKey: company.apiKey });
      expect(detail.body.batches.map((b: { id: string; quantity: number }) => [b.id, b.quantity])).to.deep.equal([
        [late.batch.id, 2],
        [undated.batch.id, 4],
      ]);
      const tooMuch = await transaction(company, product.id, { operation: 'subtract', quantity: 7, location_id: shelf.id });
      expect(tooMuch.status).to.equal(409);
      expect(tooMuch.body.details.available).to.equal(6);
    });

    it('subtracts from a named batch only', async () => {
      const product = await buildProduct(company, { profile: 'BATCH' });
      const tag = product.id.slice(0, 8);
      const a = await addStock(company, product.id, shelf.id, 2, { batch: { code: `a-${tag}`, expiration_date: '2030-01-01' } });
      await addStock(company, product.id, shelf.id, 9, { batch: { code: `b-${tag}`, expiration_date: '2031-01-01' } });
      const res = await transaction(company, product.id, { operation: 'subtract', quantity: 3, location_id: shelf.id, batch_id: a.batch.id });
      expect(res.status).to.equal(409);
      expect(res.body.details).to.include({ available: 2, batch_id: a.batch.id });
    });
  });

  describe('SERIALIZED products', () => {
    it('creates items on add (given or generated serial numbers) and retires named items on subtract', async () => {
      const product = await buildProduct(company, { profile: 'SERIALIZED' });
      const tag = product.id.slice(0, 8);
      const named = await transaction(company, product.id, { operation: 'add', location_id: shelf.id, serial_numbers: [`SN1-${tag}`, `SN2-${tag}`] });
      expect(named.status).to.equal(200);
      expect(named.body.items.map((i: { serial_number: string }) => i.serial_number)).to.deep.equal([`SN1-${tag}`, `SN2-${tag}`]);
      const generated = await transaction(company, product.id, { operation: 'add', quantity: 3, location_id: shelf.id });
      expect(generated.body.items).to.have.length(3);
      expect(new Set(generated.body.items.map((i: { serial_number: string }) => i.serial_number)).size).to.equal(3);
      expect(generated.body.new_stock_display).to.equal('5 pcs');

      const itemId = named.body.items[0].id;
      const sold = await transaction(company, product.id, { operation: 'subtract', location_id: shelf.id, item_ids: [itemId] });
      expect(sold.status).to.equal(200);
      expect(sold.body.new_stock_display).to.equal('4 pcs');
      expect(sold.body.movements[0].item_ids).to.deep.equal([itemId]);
      const twice = await transaction(company, product.id, { operation: 'subtract', location_id: shelf.id, item_ids: [itemId] });
      expect(twice.status).to.equal(409);
      expect(twice.body.code).to.equal('item_unavailable');
    });

    it('refuses duplicate serial numbers (409 already_exists) and subtractions without item_ids (400)', async () => {
      const product = await buildProduct(company, { profile: 'SERIALIZED' });
      const serial = `DUP-${product.id}`;
      await addStock(company, product.id, shelf.id, 1, { serial_numbers: [serial] });
      const dup = await transaction(company, product.id, { operation: 'add', quantity: 1, location_id: shelf.id, serial_numbers: [serial] });
      expect(dup.status).to.equal(409);
      expect(dup.body.code).to.equal('already_exists');
      const noItems = await transaction(company, product.id, { operation: 'subtract', quantity: 1, location_id: shelf.id });
      expect(noItems.status).to.equal(400);
      expect(noItems.body.details).to.have.property('item_ids');
      const mismatch = await transaction(company, product.id, { operation: 'add', quantity: 2, location_id: shelf.id, serial_numbers: [`x-${product.id}`] });
      expect(mismatch.status).to.equal(400);
      expect(mismatch.body.details).to.have.property('serial_numbers');
    });

    it('transfers named items between locations', async () => {
      const product = await buildProduct(company, { profile: 'SERIALIZED' });
      const other = await buildLocation(company);
      const added = await addStock(company, product.id, shelf.id, 2);
      const res = await post(
        '/api/v1/widget/transfer/',
        { product_id: product.id, from_location_id: shelf.id, to_location_id: other.id, item_ids: [added.items[0].id] },
        { apiKey: company.apiKey },
      );
      expect(res.status).to.equal(200);
      expect(res.body).to.include({ from_stock_display: '1 pcs', to_stock_display: '1 pcs', new_stock_display: '2 pcs' });
      const items = await get(`/api/v1/widget/items/?product_id=${product.id}&location_id=${other.id}`, { apiKey: company.apiKey });
      expect(items.body.items.map((i: { id: string }) => i.id)).to.deep.equal([added.items[0].id]);
    });
  });
});

describe('POST /api/v1/widget/move/', () => {
  it('books a positive quantity inbound and a negative one outbound, with no direction field', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    const shelf = await buildLocation(company);
    const inbound = await post(
      '/api/v1/widget/move/',
      { product_id: product.id, location_id: shelf.id, quantity: 8, reason: 'return' },
      { apiKey: company.apiKey },
    );
    expect(inbound.status).to.equal(200);
    expect(inbound.body).to.include({ success: true, direction: 'in', new_stock_display: '8 pcs' });
    expect(inbound.body.movements[0].kind).to.equal('MOVE_IN');
    const outbound = await post('/api/v1/widget/move/', { product_id: product.id, location_id: shelf.id, quantity: -3 }, { apiKey: company.apiKey });
    expect(outbound.body).to.include({ direction: 'out', new_stock_display: '5 pcs' });
    expect(outbound.body.movements[0]).to.include({ kind: 'MOVE_OUT', quantity: 3 });
  });

  it('answers 409 when a negative quantity exceeds the stock, and books nothing', async () => {
    const { company, product, location: shelf } = await buildStock({ quantity: 2 });
    const res = await post('/api/v1/widget/move/', { product_id: product.id, location_id: shelf.id, quantity: -5 }, { apiKey: company.apiKey });
    expect(res.status).to.equal(409);
    expect(res.body.code).to.equal('insufficient_stock');
    expect(res.body.details.available).to.equal(2);
    expect(await balanceOf(product.id, shelf.id)).to.equal(2);
  });

  it('refuses a direction field (unknown) and a zero quantity', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    const shelf = await buildLocation(company);
    const withDirection = await post(
      '/api/v1/widget/move/',
      { product_id: product.id, location_id: shelf.id, quantity: 1, direction: 'in' },
      { apiKey: company.apiKey },
    );
    expect(withDirection.status).to.equal(400);
    expect(withDirection.body.details).to.have.property('direction');
    const zero = await post('/api/v1/widget/move/', { product_id: product.id, location_id: shelf.id, quantity: 0 }, { apiKey: company.apiKey });
    expect(zero.status).to.equal(400);
    expect(zero.body.details).to.have.property('quantity');
  });
});

describe('POST /api/v1/widget/transfer/', () => {
  it('moves stock atomically and answers both locations and the unchanged total', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    const [a, b] = [await buildLocation(company), await buildLocation(company)];
    await addStock(company, product.id, a.id, 10);
    const res = await post(
      '/api/v1/widget/transfer/',
      { product_id: product.id, from_location_id: a.id, to_location_id: b.id, quantity: 4, reason: 'restock' },
      { apiKey: company.apiKey },
    );
    expect(res.status).to.equal(200);
    expect(res.body).to.include({ success: true, new_stock_display: '10 pcs', from_stock_display: '6 pcs', to_stock_display: '4 pcs' });
    expect(res.body.movements[0]).to.include({ kind: 'TRANSFER', from_location_id: a.id, to_location_id: b.id, quantity: 4 });
  });

  it('refuses the same location twice, a VIRTUAL location and an inactive one (400), and insufficient stock (409)', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    const [a, b] = [await buildLocation(company), await buildLocation(company)];
    await addStock(company, product.id, a.id, 1);
    const virtual = (await get('/api/v1/locations/?type=VIRTUAL', { token: company.token })).body.results[0].id;
    const inactive = await buildLocation(company);
    expect((await patch(`/api/v1/locations/${inactive.id}/`, { is_active: false }, { token: company.token })).status).to.equal(200);
    const cases: Array<[Record<string, unknown>, number, string]> = [
      [{ from_location_id: a.id, to_location_id: a.id, quantity: 1 }, 400, 'to_location_id'],
      [{ from_location_id: a.id, to_location_id: virtual, quantity: 1 }, 400, 'to_location_id'],
      [{ from_location_id: a.id, to_location_id: inactive.id, quantity: 1 }, 400, 'to_location_id'],
      [{ from_location_id: a.id, to_location_id: b.id, quantity: 2 }, 409, 'available'],
    ];
    const before = await movementCount(company.id);
    for (const [body, status, named] of cases) {
      const res = await post('/api/v1/widget/transfer/', { product_id: product.id, ...body }, { apiKey: company.apiKey });
      expect(res.status, JSON.stringify(res.body)).to.equal(status);
      expect(res.body.details).to.have.property(named);
    }
    expect(await movementCount(company.id)).to.equal(before);
  });
});

describe('/api/v1/movements/ and /api/v1/stock/ (core)', () => {
  it('creates additions from Inbound, subtractions to Outbound and transfers, and lists the ledger newest first', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    const [a, b] = [await buildLocation(company), await buildLocation(company)];
    const virtual = (await get('/api/v1/locations/?type=VIRTUAL', { token: company.token })).body.results;
    const inbound = virtual.find((l: { name: string }) => l.name === 'Inbound').id;
    const outbound = virtual.find((l: { name: string }) => l.name === 'Outbound').id;
    const mk = (from: string, to: string, quantity: number) =>
      post('/api/v1/movements/', { product_id: product.id, from_location_id: from, to_location_id: to, quantity }, { token: company.token });
    expect((await mk(inbound, a.id, 10)).body.movements[0].kind).to.equal('ADD');
    expect((await mk(a.id, b.id, 4)).body.movements[0].kind).to.equal('TRANSFER');
    const sub = await mk(b.id, outbound, 1);
    expect(sub.status).to.equal(201);
    expect(sub.body.movements[0].kind).to.equal('SUBTRACT');
    expect(sub.body.movements[0].actor.kind).to.equal('user');
    expect((await mk(inbound, outbound, 1)).status).to.equal(400);

    const ledger = await get(`/api/v1/movements/?product_id=${product.id}`, { token: company.token });
    expect(ledger.body.count).to.equal(3);
    expect(ledger.body.results.map((m: { kind: string }) => m.kind)).to.deep.equal(['SUBTRACT', 'TRANSFER', 'ADD']);
    const seqs = ledger.body.results.map((m: { seq: number }) => m.seq);
    expect(seqs).to.deep.equal([...seqs].sort((x: number, y: number) => y - x));
    const atB = await get(`/api/v1/movements/?location_id=${b.id}&kind=TRANSFER`, { token: company.token });
    expect(atB.body.count).to.equal(1);

    const stock = await get(`/api/v1/stock/?product_id=${product.id}`, { token: company.token });
    expect(stock.body.count).to.equal(1);
    const level = stock.body.results[0];
    expect(level).to.include({ product_id: product.id, total_quantity: 9, stock_display: '9 pcs' });
    expect(level.locations.map((l: { location_id: string; quantity: number }) => [l.location_id, l.quantity])).to.have.deep.members([
      [a.id, 6],
      [b.id, 3],
    ]);
    const atA = await get(`/api/v1/stock/?location_id=${a.id}&product_id=${product.id}`, { token: company.token });
    expect(atA.body.results[0].total_quantity).to.equal(6);
  });
});
