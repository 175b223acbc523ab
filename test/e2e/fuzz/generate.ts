/**
 * The fuzz suite's generator: from the served OpenAPI document, one fast-check arbitrary of whole HTTP
 * requests per operation. A request starts from a mostly valid one (the documented parameters and body, with
 * ids of the caller's own records) and is then bent: boundary numbers, wrong types, odd keys, odd strings,
 * sizes, encodings, other companies' ids, missing or wrong credentials. Everything random comes from
 * fast-check, so a seed and a path replay a case exactly.
 */
import fc from 'fast-check';
import { FuzzValue, RawJson, dataObject, hostileValue, oddKeys, oddStrings, percentEncode, toJsonText, wrongTypes } from './values';

/** What a record id in a request may name. */
export type RecordKind = 'product' | 'location' | 'batch' | 'item' | 'workOrder' | 'user' | 'apiKey' | 'rule' | 'event' | 'channel' | 'delivery' | 'qrCode';

/** Ids (and QR codes) of one company's records, by kind; `qrCode` holds codes. */
export type RecordPool = Record<RecordKind, string[]>;

export interface Credentials {
  token: string;
  apiKey: string;
}

/** What requests are made of: the caller's records and credentials, another company's records. */
export interface FuzzWorld {
  own: RecordPool;
  foreign: RecordPool;
  credentials: Credentials;
  foreignCredentials: Credentials;
  /** A webhook receiver on loopback: the only URL a generated channel may name (no request leaves the machine). */
  receiverUrl: string;
}

type Schema = Record<string, any>;

export interface FuzzOperation {
  id: string;
  method: string;
  /** The OpenAPI template: `/api/v1/product-models/{id}/`. */
  template: string;
  security: 'bearer' | 'api_key' | 'none';
  pathParams: Array<{ name: string; schema: Schema }>;
  queryParams: Array<{ name: string; schema: Schema; required: boolean }>;
  /** The JSON body schema, when the operation takes one. */
  body?: Schema;
  /** Other body types the operation takes (`text/csv`). */
  otherBodyTypes: string[];
}

export interface FuzzRequest {
  method: string;
  /** Path and query, percent-encoded, as sent. */
  url: string;
  headers: Record<string, string>;
  body?: string;
  /** How the body's text becomes bytes: UTF-8, or Latin-1 for a body that is not UTF-8 (`Café` as `43 61 66 E9`). */
  bodyEncoding?: 'utf8' | 'latin1';
  /** What was bent, in words, for the failure report. */
  notes: string[];
}

/** Every operation of the document. */
export function operationsOf(document: { paths: Record<string, Record<string, any>> }): FuzzOperation[] {
  const operations: FuzzOperation[] = [];
  for (const [template, item] of Object.entries(document.paths)) {
    for (const [method, op] of Object.entries<any>(item)) {
      const security = (op.security ?? []).some((s: object) => 'bearerAuth' in s)
        ? 'bearer'
        : (op.security ?? []).some((s: object) => 'apiKeyHeader' in s)
          ? 'api_key'
          : 'none';
      const params: any[] = op.parameters ?? [];
      const content = op.requestBody?.content ?? {};
      operations.push({
        id: op.operationId,
        method: method.toUpperCase(),
        template,
        security,
        pathParams: params.filter((p) => p.in === 'path').map((p) => ({ name: p.name, schema: p.schema ?? {} })),
        queryParams: params
          .filter((p) => p.in === 'query' && p.name !== 'api_key')
          .map((p) => ({ name: p.name, schema: p.schema ?? {}, required: !!p.required })),
        body: content['application/json']?.schema,
        otherBodyTypes: Object.keys(content).filter((t) => t !== 'application/json'),
      });
    }
  }
  return operations;
}

