'use strict';
/**
 * The floor of the gateway hop (docs/operations/benchmarks.md, "What a gateway can cost"): the least a gateway
 * can be on the widget's path, to measure what any Node gateway in front of the inventory would leave of the
 * targets. Not part of the product; run it beside a standalone system and point the benchmark at it:
 *
 *   node bench/floor-gateway.js <port> <gateway port> <inventory port> <INTERNAL_JWT_SECRET> <database URL>
 *   BENCH_URL=http://127.0.0.1:<port> BENCH_DATABASE_URL=… BENCH_INVENTORY_URL=… BENCH_INTERNAL_JWT_SECRET=… \
 *     node bench/run.js --only booking,gateway-hop
 *
 * A request with `x-api-key` under /api/v1/widget/ is authenticated (the key's hash looked up once, then read
 * from a Map) and forwarded to the inventory with the internal token, its body piped as it came. Nothing
 * else: no CORS, security headers, request id, deadline, access log, metrics, rate limits, body checks or
 * Express; a revoked key stays valid. Any other request is piped to the real gateway (the benchmark's
 * seeding). Loopback only, as the benchmark.
 */
const http = require('node:http');
const { Pool } = require('pg');
const { InternalTokenSigner, hashKeyValue } = require('@pi/common');

const [port, gatewayPort, inventoryPort, secret, databaseUrl] = process.argv.slice(2);
if (!databaseUrl) {
  process.stderr.write('usage: node bench/floor-gateway.js <port> <gateway port> <inventory port> <INTERNAL_JWT_SECRET> <database URL>\n');
  process.exit(2);
}
const signer = new InternalTokenSigner(secret);
const pool = new Pool({ connectionString: databaseUrl, max: 4 });
const agent = new http.Agent({ keepAlive: true, maxSockets: 512 });
const identities = new Map();

async function identityOf(key) {
  const hash = hashKeyValue(key);
  if (identities.has(hash)) return identities.get(hash);
  const { rows } = await pool.query('SELECT id, company_id, permissions, tier FROM api_keys WHERE key_hash = $1 AND revoked_at IS NULL', [hash]);
  const identity = rows[0] && {
    companyId: rows[0].company_id,
    principal: { kind: 'api_key', id: rows[0].id },
    permissions: rows[0].permissions,
    tier: rows[0].tier,
  };
  if (identity) identities.set(hash, identity);
  return identity;
}

/** The request piped to `targetPort` with `replaced` headers (undefined removes one), the answer piped back. */
function forward(req, res, targetPort, replaced) {
  const headers = { ...req.headers, ...replaced };
  delete headers.connection;
  for (const name of Object.keys(headers)) if (headers[name] === undefined) delete headers[name];
  const upstream = http.request({ host: '127.0.0.1', port: targetPort, method: req.method, path: req.url, headers, agent }, (answer) => {
    // The upstream connection's own keep-alive is not the client's.
    const { connection: _connection, 'keep-alive': _keepAlive, ...answerHeaders } = answer.headers;
    res.writeHead(answer.statusCode, answerHeaders);
    answer.pipe(res);
  });
  upstream.on('error', () => {
    res.statusCode = 502;
    res.end();
  });
  req.pipe(upstream);
}

const server = http.createServer(async (req, res) => {
  const key = req.headers['x-api-key'];
  if (!key || !req.url.startsWith('/api/v1/widget/')) return forward(req, res, gatewayPort, {});
  const identity = await identityOf(key);
  if (!identity) {
    res.writeHead(401, { 'content-type': 'application/json' });
    return res.end('{"error":"Invalid API key."}');
  }
  forward(req, res, inventoryPort, { 'x-api-key': undefined, 'x-internal-auth': signer.tokenFor(identity) });
});
server.keepAliveTimeout = 65_000;
server.listen(Number(port), '127.0.0.1', () => process.stderr.write(`floor gateway listening on 127.0.0.1:${port}\n`));
