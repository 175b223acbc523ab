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
import { expect } from 'chai';
import { api } from '../../support/api';
import { BookingRequest, BookingStream, SendBooking, describeRetries, retryWithTheirKeys, unexpectedFirstAnswers } from '../../support/booking-stream';
import { TestCompany, TestProduct, addStock, buildCompany, buildLocation, buildProduct } from '../../support/builders';
import { system } from '../../support/hooks';
import { ServiceProcesses, startServiceProcesses } from '../../support/service-processes';
import type { RunningGateway } from '../../support/system';
import { count } from '../../support/sql';
import { sleep } from '../../support/wait';
import { brokenRules } from '../fuzz/consistency';

const IN_FLIGHT = 6;
const OPENING_STOCK = 1000;

/** A booking of the stream, and what it takes from the standard product on the first shelf (a transfer moves it to the second). */
interface Booking extends BookingRequest {
  fromFirst: number;
}

describe('faults: the inventory service killed while bookings stream through the gateway (real process, SIGKILL)', function () {
  this.timeout(120_000);
  let services: ServiceProcesses;
  let gateway: RunningGateway;
  let company: TestCompany;
  let shelves: string[];
  let standard: TestProduct;
  let batched: TestProduct;

  const send: SendBooking = (booking) =>
    api('POST', booking.path, { baseUrl: gateway.url, apiKey: company.apiKey, headers: { 'idempotency-key': booking.key }, body: booking.body });

  /** A booking of one unit, of either path (one statement, or a transaction of several). */
  const bookingNumber = (n: number): Booking => {
    switch (n % 4) {
      case 0:
        return { path: `/api/v1/widget/${standard.id}/transaction/`, body: { operation: 'subtract', quantity: 1, location_id: shelves[0] }, fromFirst: 1 };
      case 1:
        return {
          path: '/api/v1/widget/transfer/',
          body: { product_id: standard.id, from_location_id: shelves[0], to_location_id: shelves[1], quantity: 1 },
          fromFirst: 1,
        };
      case 2:
        return {
          path: `/api/v1/widget/${batched.id}/transaction/`,
          body: { operation: 'add', quantity: 1, location_id: shelves[0], batch: { code: 'LOT-K' } },
          fromFirst: 0,
        };
      default:
        return { path: `/api/v1/widget/${standard.id}/transaction/`, body: { operation: 'add', quantity: 1, location_id: shelves[0] }, fromFirst: -1 };
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
    const stream = new BookingStream(send, bookingNumber, IN_FLIGHT);

    // Kill it once bookings are flowing, and start it again on the same port, as a supervisor would.
    await sleep(1000);
    await services.processes.inventory!.stop('SIGKILL');
    await sleep(300);
    await services.startAgain('inventory');
    await sleep(1000);
    const sent = await stream.stop();

    expect(unexpectedFirstAnswers(sent)).to.deep.equal([]);
    const refused = sent.filter((s) => s.answers[0].status === 503);
    expect(refused.length, 'some bookings met the dead service').to.be.greaterThan(0);
    expect(sent.length - refused.length, 'bookings answered before and after').to.be.greaterThan(20);
    await retryWithTheirKeys(refused, send);
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
    process.stdout.write(`      ${describeRetries(sent, refused)}\n`);
  });
});