/** The kind of record a field or parameter names, by its name (and, for `{id}`, by the resource in the path). */
function kindOf(name: string, template: string): RecordKind[] | undefined {
  if (name === 'id') {
    const resource = /\/api\/v1\/([a-z-]+)\//.exec(template)?.[1];
    const byResource: Record<string, RecordKind> = {
      users: 'user',
      'api-keys': 'apiKey',
      'product-models': 'product',
      locations: 'location',
      items: 'item',
      batches: 'batch',
      'work-orders': 'workOrder',
      widget: 'product',
      'monitoring-rules': 'rule',
      events: 'event',
      'notification-channels': 'channel',
      'notification-deliveries': 'delivery',
    };
    return resource && byResource[resource] ? [byResource[resource]] : undefined;
  }
  if (name === 'code' || name === 'codes') return ['qrCode'];
  if (/(^|_)location_id$/.test(name) || name === 'parent_id') return ['location'];
  if (name === 'product_id') return ['product'];
  if (name === 'batch_id') return ['batch'];
  if (name === 'item_ids') return ['item'];
  if (name === 'target_id') return ['product', 'item', 'workOrder'];
  if (name === 'rule_id') return ['rule'];
  if (name === 'event_id') return ['event'];
  if (name === 'channel_id') return ['channel'];
  return undefined;
}

/** An id of the given kinds: mostly the caller's own, sometimes another company's, an unknown one, or none. */
function idOf(kinds: RecordKind[] | undefined, world: FuzzWorld): fc.Arbitrary<FuzzValue> {
  const from = (pool: RecordPool) => {
    const ids = (kinds ?? (['product', 'location'] as RecordKind[])).flatMap((k) => pool[k]);
    return ids.length ? fc.constantFrom(...ids) : fc.uuid();
  };
  return fc.oneof(
    { arbitrary: from(world.own), weight: 8 },
    { arbitrary: from(world.foreign), weight: 2 },
    { arbitrary: fc.uuid({ version: [4] }), weight: 1 },
    { arbitrary: fc.constantFrom('00000000-0000-0000-0000-000000000000', 'not-a-uuid', '12345'), weight: 1 },
  );
}

/** Engine configs for every profile (the document only says `object`). */
const engineConfigs = fc.constantFrom<FuzzValue>(
  dataObject([['engine_type', 'counter']]),
  dataObject([
    ['engine_type', 'counter'],
    ['decimals', 2],
    ['min_stock', 5],
    ['max_stock', 1e12],
  ]),
  dataObject([['engine_type', 'serialized']]),
  dataObject([
    ['engine_type', 'batch'],
    [
      'monitoring_rules',
      [
        dataObject([
          ['trigger_type', 'DATE_OFFSET'],
          [
            'condition_config',
            dataObject([
              ['date_field', 'expiration_date'],
              ['days_offset', 7],
            ]),
          ],
        ]),
      ],
    ],
  ]),
  dataObject([
    ['engine_type', 'dimensional'],
    ['unit', 'm'],
    ['decimals', 6],
  ]),
  dataObject([
    ['engine_type', 'dimensional'],
    ['unit', 'furlong'],
  ]),
  dataObject([
    ['engine_type', 'counter'],
    [
      'monitoring_rules',
      [
        dataObject([
          ['trigger_type', 'THRESHOLD'],
          ['condition_config', dataObject([['min', 1e308]])],
        ]),
      ],
    ],
  ]),
);
const conditionConfigs = fc.constantFrom<FuzzValue>(
  dataObject([['min', 1]]),
  dataObject([['max', 1e12]]),
  dataObject([
    ['min', 5],
    ['max', 2],
  ]),
  dataObject([
    ['date_field', 'expiration_date'],
    ['days_offset', 30],
  ]),
  dataObject([]),
);

/** Values for fields whose documented schema says too little to make a valid one. */
function hintFor(name: string, world: FuzzWorld): fc.Arbitrary<FuzzValue> | undefined {
  if (name === 'engine_config') return engineConfigs;
  if (name === 'condition_config') return conditionConfigs;
  // Only the test's own loopback receiver, or addresses refused without a DNS lookup: nothing leaves the machine.
  if (name === 'url')
    return fc.constantFrom(
      world.receiverUrl,
      'http://127.0.0.1:1/x',
      'http://10.0.0.1/',
      'http://[::1]:9/',
      'http://169.254.169.254/latest',
      'ftp://127.0.0.1/',
      'http://0x7f000001/',
    );
  if (name === 'recipients') return fc.array(fc.constantFrom('ops@example.com', 'a@example.org', 'not-an-email', 'x@localhost'), { maxLength: 3 });
  if (name === 'allowed_domains')
    return fc.array(fc.constantFrom('shop.example.com', '*.example.com', 'https://a.example.com:8443', 'http://', '*', 'ex ample.com'), { maxLength: 3 });
  if (name === 'token') return fc.constantFrom('eyJhbGciOiJIUzI1NiJ9.e30.x', 'not-a-token', '');
  if (name === 'refresh') return fc.constantFrom('eyJhbGciOiJub25lIn0.eyJzdWIiOiJ4In0.', 'garbage');
  return undefined;
}

