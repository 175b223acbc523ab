/**
 * Changes of one company's records sent together, round after round (docs/api/paths-and-hostile-input.md
 * "Requests at the same moment"): each round sends eight requests drawn from one or two kinds of change, on the
 * same few records, as busy people and scripts do. Every answer must be one a single request could get (never
 * a 5xx), and afterwards the data must keep its rules (test/e2e/fuzz/consistency.ts). Hammering like this found
 * the deadlocks that the tests beside each fix now force; here it is a net for the ones nobody forced yet. The
 * choices are seeded, the timing is not: a failure names the requests and the errors the system logged.
 */
import { expect } from 'chai';
import { ApiResponse, api, del, get, patch, post, put } from '../support/api';
import { TestCompany, addStock, buildApiKey, buildCompany, buildLocation, buildProduct, buildUser, configuredCode, generateCodes } from '../support/builders';
import { system } from '../support/hooks';
import { count } from '../support/sql';
import { brokenRules } from './fuzz/consistency';
import { buildChannel } from './monitor/helpers';

const ROUND_SIZE = 8;
const SEED = 20261129;

/** A seeded stream of choices (mulberry32), so that a round's mix can be named and sent again. */
function chooser(seed: number) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return <T>(options: readonly T[]): T => options[Math.floor(next() * options.length)];
}

type Change = () => Promise<ApiResponse>;

/**
 * Sends `rounds` rounds, each of `kinds` kinds of change drawn from `changes`; answers what went wrong, with
 * what the system logged meanwhile.
 */
async function hammer(changes: Record<string, Change>, rounds: number, pick: ReturnType<typeof chooser>, kinds = 2): Promise<string[]> {
  const names = Object.keys(changes);
  const problems: string[] = [];
  const firstLine = system().logs.lines.length;
  for (let round = 0; round < rounds && problems.length === 0; round++) {
    const drawn = Array.from({ length: kinds }, () => pick(names));
    const sent = Array.from({ length: ROUND_SIZE }, () => pick(drawn));
    const answers = await Promise.all(sent.map((name) => changes[name]()));
    answers.forEach((answer, i) => {
      if (answer.status >= 500) problems.push(`round ${round + 1}: ${sent[i]} answered ${answer.status} (the round: ${sent.join(', ')})`);
    });
  }
  if (problems.length) {
    const errors = system()
      .logs.lines.slice(firstLine)
      .filter((line) => line.includes('"err"'))
      .map((line) => line.slice(0, 600));
    problems.push(...errors.slice(0, 3));
  }
  return problems;
}

