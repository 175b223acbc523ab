/**
 * Test data builders. Each test makes its own company (unique names), so tests never share state; a builder
 * takes overrides for only what a test cares about.
 */
import { randomBytes, randomInt } from 'node:crypto';
import { expect } from 'chai';
import { post } from './api';

export const unique = (prefix: string) => `${prefix}_${randomBytes(5).toString('hex')}`;

/**
 * A strong password (12 consonants of both cases, 61 bits) that the gateway's strength estimate reads quickly:
 * the suite sets thousands of passwords (docs/api/authentication.md, "Passwords"). A hex one cost the estimate
 * 30–50 ms, because every digit is also tried as a l33t letter; 16 lowercase letters after `pw-` 2.9 ms, since
 * runs of letters hold many short dictionary words; these 1.45 ms. Over 5,000 of them the weakest was still
 * estimated at 10^10.3 guesses, against the 10^8 required.
 */
const CONSONANTS = 'bcdfghjkmnpqrvwxzBCDFGHJKMNPQRVWXZ';
export const randomPassword = () => Array.from({ length: 12 }, () => CONSONANTS[randomInt(CONSONANTS.length)]).join('');

export interface TestCompany {
  id: string;
  name: string;
  admin: { id: string; username: string; password: string };
  /** Access token of the admin. */
  token: string;
  refresh: string;
  /** The first API key (read + write, the widget key), value and id. */
  apiKey: string;
  apiKeyId: string;
}