const DATE_TIMES = fc.date({ min: new Date('1900-01-01T00:00:00Z'), max: new Date('2200-01-01T00:00:00Z'), noInvalidDate: true }).map((d) => d.toISOString());

/** A value the schema accepts (as far as a schema can say), for the field `name`. */
function validValue(schema: Schema, name: string, op: FuzzOperation, world: FuzzWorld, depth = 0): fc.Arbitrary<FuzzValue> {
  const hint = hintFor(name, world);
  if (hint) return hint;
  if (schema.anyOf) {
    const options = (schema.anyOf as Schema[]).filter((s) => !s.not);
    return options.length ? fc.oneof(...options.map((s) => validValue(s, name, op, world, depth))) : fc.constant(null);
  }
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...(schema.enum as FuzzValue[]));
  const types: string[] = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : ['string'];
  const type = types.find((t) => t !== 'null') ?? 'null';
  const nullable = types.includes('null');
  let value: fc.Arbitrary<FuzzValue>;
  switch (type) {
    case 'integer':
      value = fc.integer({ min: Math.max(schema.minimum ?? -1000, -1e6), max: Math.min(schema.maximum ?? 1000, 1e6) });
      break;
    case 'number':
      value = fc.oneof(
        fc.integer({ min: Math.ceil(Math.max(schema.exclusiveMinimum ?? schema.minimum ?? -1000, -1e6)), max: Math.min(schema.maximum ?? 1000, 1e6) }),
        fc.constantFrom(0.5, 2.25, 1e12, 1e-6),
      );
      break;
    case 'boolean':
      value = fc.boolean();
      break;
    case 'array': {
      const items = validValue(schema.items ?? {}, name, op, world, depth + 1);
      value = fc.array(items, { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, 3) });
      break;
    }
    case 'object':
      value = depth > 4 ? fc.constant(dataObject([])) : validObject(schema, op, world, depth + 1);
      break;
    case 'null':
      value = fc.constant(null);
      break;
    default:
      value = validString(schema, name, op, world);
  }
  return nullable ? fc.oneof({ arbitrary: value, weight: 4 }, { arbitrary: fc.constant(null), weight: 1 }) : value;
}

function validString(schema: Schema, name: string, op: FuzzOperation, world: FuzzWorld): fc.Arbitrary<FuzzValue> {
  const kinds = kindOf(name, op.template);
  if (schema.format === 'uuid' || (kinds && name !== 'code' && name !== 'codes')) return idOf(kinds, world);
  if (name === 'code')
    return fc.oneof(
      fc.constantFrom(...(world.own.qrCode.length ? world.own.qrCode : ['AAAAAAAAAAAA'])),
      fc.constantFrom(...(world.foreign.qrCode.length ? world.foreign.qrCode : ['BBBBBBBBBBBB'])),
      fc.stringMatching(/^[A-Za-z0-9_-]{6,64}$/),
    );
  if (name === 'codes')
    return fc
      .array(fc.constantFrom(...world.own.qrCode, ...world.foreign.qrCode.slice(0, 1), 'ZZZZZZZZZZZZ'), { minLength: 1, maxLength: 4 })
      .map((c) => c.join(','));
  if (schema.format === 'email') return fc.emailAddress();
  if (schema.format === 'date-time') return DATE_TIMES;
  if (schema.pattern === '^\\d{4}-\\d{2}-\\d{2}$')
    return fc.oneof(
      DATE_TIMES.map((d) => d.slice(0, 10)),
      fc.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
    );
  const min = schema.minLength ?? 0;
  const max = Math.max(min, Math.min(schema.maxLength ?? 30, 30));
  if (schema.pattern) {
    try {
      return fc.stringMatching(new RegExp(schema.pattern)).filter((s) => s.length >= min && s.length <= (schema.maxLength ?? Infinity));
    } catch {
      // A pattern JavaScript cannot compile: any string.
    }
  }
  return fc.string({ minLength: Math.max(min, 1), maxLength: max, unit: 'grapheme-ascii' });
}

