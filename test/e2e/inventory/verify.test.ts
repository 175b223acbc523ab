/**
 * `npm run stock:verify`: balances recomputed from the ledger must match stock_balances, and a SERIALIZED
 * product's balances its active items. Bookings through the widget leave no difference; a deliberate direct
 * change of the test database is found exactly; the command exits 0 or 1 accordingly. Every deliberate change
 * is undone afterwards, in the company the test made for itself.
 */
import { spawn } from 'node:child_process';
import { expect } from 'chai';
import { findStockDifferences } from '@pi/inventory/dist/src/cli/verify-stock';
import { get, post } from '../../support/api';
import { addStock, buildCompany, buildLocation, buildProduct } from '../../support/builders';
import { system, testDatabaseUrl } from '../../support/hooks';
import { query } from '../../support/sql';
import { balanceOf } from '../../support/stock';
import { ROOT } from '../../support/processes';
import { VERIFY_STOCK_ENTRY } from '../../support/service-processes';

const sql = (text: string, bind: unknown[] = []) => system().db.sequelize.query(text, { bind });
const verify = (companyId?: string) => findStockDifferences(system().db, companyId);

function runCli(args: string[]): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, DATABASE_URL: testDatabaseUrl() };
    delete env.DATA_DIR;
    const child = spawn(process.execPath, [VERIFY_STOCK_ENTRY, ...args], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), 30_000);
    child.once('error', reject);
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
  });
}

/** A company with bookings of every profile: additions, subtractions, a transfer, batches and items. */
async function bookedCompany() {
  const company = await buildCompany();
  const north = await buildLocation(company);
  const south = await buildLocation(company);
  const bolts = await buildProduct(company);
  const milk = await buildProduct(company, { profile: 'BATCH' });
  const phones = await buildProduct(company, { profile: 'SERIALIZED' });
  const cable = await buildProduct(company, { profile: 'DIMENSIONAL' });
  await addStock(company, bolts.id, north.id, 10);
  await addStock(company, bolts.id, north.id, 3, { operation: 'subtract' });
  const transfer = await post(
    '/api/v1/widget/transfer/',
    { product_id: bolts.id, from_location_id: north.id, to_location_id: south.id, quantity: 4, reason: 'rebalance' },
    { apiKey: company.apiKey },
  );
  expect(transfer.status, JSON.stringify(transfer.body)).to.equal(200);
  await addStock(company, milk.id, north.id, 6, { batch: { code: `LOT-${company.id.slice(0, 8)}`, expiration_date: '2030-01-01' } });
  await addStock(company, milk.id, north.id, 2, { operation: 'subtract' });
  await addStock(company, phones.id, south.id, 3, { serial_numbers: ['P-1', 'P-2', 'P-3'] });
  const items = await get(`/api/v1/widget/items/?product_id=${phones.id}`, { apiKey: company.apiKey });
  await addStock(company, phones.id, south.id, 1, { operation: 'subtract', item_ids: [items.body.items[0].id] });
  await addStock(company, cable.id, south.id, 12.25);
  await addStock(company, cable.id, south.id, 0.75, { operation: 'subtract' });
  return { company, north, south, bolts, milk, phones, cable };
}

/** Runs `check` while the balance rows `where` names are 1 above the ledger; the change is undone afterwards, whatever happens. */
async function withBalanceRaised(where: string, bind: unknown[], check: () => Promise<void>) {
  await sql(`UPDATE stock_balances SET quantity = quantity + 1 WHERE ${where}`, bind);
  try {
    await check();
  } finally {
    await sql(`UPDATE stock_balances SET quantity = quantity - 1 WHERE ${where}`, bind);
  }
}

/** The balance rows of a product ($1) at a location ($2). */
const AT = 'product_id = $1 AND location_id = $2';

