/**
 * The records the fuzz suite's requests name: two companies (the caller and another one) with some of
 * everything (products of each profile with stock, locations, a batch, items, a work order, QR codes, a rule,
 * an event, a webhook channel to a loopback receiver and its delivery, extra users and keys). Records that a
 * fuzzed request may destroy (users, API keys) are extra ones, never the caller's own admin or widget key, so
 * the caller's credentials keep working for the whole run.
 */
import { expect } from 'chai';
import { ApiResponse, get, post } from '../../support/api';
import { TestCompany, addStock, buildApiKey, buildCompany, buildLocation, buildProduct, buildUser, generateCodes, unique } from '../../support/builders';
import { buildChannel, buildEvent } from '../monitor/helpers';
import type { FuzzWorld, RecordPool } from './generate';

function ok(res: ApiResponse, status = 201) {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  return res.body;
}

/** One company with a record of every kind; answers its pool of ids. */
export async function buildCompanyRecords(company: TestCompany, receiverUrl: string): Promise<RecordPool> {
  const auth = { token: company.token };
  const standard = await buildProduct(company, { engine_config: { engine_type: 'counter', min_stock: 3 } });
  const batched = await buildProduct(company, { profile: 'BATCH' });
  const serialized = await buildProduct(company, { profile: 'SERIALIZED' });
  const dimensional = await buildProduct(company, { profile: 'DIMENSIONAL', engine_config: { engine_type: 'dimensional', unit: 'm', decimals: 2 } });
  const [a, b] = [await buildLocation(company), await buildLocation(company)];
  await addStock(company, standard.id, a.id, 50);
  await addStock(company, dimensional.id, a.id, 12.5);
  const batch = ok(await post('/api/v1/batches/', { product_id: batched.id, code: unique('LOT'), expiration_date: '2030-01-01' }, auth));
  await addStock(company, batched.id, a.id, 20, { batch_id: batch.id });
  const added = await addStock(company, serialized.id, a.id, 2, { serial_numbers: [unique('SN'), unique('SN')] });
  const items: string[] = added.items.map((i: { id: string }) => i.id);
  const workOrder = ok(await post('/api/v1/work-orders/', { number: unique('WO'), title: 'Assemble', product_id: standard.id, quantity: 2 }, auth));
  const codes = await generateCodes(company, 3);
  ok(await post('/api/v1/widget/configure_qr/', { code: codes[1], target_type: 'PRODUCT', target_id: standard.id }, { apiKey: company.apiKey }), 200);
  const rule = ok(await post('/api/v1/monitoring-rules/', { product_id: standard.id, trigger_type: 'THRESHOLD', condition_config: { max: 500 } }, auth));
  const virtualRules = ok(await get(`/api/v1/monitoring-rules/?product_id=${standard.id}&source=attribute`, auth), 200);
  const event = await buildEvent(company, standard);
  const channel = await buildChannel(company, { url: receiverUrl });
  const sent = ok(await post(`/api/v1/notification-channels/${channel.id}/test/`, undefined, auth), 200);
  const member = await buildUser(company);
  const spareKey = await buildApiKey(company, { permissions: ['read', 'write', 'delete'] });
  return {
    product: [standard.id, batched.id, serialized.id, dimensional.id],
    location: [a.id, b.id],
    batch: [batch.id],
    item: items,
    workOrder: [workOrder.id],
    user: [member.id],
    apiKey: [spareKey.id],
    rule: [rule.id, virtualRules.results[0].id],
    event: [event.id],
    channel: [channel.id],
    delivery: [sent.delivery.id],
    qrCode: codes,
  };
}

export interface BuiltWorld extends FuzzWorld {
  company: TestCompany;
  other: TestCompany;
}

export async function buildWorld(receiverUrl: string): Promise<BuiltWorld> {
  const [company, other] = [await buildCompany(), await buildCompany()];
  const [own, foreign] = [await buildCompanyRecords(company, receiverUrl), await buildCompanyRecords(other, receiverUrl)];
  return {
    company,
    other,
    own,
    foreign,
    credentials: { token: company.token, apiKey: company.apiKey },
    foreignCredentials: { token: other.token, apiKey: other.apiKey },
    receiverUrl,
  };
}