/** An object with every required property and some optional ones, each valid. */
function validObject(schema: Schema, op: FuzzOperation, world: FuzzWorld, depth: number): fc.Arbitrary<FuzzValue> {
  const properties: Record<string, Schema> = schema.properties ?? {};
  const required = new Set<string>(schema.required ?? []);
  const names = Object.keys(properties).filter((n) => n !== 'api_key' && !properties[n].not);
  if (!names.length) return fc.constant(dataObject([]));
  return fc
    .tuple(...names.map((n) => fc.tuple(fc.constant(n), validValue(properties[n], n, op, world, depth), required.has(n) ? fc.constant(true) : fc.boolean())))
    .map((fields) => dataObject(fields.filter(([, , keep]) => keep).map(([n, v]) => [n, v] as [string, FuzzValue])));
}

/** One bend of a body: what it does, in words, and the new body. */
type Bend = (body: FuzzValue) => fc.Arbitrary<{ body: FuzzValue; note: string }>;

const fieldsOfBody = (body: FuzzValue) => (body && typeof body === 'object' && !Array.isArray(body) && !(body instanceof RawJson) ? Object.keys(body) : []);

const withField = (body: FuzzValue, key: string, value: FuzzValue): FuzzValue => {
  const entries = fieldsOfBody(body).map((k) => [k, (body as Record<string, FuzzValue>)[k]] as [string, FuzzValue]);
  const at = entries.findIndex(([k]) => k === key);
  if (at >= 0) entries[at] = [key, value];
  else entries.push([key, value]);
  return dataObject(entries);
};

const bends: Bend[] = [
  // A documented field made hostile (or a new field when the body has none).
  (body) => {
    const keys = fieldsOfBody(body);
    return fc
      .tuple(keys.length ? fc.constantFrom(...keys) : oddKeys, hostileValue)
      .map(([key, value]) => ({ body: withField(body, key, value), note: `field ${JSON.stringify(key)} = ${short(value)}` }));
  },
  // A field dropped.
  (body) => {
    const keys = fieldsOfBody(body);
    if (!keys.length) return fc.constant({ body, note: 'nothing to drop' });
    return fc
      .constantFrom(...keys)
      .map((key) => ({ body: dataObject(keys.filter((k) => k !== key).map((k) => [k, (body as Record<string, FuzzValue>)[k]])), note: `without ${key}` }));
  },
  // A key named like a built-in property, or another unknown key.
  (body) =>
    fc
      .tuple(oddKeys, fc.oneof(hostileValue, fc.constant<FuzzValue>(1)))
      .map(([key, value]) => ({ body: withField(body, key, value), note: `extra key ${JSON.stringify(key)}` })),
  // A hostile value one level down (inside an object or array field).
  (body) => {
    const nested = fieldsOfBody(body).filter((k) => {
      const v = (body as Record<string, FuzzValue>)[k];
      return v !== null && typeof v === 'object' && !(v instanceof RawJson);
    });
    if (!nested.length) return fc.constant({ body, note: 'nothing nested' });
    return fc.tuple(fc.constantFrom(...nested), fc.oneof(oddKeys, fc.constant('0')), hostileValue).map(([key, inner, value]) => {
      const current = (body as Record<string, FuzzValue>)[key];
      const bent = Array.isArray(current) ? [...current, value] : withField(current, inner, value);
      return { body: withField(body, key, bent), note: `${key}.${inner} = ${short(value)}` };
    });
  },
  // The whole body of the wrong type.
  () => wrongTypes.map((value) => ({ body: value, note: `body = ${short(value)}` })),
  // A field nested thousands of levels deep.
  (body) =>
    fc.tuple(fc.constantFrom(100, 5_000, 50_000), fc.boolean()).map(([depth, arrays]) => {
      const text = arrays ? `${'['.repeat(depth)}1${']'.repeat(depth)}` : `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
      const key = fieldsOfBody(body)[0] ?? 'nested';
      return { body: withField(body, key, new RawJson(text)), note: `${key} nested ${depth} deep` };
    }),
];

const short = (value: FuzzValue) => {
  const text = toJsonText(value);
  return text.length > 60 ? `${text.slice(0, 60)}… (${text.length} chars)` : text;
};

/** The JSON body of a request: mostly valid, then bent zero to three times. */
function jsonBody(op: FuzzOperation, world: FuzzWorld): fc.Arbitrary<{ body: FuzzValue; notes: string[] }> {
  const base = op.template === '/api/v1/product-models/import/' ? importDocument() : validValue(op.body!, 'body', op, world);
  return fc
    .tuple(base, fc.array(fc.integer({ min: 0, max: bends.length - 1 }), { maxLength: 3 }))
    .chain(([start, bendIds]) =>
      bendIds.reduce<fc.Arbitrary<{ body: FuzzValue; notes: string[] }>>(
        (acc, id) => acc.chain(({ body, notes }) => bends[id](body).map((b) => ({ body: b.body, notes: [...notes, b.note] }))),
        fc.constant({ body: start, notes: [] }),
      ),
    );
}

/** `{products: [...]}` for the JSON import (documented as text): rows shaped like a product creation. */
function importDocument(): fc.Arbitrary<FuzzValue> {
  const row = fc.record({
    sku: fc.string({ minLength: 1, maxLength: 12, unit: 'grapheme-ascii' }),
    name: fc.constant('Imported'),
    profile: fc.constantFrom('STANDARD', 'BATCH', 'DIMENSIONAL', 'SERIALIZED'),
    engine_config: engineConfigs,
  });
  return fc
    .array(row, { minLength: 1, maxLength: 4 })
    .map((rows) => dataObject([['products', rows.map((r) => dataObject(Object.entries(r) as Array<[string, FuzzValue]>))]]));
}

/** A CSV import body: a header and rows, cells sometimes odd. */
const csvBody: fc.Arbitrary<{ text: string; note: string }> = fc
  .tuple(
    fc.constantFrom(
      'sku,name,profile,engine_type',
      'sku,name,profile,engine_type,unit,decimals,min_stock,max_stock,description',
      'SKU,Name,Profile,Engine_Type',
      'sku,sku,name',
      'constructor,__proto__',
      '',
    ),
    fc.array(
      fc.array(
        fc.oneof(
          { arbitrary: fc.constantFrom('A-1', 'Thing', 'STANDARD', 'counter', 'm', '2', '5', '1e999', '-1', '"quoted, cell"'), weight: 4 },
          { arbitrary: oddStrings, weight: 1 },
        ),
        { minLength: 1, maxLength: 9 },
      ),
      { maxLength: 4 },
    ),
  )
  .map(([header, rows]) => {
    const text = [
      header,
      ...rows.map((cells) => cells.map((c) => (/[",\n\r]/.test(c) && !c.startsWith('"') ? `"${c.replace(/"/g, '""')}"` : c)).join(',')),
    ].join('\n');
    return { text, note: `csv ${text.length} chars` };
  });