describe('stock verify: findStockDifferences', () => {
  it('finds no difference after bookings of every profile (additions, subtractions, a transfer)', async () => {
    const { company } = await bookedCompany();
    const result = await verify(company.id);
    expect(result.differences).to.deep.equal([]);
    expect(result.balances).to.be.at.least(5);
    expect(result.serialized).to.be.at.least(1);
  });

  it('finds exactly the balance that was raised by 1 behind the ledger, with the ledger and balance quantities', async () => {
    const { company, north, bolts } = await bookedCompany();
    expect(await balanceOf(bolts.id, north.id)).to.equal(3);
    await withBalanceRaised(AT, [bolts.id, north.id], async () => {
      const result = await verify(company.id);
      expect(result.differences).to.deep.equal([
        { kind: 'balance', company_id: company.id, product_id: bolts.id, location_id: north.id, batch_id: null, expected: '3', actual: '4' },
      ]);
    });
    expect((await verify(company.id)).differences).to.deep.equal([]);
  });

  it('counts a missing balance row as 0, and a zero balance row as 0', async () => {
    const { company, south, cable } = await bookedCompany();
    await sql('DELETE FROM stock_balances WHERE product_id = $1 AND location_id = $2', [cable.id, south.id]);
    try {
      const result = await verify(company.id);
      expect(result.differences).to.deep.equal([
        { kind: 'balance', company_id: company.id, product_id: cable.id, location_id: south.id, batch_id: null, expected: '11.5', actual: '0' },
      ]);
    } finally {
      await sql('INSERT INTO stock_balances (company_id, product_id, location_id, batch_id, quantity) VALUES ($1, $2, $3, NULL, 11.5)', [
        company.id,
        cable.id,
        south.id,
      ]);
    }
    // A product fully subtracted again may keep a zero row or none: both match a ledger sum of 0.
    await addStock(company, cable.id, south.id, 11.5, { operation: 'subtract' });
    await sql('DELETE FROM stock_balances WHERE product_id = $1 AND location_id = $2', [cable.id, south.id]);
    expect((await verify(company.id)).differences).to.deep.equal([]);
    await sql('INSERT INTO stock_balances (company_id, product_id, location_id, batch_id, quantity) VALUES ($1, $2, $3, NULL, 0)', [
      company.id,
      cable.id,
      south.id,
    ]);
    expect((await verify(company.id)).differences).to.deep.equal([]);
  });

  it("finds a batch's balance changed behind the ledger, naming the batch", async () => {
    const { company, north, milk } = await bookedCompany();
    const [batch] = await query<{ id: string }>('SELECT id FROM batches WHERE product_id = $1', [milk.id]);
    await withBalanceRaised('batch_id = $1', [batch.id], async () => {
      expect((await verify(company.id)).differences).to.deep.equal([
        { kind: 'balance', company_id: company.id, product_id: milk.id, location_id: north.id, batch_id: batch.id, expected: '4', actual: '5' },
      ]);
    });
  });

  it('finds a SERIALIZED balance that disagrees with the active items (an item retired behind the ledger)', async () => {
    const { company, south, phones } = await bookedCompany();
    const [item] = await query<{ id: string }>('SELECT id FROM physical_items WHERE product_id = $1 AND is_active LIMIT 1', [phones.id]);
    await sql('UPDATE physical_items SET is_active = false WHERE id = $1', [item.id]);
    try {
      expect((await verify(company.id)).differences).to.deep.equal([
        { kind: 'items', company_id: company.id, product_id: phones.id, location_id: south.id, batch_id: null, expected: '1', actual: '2' },
      ]);
    } finally {
      await sql('UPDATE physical_items SET is_active = true WHERE id = $1', [item.id]);
    }
  });

  it("checks only the named company: another company's difference is not reported", async () => {
    const a = await bookedCompany();
    const b = await bookedCompany();
    await withBalanceRaised(AT, [a.bolts.id, a.north.id], async () => {
      expect((await verify(b.company.id)).differences).to.deep.equal([]);
      const all = await verify();
      expect(all.differences.filter((d) => d.company_id === a.company.id)).to.have.length(1);
      expect(all.differences.filter((d) => d.company_id === b.company.id)).to.have.length(0);
    });
  });
});

describe('stock verify: the stock:verify command', function () {
  this.timeout(60_000);

  it('exits 0 and prints "differences: 0" for a consistent company', async () => {
    const { company } = await bookedCompany();
    const result = await runCli(['--company', company.id]);
    expect(result.code, result.stderr + result.stdout).to.equal(0);
    expect(result.stdout).to.match(/^balances checked: \d+, differences: 0$/m);
    expect(result.stdout).not.to.include('difference:');
  });

  it('exits 1 and prints the difference after a direct UPDATE of stock_balances', async () => {
    const { company, north, bolts } = await bookedCompany();
    await withBalanceRaised(AT, [bolts.id, north.id], async () => {
      const result = await runCli(['--company', company.id]);
      expect(result.code, result.stderr + result.stdout).to.equal(1);
      expect(result.stdout).to.match(/^balances checked: \d+, differences: 1$/m);
      const lines = result.stdout.split('\n').filter((l) => l.startsWith('difference:'));
      expect(lines).to.have.length(1);
      expect(lines[0]).to.include(bolts.id).and.include(north.id).and.include('ledger 3, stock_balances 4');
    });
  });

  it('exits 2 naming company when --company is not a UUID, without touching the database', async () => {
    const result = await runCli(['--company', 'acme']);
    expect(result.code).to.equal(2);
    expect(result.stderr).to.include('company');
  });
});
