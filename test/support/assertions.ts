/**
 * Shared assertions on the error shape every service answers with: `{error, code, details, request_id}`
 * (docs/api/conventions.md), plus `validation_errors` for `invalid_engine_config`.
 */
import { expect } from 'chai';
import { ApiResponse } from './api';

const ERROR_KEYS = ['error', 'code', 'details', 'request_id'];

/** Codes whose answer carries one more top-level key besides the error shape's. */
const EXTRA_KEYS: Record<string, string[]> = { invalid_engine_config: ['validation_errors'], invalid_transition: ['allowed_transitions'] };

/** A bad-input case: a body that must be refused with 400 `validation_error` naming `fields`. */
export interface BadCase {
  /** Reads after "when": "username is 151 characters long". */
  when: string;
  body: unknown;
  /** The details keys the answer must name. */
  fields: string[];
}

/**
 * `status`, in the error shape: exactly the keys error, code, details and request_id (and `validation_errors`,
 * an array, for `invalid_engine_config`), the given `code`, a non-empty `error`, an object `details`, and a
 * `request_id` equal to the `x-request-id` header.
 */
export function expectErrorShape(res: ApiResponse, status: number, code: string) {
  expect(res.status, JSON.stringify(res.body)).to.equal(status);
  expect(res.body).to.be.an('object');
  const extra = EXTRA_KEYS[code] ?? [];
  expect(res.body).to.have.all.keys(...ERROR_KEYS, ...extra);
  expect(res.body.code).to.equal(code);
  expect(res.body.error).to.be.a('string').and.not.empty;
  expect(res.body.details).to.be.an('object');
  expect(res.body.request_id).to.be.a('string').and.equal(res.headers.get('x-request-id'));
  for (const key of extra) expect(res.body[key], key).to.be.an('array');
}

/** 400 validation_error whose `details` names each of `fields` (field paths, e.g. `permissions.0`). */
export function expectValidationError(res: ApiResponse, ...fields: string[]) {
  expectErrorShape(res, 400, 'validation_error');
  for (const field of fields) {
    expect(res.body.details, JSON.stringify(res.body.details)).to.have.property(field).that.is.a('string').and.not.empty;
  }
}

/** None of `secrets` anywhere in the answer. */
function expectNoSecrets(res: ApiResponse, secrets: string[]) {
  const text = JSON.stringify(res.body);
  for (const secret of secrets) expect(text).not.to.include(secret);
}

/**
 * 403 access_denied, "Access denied.", in the error shape with empty details, and none of `secrets` (the other
 * company's id, names, usernames, prefixes...) anywhere in the answer.
 */
export function expectAccessDenied(res: ApiResponse, secrets: string[] = []) {
  expectErrorShape(res, 403, 'access_denied');
  expect(res.body.error).to.equal('Access denied.');
  expect(res.body.details).to.deep.equal({});
  expectNoSecrets(res, secrets);
}

/** 405 in the error shape, with an `Allow` header that does not offer the refused method. */
export function expectMethodNotAllowed(res: ApiResponse, method = 'DELETE') {
  expectErrorShape(res, 405, 'method_not_allowed');
  expect(res.headers.get('allow')).to.be.a('string').and.not.include(method);
}

/** 404 not_found in the error shape. */
export function expectNotFound(res: ApiResponse) {
  expectErrorShape(res, 404, 'not_found');
}

/** 403 permission_denied in the error shape, and none of `secrets` anywhere in the answer. */
export function expectPermissionDenied(res: ApiResponse, secrets: string[] = []) {
  expectErrorShape(res, 403, 'permission_denied');
  expectNoSecrets(res, secrets);
}

/** 429 rate_limited for `scope`: the error keys plus `retry_after` (at least 1 s), which `Retry-After` repeats. */
export function expectRateLimited(res: ApiResponse, scope: string) {
  expect(res.status, JSON.stringify(res.body)).to.equal(429);
  expect(res.body).to.include.keys('error', 'code', 'details', 'request_id', 'retry_after');
  expect(res.body.code).to.equal('rate_limited');
  expect(res.body.details.scope).to.equal(scope);
  expect(res.body.retry_after).to.be.a('number').that.is.at.least(1);
  expect(res.headers.get('retry-after')).to.equal(String(res.body.retry_after));
}

/** One problem of an import that refused its file: a data row (from 1), a column and what is wrong. */
export interface RowProblem {
  row: number;
  field: string;
  message: string;
}

/** 400 import_failed whose `details.rows` holds exactly these (row, field) pairs. */
export function expectImportFailed(res: ApiResponse, expected: Array<[number, string]>) {
  expectErrorShape(res, 400, 'import_failed');
  expect(res.body.details).to.have.all.keys('rows');
  const rows = res.body.details.rows as RowProblem[];
  for (const r of rows) {
    expect(r).to.have.all.keys('row', 'field', 'message');
    expect(r.message).to.be.a('string').and.not.empty;
  }
  expect(
    rows.map((r) => [r.row, r.field]),
    JSON.stringify(rows),
  ).to.have.deep.members(expected);
  return rows;
}