/** How the request authenticates: as its operation expects, or not quite. */
function credentials(op: FuzzOperation, world: FuzzWorld) {
  type Auth = { headers: Record<string, string>; query: Array<[string, string]>; bodyKey?: string; note: string };
  const bearer = (token: string, note: string): Auth => ({ headers: { authorization: `Bearer ${token}` }, query: [], note });
  const key = (value: string, where: 'header' | 'query' | 'body', note: string): Auth =>
    where === 'header'
      ? { headers: { 'x-api-key': value }, query: [], note }
      : where === 'query'
        ? { headers: {}, query: [['api_key', value]], note }
        : { headers: {}, query: [], bodyKey: value, note };
  const none: Auth = { headers: {}, query: [], note: 'no credentials' };
  const wrong = fc.constantFrom<Auth>(
    bearer('not.a.jwt', 'garbage bearer'),
    bearer(world.foreignCredentials.token, "another company's bearer"),
    key('pik_' + 'x'.repeat(40), 'header', 'unknown API key'),
    key(world.credentials.token, 'header', 'a bearer token as API key'),
    { headers: { authorization: `Basic ${Buffer.from('a:b').toString('base64')}` }, query: [], note: 'basic auth' },
    none,
  );
  const proper =
    op.security === 'bearer'
      ? fc.constant(bearer(world.credentials.token, 'bearer'))
      : op.security === 'api_key'
        ? fc.oneof(
            { arbitrary: fc.constant(key(world.credentials.apiKey, 'header', 'key in header')), weight: 6 },
            { arbitrary: fc.constant(key(world.credentials.apiKey, 'query', 'key in query')), weight: 1 },
            { arbitrary: fc.constant(key(world.credentials.apiKey, op.body ? 'body' : 'header', 'key in body')), weight: 1 },
          )
        : fc.constant(none);
  return fc.oneof({ arbitrary: proper, weight: 9 }, { arbitrary: wrong, weight: 1 });
}