/** `baseUrl`: another gateway than the test system's (a deployment suite's own processes). */
export async function logIn(username: string, password: string, opts: { baseUrl?: string } = {}): Promise<{ access: string; refresh: string }> {
  const res = await post('/api/token/', { username, password }, { baseUrl: opts.baseUrl });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

/** A new company and its admin, logged in; `baseUrl` registers through another gateway than the test system's. */
export async function buildCompany(overrides: { name?: string; username?: string; password?: string; baseUrl?: string } = {}): Promise<TestCompany> {
  const name = overrides.name ?? unique('Company');
  const username = overrides.username ?? unique('admin');
  const password = overrides.password ?? randomPassword();
  const res = await post('/api/v1/register/', { company_name: name, username, password, email: `${username}@example.com` }, { baseUrl: overrides.baseUrl });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  const tokens = await logIn(username, password, { baseUrl: overrides.baseUrl });
  return {
    id: res.body.company.id,
    name,
    admin: { id: res.body.user.id, username, password },
    token: tokens.access,
    refresh: tokens.refresh,
    apiKey: res.body.api_key.key,
    apiKeyId: res.body.api_key.id,
  };
}

export async function buildUser(company: TestCompany, overrides: { role?: 'admin' | 'member' | 'viewer'; username?: string } = {}) {
  const username = overrides.username ?? unique('user');
  const password = randomPassword();
  const res = await post('/api/v1/users/', { username, password, role: overrides.role ?? 'member' }, { token: company.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  const tokens = await logIn(username, password);
  return { id: res.body.id as string, username, password, token: tokens.access };
}

export async function buildApiKey(
  company: TestCompany,
  overrides: { permissions?: string[]; allowed_domains?: string[]; expires_at?: string; name?: string } = {},
): Promise<{ id: string; key: string }> {
  const res = await post('/api/v1/api-keys/', { name: overrides.name ?? unique('key'), permissions: ['read'], ...overrides }, { token: company.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return { id: res.body.id, key: res.body.key };
}

export async function buildLocation(company: TestCompany, name = unique('Warehouse')) {
  const res = await post('/api/v1/locations/', { name, type: 'WAREHOUSE' }, { token: company.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body as { id: string; name: string };
}

export type Profile = 'STANDARD' | 'SERIALIZED' | 'BATCH' | 'DIMENSIONAL';
/** The engine_type each profile takes (and `buildProduct` defaults to). */
export const ENGINE_OF: Record<Profile, string> = { STANDARD: 'counter', SERIALIZED: 'serialized', BATCH: 'batch', DIMENSIONAL: 'dimensional' };

export interface TestProduct {
  id: string;
  sku: string;
  name: string;
  profile: Profile;
  engine_config: Record<string, unknown>;
}

/** A product model through POST /api/v1/product-models/; `engine_config` defaults to the profile's engine. */
export async function buildProduct(
  company: TestCompany,
  overrides: { profile?: Profile; engine_config?: Record<string, unknown>; sku?: string; name?: string; barcode?: string } = {},
): Promise<TestProduct> {
  const profile = overrides.profile ?? 'STANDARD';
  const engine_config = overrides.engine_config ?? { engine_type: ENGINE_OF[profile], ...(profile === 'DIMENSIONAL' ? { unit: 'm' } : {}) };
  const res = await post(
    '/api/v1/product-models/',
    {
      sku: overrides.sku ?? unique('SKU'),
      name: overrides.name ?? unique('Product'),
      profile,
      engine_config,
      ...(overrides.barcode ? { barcode: overrides.barcode } : {}),
    },
    { token: company.token },
  );
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body;
}

/**
 * Books stock through the widget: POST /api/v1/widget/{id}/transaction/ with operation `add` (or another
 * operation in `extra`). Answers the response body ({success, new_stock_display, ...}).
 */
export async function addStock(company: TestCompany, productId: string, locationId: string, quantity: number, extra: Record<string, unknown> = {}) {
  const res = await post(
    `/api/v1/widget/${productId}/transaction/`,
    { operation: 'add', quantity, location_id: locationId, reason: 'test stock', ...extra },
    { apiKey: company.apiKey },
  );
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
  return res.body;
}

/**
 * An `Idempotency-Key` the company spent on a booking: 2 of a new product added to a new location named "Shelf".
 * Another kind of request sent with it must be refused (409 `idempotency_key_reused`).
 */
export async function keySpentOnBooking(company: TestCompany): Promise<{ key: string; product: TestProduct; location: { id: string; name: string } }> {
  const location = await buildLocation(company, 'Shelf');
  const product = await buildProduct(company);
  const key = unique('spent');
  const booked = await post(
    `/api/v1/widget/${product.id}/transaction/`,
    { operation: 'add', quantity: 2, location_id: location.id },
    { apiKey: company.apiKey, headers: { 'idempotency-key': key } },
  );
  expect(booked.status, JSON.stringify(booked.body)).to.equal(200);
  return { key, product, location };
}

/** A product with stock at a location, and whatever of its parents a test did not bring. */
export interface TestStock {
  company: TestCompany;
  product: TestProduct;
  location: { id: string; name: string };
  /** The widget's answer to the booking that stocked it. */
  booking: Record<string, unknown>;
}

/**
 * `quantity` (default 10) of a product at a location, booked through the widget. The company, the product and
 * the location are made when not given, so a test names only what it cares about: `await buildStock()` is a
 * stocked product of a new company.
 */
export async function buildStock(
  given: { company?: TestCompany; product?: TestProduct; location?: { id: string; name: string }; quantity?: number; profile?: Profile } = {},
): Promise<TestStock> {
  const company = given.company ?? (await buildCompany());
  const [product, location] = await Promise.all([given.product ?? buildProduct(company, { profile: given.profile }), given.location ?? buildLocation(company)]);
  const booking = (await addStock(company, product.id, location.id, given.quantity ?? 10)) as Record<string, unknown>;
  return { company, product, location, booking };
}

/** `count` new VIRGIN QR codes of the company (POST /api/v1/qr-codes/); answers their codes. */
export async function generateCodes(company: TestCompany, count = 1): Promise<string[]> {
  const res = await post('/api/v1/qr-codes/', { count }, { token: company.token });
  expect(res.status, JSON.stringify(res.body)).to.equal(201);
  return res.body.results.map((r: { code: string }) => r.code);
}

/** A new VIRGIN QR code of the company. */
export async function generateCode(company: TestCompany): Promise<string> {
  return (await generateCodes(company))[0];
}

/** A new code configured to the product (`configure_qr/` with the company's widget key). */
export async function configuredCode(company: TestCompany, productId: string): Promise<string> {
  const code = await generateCode(company);
  await linkCode(company, code, productId);
  return code;
}

/** Configures the company's VIRGIN `code` to the product (`configure_qr/` with the company's widget key). */
export async function linkCode(company: TestCompany, code: string, productId: string): Promise<void> {
  const res = await post('/api/v1/widget/configure_qr/', { code, target_type: 'PRODUCT', target_id: productId }, { apiKey: company.apiKey });
  expect(res.status, JSON.stringify(res.body)).to.equal(200);
}

/** A copy of `body` without `key`, for bad-input cases that leave one field out. */
export function omit(body: Record<string, unknown>, key: string): Record<string, unknown> {
  const copy = { ...body };
  delete copy[key];
  return copy;
}
