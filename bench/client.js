'use strict';
/** A small JSON client for seeding through the public API, and a bounded-concurrency map. */

class ApiError extends Error {
  constructor(method, path, status, body) {
    super(`${method} ${path} answered ${status}: ${typeof body === 'string' ? body : JSON.stringify(body)}`);
    this.status = status;
    this.body = body;
  }
}

function client(baseUrl) {
  async function call(method, path, { token, apiKey, body } = {}) {
    const headers = {};
    if (token) headers.authorization = `Bearer ${token}`;
    if (apiKey) headers['x-api-key'] = apiKey;
    if (body !== undefined) headers['content-type'] = 'application/json';
    const res = await fetch(`${baseUrl}${path}`, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
    const text = await res.text();
    const parsed = (res.headers.get('content-type') || '').includes('json') && text ? JSON.parse(text) : text;
    if (res.status < 200 || res.status > 299) throw new ApiError(method, path, res.status, parsed);
    return parsed;
  }
  return {
    get: (path, opts) => call('GET', path, opts),
    post: (path, body, opts) => call('POST', path, { ...opts, body }),
  };
}

/** Runs `fn` over `items` with at most `concurrency` calls in flight; rejects on the first failure. */
async function mapLimit(items, concurrency, fn) {
  const results = new Array(items.length);
  let next = 0;
  async function worker() {
    while (next < items.length) {
      const i = next++;
      results[i] = await fn(items[i], i);
    }
  }
  await Promise.all(Array.from({ length: Math.min(concurrency, items.length) }, worker));
  return results;
}

module.exports = { client, mapLimit, ApiError };