/** Headers besides credentials that a client controls. */
const extraHeaders = fc.oneof(
  { arbitrary: fc.constant<Array<[string, string]>>([]), weight: 6 },
  {
    arbitrary: fc.array(
      fc.oneof(
        fc.tuple(fc.constant('idempotency-key'), fc.oneof(fc.uuid(), fc.constantFrom('', ' ', 'x'.repeat(256), 'ключ', 'a b', '__proto__'))),
        fc.tuple(fc.constant('x-request-id'), fc.constantFrom('short', 'x'.repeat(129), 'ok-request-id-123', '../../x', 'a'.repeat(8))),
        fc.tuple(fc.constant('origin'), fc.constantFrom('https://evil.example.com', 'null', 'http://localhost:8000', 'file://', '*')),
        fc.tuple(fc.constant('accept'), fc.constantFrom('application/xml', 'text/html', '*/*', 'application/json;q=0')),
        fc.tuple(fc.constant('x-internal-auth'), fc.constantFrom('forged', 'eyJhbGciOiJIUzI1NiJ9.e30.x')),
        // A Content-Encoding the body does not have.
        fc.tuple(fc.constant('content-encoding'), fc.constantFrom('gzip', 'deflate', 'br', 'identity', 'x-unknown', 'gzip, gzip')),
      ),
      { maxLength: 3 },
    ),
    weight: 2,
  },
);

/** The body's content type: JSON mostly; sometimes none, another type or charset, or a BOM. */
const contentTypes = fc.oneof(
  { arbitrary: fc.constant('application/json'), weight: 12 },
  {
    arbitrary: fc.constantFrom(
      'application/json; charset=utf-8',
      'application/json; charset=latin1',
      'application/json; charset=utf-16',
      'text/plain',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=x',
      'application/merge-patch+json',
      'text/csv',
      '',
    ),
    weight: 2,
  },
);

/** A percent-encoded path parameter. */
function pathValue(name: string, op: FuzzOperation, world: FuzzWorld): fc.Arbitrary<{ text: string; raw?: boolean }> {
  const kinds = kindOf(name, op.template);
  const valid = name === 'code' ? validString({}, 'code', op, world) : idOf(kinds, world);
  return fc.oneof(
    { arbitrary: valid.map((v) => ({ text: String(v as string | number) })), weight: 8 },
    { arbitrary: oddStrings.filter((s) => s.length < 2000).map((text) => ({ text })), weight: 2 },
    { arbitrary: fc.constantFrom('%', '%zz', '%2F', '..', '.', '%2e%2e').map((text) => ({ text, raw: true })), weight: 1 },
  );
}

/** A query value sent as it is spelled here, not percent-encoded: a spelling that is not UTF-8 (`%ff`, `50%`). */
class SpelledAsSent {
  constructor(readonly spelling: string) {}
}

type QueryPair = [string, string | SpelledAsSent];

/** Percent-encoding that does not decode to UTF-8 text: a bare `%`, a bad escape, a stray byte, an overlong form, a surrogate. */
const BAD_QUERY_SPELLINGS = ['%', '50%', '%zz', '%ff', '%C0%AF', '%ED%A0%80'].map((spelling) => new SpelledAsSent(spelling));

/** The query of a request: documented parameters (valid or hostile, or spelled as no UTF-8 text is), sometimes odd or repeated keys. */
/** A value as a query parameter's text. */
const scalar = (v: FuzzValue) => (v instanceof RawJson ? v.text : typeof v === 'string' ? v : JSON.stringify(v));

