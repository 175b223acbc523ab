/**
 * Fault: the inventory service killed (SIGKILL, as the kernel's OOM killer or a node failure does) while
 * bookings stream through the gateway, then started again on the same port (docs/decisions/0004-idempotent-bookings.md,
 * docs/api/deadlines-and-retries.md). A booking either happened or did not: PostgreSQL rolls back what the
 * dead process had not committed, and commits a one-statement booking it had already received.
 *
 * What a client must see: an answer it can act on (2xx, a 4xx it caused, 503 `service_unavailable` or
 * 503 `outcome_unknown`, never a 500 or a hang); a retry with the same Idempotency-Key once the service is
 * back books what was not booked and answers what was, once; and afterwards every balance equals its ledger.
 */
import { randomUUID } from 'node:crypto';
import { expect } from 'chai';
import { ApiResponse, api } from '../../support/api';
import { TestCompany, TestProduct, addStock, buildCompany, buildLocation, buildProduct } from '../../support/builders';
import { system } from '../../support/hooks';
import { ServiceProcesses, startServiceProcesses } from '../../support/service-processes';
import type { RunningGateway } from '../../support/system';
import { count } from '../../support/sql';
import { sleep } from '../../support/wait';
import { brokenRules } from '../fuzz/consistency';

const IN_FLIGHT = 6;
const OPENING_STOCK = 1000;

interface Sent {
  key: string;
  path: string;
  body: Record<string, unknown>;
  /** What the booking takes from the standard product's stock on the first shelf (a transfer moves it to the second). */
  fromFirst: number;
  answers: ApiResponse[];
}

describe('faults: the inventory service killed while bookings stream through the gateway (real process, SIGKILL)', function () {
  this.timeout(120_000);
  let services: ServiceProcesses;
  let gateway: RunningGateway;
  let company: TestCompany;
  let shelves: string[];
  let standard: TestProduct;
  let batched: TestProduct;

  const send = (sent: Sent) =>
    api('POST', sent.path, { baseUrl: gateway.url, apiKey: company.apiKey, headers: { 'idempotency-key': sent.key }, body: sent.body });

  /** A booking of one unit, of either path (one statement, or a transaction of several), by its key. */
  const bookingNumber = (n: number): Sent => {
    const key = randomUUID();
    switch (n % 4) {
      case 0:
        return {
          key,
          path: `/api/v1/widget/${standard.id}/transaction/`,
          body: { operation: 'subtract', quantity: 1, location_id: shelves[0] },
          fromFirst: 1,
          answers: [],
        };
      case 1:
        return {
          key,
          path: '/api/v1/widget/transfer/',
          body: { product_id: standard.id, from_location_id: shelves[0], to_location_id: shelves[1], quantity: 1 },
          fromFirst: 1,
          answers: [],
        };
      case 2:
        return {
          key,
          path: `/api/v1/widget/${batched.id}/transaction/`,
          body: { operation: 'add', quantity: 1, location_id: shelves[0], batch: { code: 'LOT-K' } },
          fromFirst: 0,
          answers: [],
        };
      default:
        return {
          key,
          path: `/api/v1/widget/${standard.id}/transaction/`,
          body: { operation: 'add', quantity: 1, location_id: shelves[0] },
          fromFirst: -1,
          answers: [],
        };
    }
  };

  const stockOf = (product: TestProduct, location: string) =>
    count('SELECT coalesce(sum(quantity), 0) AS count FROM stock_balances WHERE product_id = $1 AND location_id = $2', [product.id, location]);

  before(async () => {
    services = await startServiceProcesses(['inventory']);
    gateway = await system().startGateway({ INVENTORY_URL: services.urls.inventory!, PROXY_TIMEOUT_MS: '5000' });
    company = await buildCompany();
    shelves = [(await buildLocation(company)).id, (await buildLocation(company)).id];
    standard = await buildProduct(company);
    batched = await buildProduct(company, { profile: 'BATCH' });
    await addStock(company, standard.id, shelves[0], OPENING_STOCK);
  });

  after(async () => {
    await gateway?.close();
    await services?.stop();
  });

  it('answers every booking with 2xx or 503, never 500; retries with the same key book each once; every balance equals its ledger', async () => {
    const sent: Sent[] = [];
    let stop = false;
    const stream = async () => {
      while (!stop) {
        const booking = bookingNumber(sent.length);
        sent.push(booking);
        booking.answers.push(await send(booking));
      }
    };
    const streams = Array.from({ length: IN_FLIGHT }, stream);

    // Kill it once bookings are flowing, and start it again on the same port, as a supervisor would.
    await sleep(1000);
    await services.processes.inventory!.stop('SIGKILL');
    await sleep(300);
    await services.startAgain('inventory');
    await sleep(1000);
    stop = true;
    await Promise.all(streams);

    const statusesOf = (answers: ApiResponse[]) => answers.map((a) => `${a.status}${a.status >= 400 ? ` ${a.body?.code}` : ''}`);
    const unexpected = sent.filter(
      (s) => !s.answers.every((a) => a.status === 200 || (a.status === 503 && ['service_unavailable', 'outcome_unknown'].includes(a.body?.code))),
    );
    expect(unexpected.map((s) => `${s.path}: ${statusesOf(s.answers).join(', ')}`)).to.deep.equal([]);
    const refused = sent.filter((s) => s.answers[0].status === 503);
    expect(refused.length, 'some bookings met the dead service').to.be.greaterThan(0);
    expect(sent.length - refused.length, 'bookings answered before and after').to.be.greaterThan(20);

    for (const booking of refused) {
      const retry = await send(booking);
      expect(retry.status, `the retry of ${booking.path} (${statusesOf(booking.answers).join(', ')}): ${JSON.stringify(retry.body)}`).to.equal(200);
      booking.answers.push(retry);
    }
    // Each key booked exactly once: a retry that found its booking committed answered it again.
    const keysBooked = await count('SELECT count(*) FROM idempotency_keys WHERE company_id = $1', [company.id]);
    expect(keysBooked).to.equal(sent.length);
    const movements = await count('SELECT count(*) FROM stock_movements WHERE company_id = $1', [company.id]);
    expect(movements, 'one movement per booking, and the opening stock').to.equal(sent.length + 1);
    const taken = sent.reduce((sum, s) => sum + s.fromFirst, 0);
    const transfers = sent.filter((s) => s.path.endsWith('/transfer/')).length;
    const batchAdds = sent.filter((s) => s.path.includes(batched.id)).length;
    expect(await stockOf(standard, shelves[0])).to.equal(OPENING_STOCK - taken);
    expect(await stockOf(standard, shelves[1])).to.equal(transfers);
    expect(await stockOf(batched, shelves[0])).to.equal(batchAdds);
    expect(await brokenRules([company.id])).to.deep.equal([]);
    const unknown = refused.filter((s) => s.answers[0].body.code === 'outcome_unknown').length;
    const replayed = refused.filter((s) => s.answers[1].headers.get('idempotent-replayed') === 'true').length;
    process.stdout.write(
      `      ${sent.length} bookings; ${refused.length} answered 503 (${unknown} outcome_unknown), of which ${replayed} had been booked: their retry answered that booking\n`,
    );
  });
});