describe(`changes sent together (rounds of ${ROUND_SIZE}, seed ${SEED})`, function () {
  // Each scenario sends a few hundred requests: 4–6 s of a fast machine, 15–20 s of a slow one (testing.md).
  this.timeout(90_000);

  it('the catalog, the stock, the ledger and the monitoring: no 5xx in 120 rounds, and the data keeps its rules', async () => {
    const pick = chooser(SEED);
    const company = await buildCompany();
    const auth = { token: company.token };
    const widget = { apiKey: company.apiKey };
    const places = [await buildLocation(company), await buildLocation(company), await buildLocation(company)].map((l) => l.id);
    const product = await buildProduct(company, { engine_config: { engine_type: 'counter', min_stock: 3 } });
    const batched = await buildProduct(company, { profile: 'BATCH' });
    const serialized = await buildProduct(company, { profile: 'SERIALIZED' });
    await addStock(company, product.id, places[0], 100);
    const batch = (await post('/api/v1/batches/', { product_id: batched.id, code: 'LOT-A', expiration_date: '2030-01-01' }, auth)).body;
    await addStock(company, batched.id, places[0], 50, { batch_id: batch.id });
    const items: string[] = (await addStock(company, serialized.id, places[0], 3, { serial_numbers: ['S1', 'S2', 'S3'] })).items.map(
      (item: { id: string }) => item.id,
    );
    const order = (await post('/api/v1/work-orders/', { number: 'WO-1', title: 'Assemble', product_id: product.id, quantity: 2 }, auth)).body;
    const key = await buildApiKey(company, { permissions: ['read', 'write'] });
    const channel = await buildChannel(company, { url: 'http://127.0.0.1:1/hook' });
    const rule = (await post('/api/v1/monitoring-rules/', { product_id: product.id, trigger_type: 'THRESHOLD', condition_config: { max: 500 } }, auth)).body;
    const codes = await generateCodes(company, 2);

    const changes: Record<string, Change> = {
      'product change': () =>
        patch(
          `/api/v1/product-models/${product.id}/`,
          pick([
            { name: `Bolt ${pick([1, 2, 3])}` },
            { is_active: pick([true, false]) },
            { engine_config: { engine_type: 'counter', decimals: pick([0, 1, 2]) } },
          ]),
          auth,
        ),
      booking: () =>
        post(`/api/v1/widget/${product.id}/transaction/`, { operation: pick(['add', 'subtract']), quantity: 1, location_id: pick(places) }, widget),
      'location change': () =>
        patch(
          `/api/v1/locations/${pick(places)}/`,
          pick([{ parent_id: pick([...places, null]) }, { is_active: pick([true, false]) }, { name: pick(['Hall', 'Bay']) }]),
          auth,
        ),
      transfer: () => post('/api/v1/movements/', { product_id: product.id, from_location_id: pick(places), to_location_id: pick(places), quantity: 1 }, auth),
      'batch change': () =>
        patch(`/api/v1/batches/${batch.id}/`, pick([{ code: pick(['LOT-A', 'LOT-B']) }, { expiration_date: pick(['2030-01-01', '2031-01-01']) }]), auth),
      'batch booking': () =>
        post(
          `/api/v1/widget/${batched.id}/transaction/`,
          { operation: pick(['add', 'subtract']), quantity: 1, location_id: pick(places), batch_id: batch.id },
          widget,
        ),
      'item rename': () => patch(`/api/v1/items/${pick(items)}/`, { serial_number: pick(['S1', 'S2', 'S3', 'S4']) }, auth),
      'item move': () =>
        post(
          '/api/v1/widget/transfer/',
          { product_id: serialized.id, from_location_id: pick(places), to_location_id: pick(places), item_ids: [pick(items)] },
          widget,
        ),
      'work order change': () =>
        patch(
          `/api/v1/work-orders/${order.id}/`,
          pick([{ status: pick(['IN_PROGRESS', 'COMPLETED', 'CANCELLED']) }, { number: pick(['WO-1', 'WO-2']) }, { quantity: 3 }]),
          auth,
        ),
      'key change': () =>
        pick([
          () => patch(`/api/v1/api-keys/${key.id}/`, { permissions: pick([['read'], ['read', 'write']]) }, auth),
          () => post(`/api/v1/api-keys/${key.id}/rotate/`, undefined, auth),
        ])(),
      'channel change': () =>
        pick([
          () => patch(`/api/v1/notification-channels/${channel.id}/`, { is_active: pick([true, false]) }, auth),
          () => post(`/api/v1/notification-channels/${channel.id}/rotate-secret/`, undefined, auth),
          () => post(`/api/v1/notification-channels/${channel.id}/test/`, undefined, auth),
        ])(),
      'rule change': () =>
        patch(`/api/v1/monitoring-rules/${rule.id}/`, pick([{ is_active: pick([true, false]) }, { condition_config: { max: pick([1, 500]) } }]), auth),
      'code change': () =>
        pick([
          () => post(`/api/v1/qr-codes/${pick(codes)}/configure/`, { target_type: 'PRODUCT', target_id: pick([product.id, batched.id]) }, auth),
          () => put(`/api/v1/qr-codes/${pick(codes)}/scan_policy/`, { scan_policy: pick(['read', 'book', null]) }, auth),
        ])(),
      'scan settings change': () => patch('/api/v1/scan-settings/', { policy: pick(['read', 'book', 'staff']) }, auth),
    };
    expect(await hammer(changes, 120, pick)).to.deep.equal([]);
    expect(await brokenRules([company.id])).to.deep.equal([]);
  });

  it('keys, scans, sign-ins and users: no 5xx in 40 companies, and no key minted from a revoked widget key works', async () => {
    const pick = chooser(SEED + 1);
    const companies: TestCompany[] = [];
    const mintedKeys: string[] = [];
    for (let i = 0; i < 40; i++) {
      const company = await buildCompany();
      companies.push(company);
      const auth = { token: company.token };
      const product = await buildProduct(company);
      const location = await buildLocation(company);
      const code = await configuredCode(company, product.id);
      const member = await buildUser(company);
      const keys: string[] = [];
      const scan = async (): Promise<ApiResponse> => {
        const redirect = await api('GET', `/go/${code}/`);
        const token = new URL(redirect.headers.get('location')!).searchParams.get('token');
        const exchanged = await post('/api/v1/widget/exchange_token/', { token });
        if (exchanged.status === 200) keys.push(exchanged.body.api_key as string);
        return exchanged;
      };
      await scan();
      await scan();
      const changes: Record<string, Change> = {
        rotation: () => post(`/api/v1/api-keys/${company.apiKeyId}/rotate/`, undefined, auth),
        'widget key change': () => patch(`/api/v1/api-keys/${company.apiKeyId}/`, { permissions: pick([['read'], ['read', 'write']]) }, auth),
        'sign-in': () => post('/api/v1/widget/sign_in/', { username: member.username, password: member.password }, { apiKey: pick(keys) }),
        'scan booking': () =>
          post(`/api/v1/widget/${product.id}/transaction/`, { operation: 'add', quantity: 1, location_id: location.id }, { apiKey: pick(keys) }),
        scan,
        'user change': () => patch(`/api/v1/users/${member.id}/`, pick([{ role: 'viewer' }, { role: 'member' }, { is_active: pick([true, false]) }]), auth),
        'scan settings change': () => patch('/api/v1/scan-settings/', { policy: pick(['read', 'book', 'staff']) }, auth),
        'scan session revoked': async () => {
          const sessions = await get('/api/v1/scan-sessions/', auth);
          const first = (sessions.body.results as Array<{ id: string }>)[0];
          return first ? del(`/api/v1/scan-sessions/${first.id}/`, auth) : sessions;
        },
      };
      expect(await hammer(changes, 2, pick, Object.keys(changes).length)).to.deep.equal([]);
      expect((await del(`/api/v1/api-keys/${company.apiKeyId}/`, auth)).status).to.equal(204);
      mintedKeys.push(...keys);
    }
    const ids = companies.map((c) => c.id);
    expect(
      await count('SELECT count(*) FROM api_keys WHERE company_id = ANY($1::uuid[]) AND parent_key_id IS NOT NULL AND revoked_at IS NULL', [ids]),
    ).to.equal(0);
    for (const minted of mintedKeys) expect((await get('/api/v1/widget/', { apiKey: minted })).status).to.equal(401);
    expect(await brokenRules(ids)).to.deep.equal([]);
  });

  it('deletes and the requests naming what they delete: no 5xx in 30 companies', async () => {
    const pick = chooser(SEED + 2);
    for (let i = 0; i < 30; i++) {
      const company = await buildCompany();
      const auth = { token: company.token };
      const product = await buildProduct(company);
      const location = await buildLocation(company);
      const codes = await generateCodes(company, 2);
      const channel = await buildChannel(company, { url: 'http://127.0.0.1:1/hook' });
      const changes: Record<string, Change> = {
        'product delete': () => del(`/api/v1/product-models/${product.id}/`, auth),
        'channel delete': () => del(`/api/v1/notification-channels/${channel.id}/`, auth),
        'rule for the product': () =>
          post('/api/v1/monitoring-rules/', { product_id: product.id, trigger_type: 'THRESHOLD', condition_config: { max: 5 } }, auth),
        'batch of the product': () => post('/api/v1/batches/', { product_id: product.id, code: `LOT-${pick([1, 2, 3])}`, expiration_date: '2030-01-01' }, auth),
        'work order for the product': () =>
          post('/api/v1/work-orders/', { number: `WO-${pick([1, 2, 3])}`, title: 'x', product_id: product.id, quantity: 1 }, auth),
        'code linked to the product': () => post(`/api/v1/qr-codes/${pick(codes)}/configure/`, { target_type: 'PRODUCT', target_id: product.id }, auth),
        'booking of the product': () =>
          post(`/api/v1/widget/${product.id}/transaction/`, { operation: 'add', quantity: 1, location_id: location.id }, { apiKey: company.apiKey }),
        'test send': () => post(`/api/v1/notification-channels/${channel.id}/test/`, undefined, auth),
      };
      expect(await hammer(changes, 1, pick, Object.keys(changes).length)).to.deep.equal([]);
    }
  });
});