function queryOf(op: FuzzOperation, world: FuzzWorld): fc.Arbitrary<{ pairs: QueryPair[]; notes: string[] }> {
  const hostileText = hostileValue.map(scalar).filter((s) => s.length < 5000);
  const params = op.queryParams.map((p) =>
    fc.oneof(
      { arbitrary: fc.constant<Array<[string, string]>>([]), weight: p.required ? 1 : 5 },
      { arbitrary: validValue(p.schema, p.name, op, world).map((v) => [[p.name, scalar(v)]] as Array<[string, string]>), weight: 5 },
      { arbitrary: hostileText.map((v) => [[p.name, v]] as Array<[string, string]>), weight: 2 },
      { arbitrary: fc.constantFrom(...BAD_QUERY_SPELLINGS).map((v) => [[p.name, v]] as QueryPair[]), weight: 1 },
      {
        arbitrary: fc.tuple(validValue(p.schema, p.name, op, world), hostileText).map(
          ([a, b]) =>
            [
              [p.name, scalar(a)],
              [p.name, b],
            ] as Array<[string, string]>,
        ),
        weight: 1,
      },
    ),
  );
  const odd = fc.oneof(
    { arbitrary: fc.constant<Array<[string, string]>>([]), weight: 8 },
    { arbitrary: fc.tuple(oddKeys, hostileText).map(([k, v]) => [[k, v]] as Array<[string, string]>), weight: 1 },
    {
      arbitrary: fc.constantFrom<Array<[string, string]>>(
        [['page[]', '1']],
        [
          ['page_size', '1'],
          ['page_size', '2'],
        ],
        [['a[b][c]', '1']],
      ),
      weight: 1,
    },
  );
  return fc.tuple(fc.tuple(...params), odd).map(([chosen, extra]) => {
    const pairs = [...chosen.flat(), ...extra];
    return { pairs, notes: extra.length ? [`query ${extra.map(([k]) => JSON.stringify(k)).join(', ')}`] : [] };
  });
}

/** Other spellings of a path: case, doubled or missing slashes, percent-encoded letters, dot segments. */
const spellings: Array<[string, (path: string) => string]> = [
  ['upper case', (p) => p.toUpperCase()],
  ['mixed case', (p) => p.replace(/\/([a-z])/g, (_m, c: string) => `/${c.toUpperCase()}`)],
  ['doubled slashes', (p) => p.replace(/\//g, '//')],
  ['no trailing slash', (p) => p.replace(/\/$/, '')],
  ['an extra trailing slash', (p) => `${p}/`],
  ['a percent-encoded letter', (p) => p.replace(/[a-z]/, (c) => `%${c.charCodeAt(0).toString(16)}`)],
  ['a dot segment', (p) => p.replace(/^\/([^/]+)\//, '/$1/./')],
  ['a dot-dot segment', (p) => p.replace(/^\/([^/]+)\//, '/$1/x/../')],
];
const pathSpelling = fc.oneof(
  { arbitrary: fc.constant<[string, (path: string) => string] | undefined>(undefined), weight: 14 },
  { arbitrary: fc.constantFrom(...spellings), weight: 1 },
);

/** One whole request for `op`. */
export function requestFor(op: FuzzOperation, world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  const path = fc.tuple(fc.tuple(...op.pathParams.map((p) => pathValue(p.name, op, world))), pathSpelling).map(([values, spelling]) => {
    const exact = op.pathParams.reduce(
      (template, p, i) => template.replace(`{${p.name}}`, values[i].raw ? values[i].text : percentEncode(values[i].text)),
      op.template,
    );
    return spelling ? { path: spelling[1](exact), note: `path spelled with ${spelling[0]}` } : { path: exact, note: undefined };
  });
  type Body = { text?: string; contentType?: string; notes: string[]; json?: FuzzValue; encoding?: 'latin1' };
  const body: fc.Arbitrary<Body> = op.body
    ? fc.oneof<fc.WeightedArbitrary<Body>[]>(
        { arbitrary: fc.tuple(jsonBody(op, world), contentTypes).map(([b, type]) => ({ json: b.body, contentType: type, notes: b.notes })), weight: 10 },
        {
          // The operation's own body with a "Café" in it, sent in Latin-1: not UTF-8, so refused naming `body`.
          arbitrary: jsonBody(op, world).map((b) => ({
            json: b.body && typeof b.body === 'object' && !Array.isArray(b.body) && !(b.body instanceof RawJson) ? withField(b.body, 'name', 'Café') : b.body,
            contentType: 'application/json',
            encoding: 'latin1' as const,
            notes: [...b.notes, 'body in Latin-1'],
          })),
          weight: 1,
        },
        {
          arbitrary: fc
            .constantFrom('{', '{"a":', '[1,2', 'null', '"string"', '\uFEFF{}', '{"a":1}{"b":2}', 'nul\u0000', '{"x": NaN}', '{"x": 0x10}')
            .map((text) => ({ text, contentType: 'application/json', notes: ['raw text body'] })),
          weight: 1,
        },
        ...(op.otherBodyTypes.includes('text/csv')
          ? [
              { arbitrary: csvBody.map((c) => ({ text: c.text, contentType: 'text/csv', notes: [c.note] })), weight: 6 },
              {
                arbitrary: csvBody.map((c) => ({
                  text: `${c.text}Café,\r\n`,
                  contentType: 'text/csv',
                  encoding: 'latin1' as const,
                  notes: [c.note, 'CSV in Latin-1'],
                })),
                weight: 1,
              },
            ]
          : []),
        // Over the 1 MB body limit: 413.
        {
          arbitrary: fc.constant<Body>({ json: dataObject([['padding', 'z'.repeat(1_100_000)]]), contentType: 'application/json', notes: ['1.1 MB body'] }),
          weight: 1,
        },
      )
    : fc.oneof<fc.WeightedArbitrary<Body>[]>(
        { arbitrary: fc.constant<Body>({ notes: [] }), weight: 12 },
        { arbitrary: fc.constant<Body>({ text: '{"unexpected": true}', contentType: 'application/json', notes: ['a body where none is taken'] }), weight: 1 },
      );
  return fc.tuple(path, queryOf(op, world), body, credentials(op, world), extraHeaders).map(([p, query, b, auth, extra]) => {
    const headers: Record<string, string> = { ...auth.headers };
    for (const [name, value] of extra) headers[name] = value;
    let text = b.text;
    if (b.json !== undefined) {
      const json =
        auth.bodyKey && b.json && typeof b.json === 'object' && !Array.isArray(b.json) && !(b.json instanceof RawJson)
          ? withField(b.json, 'api_key', auth.bodyKey)
          : b.json;
      text = toJsonText(json);
    }
    if (text !== undefined && b.contentType) headers['content-type'] = b.contentType;
    const pairs = [...query.pairs, ...auth.query];
    const spelled = (v: string | SpelledAsSent) => (v instanceof SpelledAsSent ? v.spelling : percentEncode(v));
    const url = pairs.length ? `${p.path}?${pairs.map(([k, v]) => `${percentEncode(k)}=${spelled(v)}`).join('&')}` : p.path;
    const notes = [auth.note, ...(p.note ? [p.note] : []), ...query.notes, ...b.notes, ...extra.map(([h]) => `header ${h}`)];
    return { method: op.method, url, headers, body: text, bodyEncoding: b.encoding, notes };
  });
}

/**
 * A request as its documentation asks for it: valid parameters and body naming the caller's own records, the
 * operation's own credentials in a header, nothing bent. races.test.ts sends these together, so that changes
 * meet on the same records instead of being refused one by one.
 */
export function plainRequestFor(op: FuzzOperation, world: FuzzWorld): fc.Arbitrary<FuzzRequest> {
  // Ids of the caller's own records wherever the single-request suite would draw another company's.
  world = { ...world, foreign: world.own };
  const params = fc.tuple(...op.pathParams.map((p) => (p.name === 'code' ? validString({}, 'code', op, world) : idOf(kindOf(p.name, op.template), world))));
  const query = fc.tuple(
    ...op.queryParams.map((p) => {
      const pair = validValue(p.schema, p.name, op, world).map((v) => [[p.name, scalar(v)]] as Array<[string, string]>);
      return p.required ? pair : fc.oneof(fc.constant<Array<[string, string]>>([]), pair);
    }),
  );
  const body = op.body
    ? op.template === '/api/v1/product-models/import/'
      ? importDocument()
      : validValue(op.body, 'body', op, world)
    : fc.constant(undefined);
  const headers: Record<string, string> =
    op.security === 'bearer'
      ? { authorization: `Bearer ${world.credentials.token}` }
      : op.security === 'api_key'
        ? { 'x-api-key': world.credentials.apiKey }
        : {};
  return fc.tuple(params, query, body).map(([values, pairs, json]) => {
    const path = op.pathParams.reduce((template, p, i) => template.replace(`{${p.name}}`, percentEncode(String(values[i] as string | number))), op.template);
    const flat = pairs.flat();
    const url = flat.length ? `${path}?${flat.map(([k, v]) => `${percentEncode(k)}=${percentEncode(v)}`).join('&')}` : path;
    const text = json === undefined ? undefined : toJsonText(json);
    return {
      method: op.method,
      url,
      headers: text === undefined ? headers : { ...headers, 'content-type': 'application/json' },
      body: text,
      notes: ['as documented'],
    };
  });
}
