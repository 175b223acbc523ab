import { expect } from 'chai';
import Joi from 'joi';
import { MANY_VALUES, MAX_ARRAY_ITEMS, MAX_NAMED, MAX_OBJECT_MEMBERS, ValidationError, fieldsOf, hostileTextFields, validate, validateValue } from '../src';

describe('validateValue', () => {
  const schema = Joi.object({ name: Joi.string().max(3).required(), nested: Joi.object({ count: Joi.number().integer() }) });

  it('names every bad field in one error, with dotted paths for nested ones', () => {
    let error: ValidationError | undefined;
    try {
      validateValue(schema, { name: 'toolong', nested: { count: 1.5 }, extra: true });
    } catch (err) {
      error = err as ValidationError;
    }
    expect(error).to.be.instanceOf(ValidationError);
    expect(error!.status).to.equal(400);
    expect(error!.code).to.equal('validation_error');
    expect(error!.details).to.have.all.keys('name', 'nested.count', 'extra');
  });

  it('names a plain value after the given name', () => {
    let error: ValidationError | undefined;
    try {
      validateValue(Joi.string().valid('free', 'premium'), 'gold', 'tier');
    } catch (err) {
      error = err as ValidationError;
    }
    expect(error!.details).to.deep.equal({ tier: 'tier must be one of [free, premium]' });
  });

  it('returns the cleaned value when valid', () => {
    expect(validateValue(schema, { name: 'abc' })).to.deep.equal({ name: 'abc' });
  });
});

/** Names of Object.prototype's members (and `prototype`): a client may send any of them as a key. */
const BUILT_IN_KEYS = [
  'constructor',
  '__proto__',
  'toString',
  'hasOwnProperty',
  'valueOf',
  'prototype',
  'isPrototypeOf',
  'propertyIsEnumerable',
  'toLocaleString',
  '__defineGetter__',
  '__lookupSetter__',
];

/** Runs the `validate()` middleware on a request-like object and answers what it passed to `next`. */
function runValidate(schemas: Parameters<typeof validate>[0], req: { body?: unknown; query?: unknown; params?: unknown; originalUrl?: string }) {
  const request = { originalUrl: '/', params: {}, query: Object.create(null), ...req } as any;
  let outcome: unknown = 'next was not called';
  validate(schemas)(request, {} as any, (err?: unknown) => {
    outcome = err;
  });
  return { outcome, request };
}

describe('validate() and key names like built-in properties', () => {
  const body = Joi.object({ sku: Joi.string().trim().required(), active: Joi.boolean().default(true) });
  const query = Joi.object({ page: Joi.number().integer().min(1).default(1) });

  for (const key of BUILT_IN_KEYS) {
    it(`refuses a JSON body with an unknown key "${key}", naming it`, () => {
      const parsed = JSON.parse(`{"sku": "  A-1  ", ${JSON.stringify(key)}: 1}`);
      const { outcome, request } = runValidate({ body }, { body: parsed });
      expect(outcome).to.be.instanceOf(ValidationError);
      expect(Object.keys((outcome as ValidationError).details)).to.deep.equal([key]);
      // The handler never runs, and the raw body was not passed on as if clean.
      expect(request.body.sku).to.equal('  A-1  ');
    });

    it(`refuses a query with an unknown key "${key}" (as Express parses it), naming it`, () => {
      const parsed = Object.assign(Object.create(null), { [key]: '1', page: '2' });
      const { outcome } = runValidate({ query }, { query: parsed });
      expect(outcome).to.be.instanceOf(ValidationError);
      expect(Object.keys((outcome as ValidationError).details)).to.deep.equal([key]);
    });

    it(`names "${key}" when it is the bad field of a nested object, beside the other bad fields`, () => {
      const nested = Joi.object({ config: Joi.object({ unit: Joi.string() }), sku: Joi.string().required() });
      const parsed = JSON.parse(`{"config": {${JSON.stringify(key)}: "x"}}`);
      const { outcome } = runValidate({ body: nested }, { body: parsed });
      expect(outcome).to.be.instanceOf(ValidationError);
      expect(Object.keys((outcome as ValidationError).details).sort()).to.deep.equal([`config.${key}`, 'sku'].sort());
    });
  }

  it('passes the cleaned body and query on when they are valid', () => {
    const { outcome, request } = runValidate({ body, query }, { body: { sku: '  A-1 ' }, query: Object.assign(Object.create(null), { page: '3' }) });
    expect(outcome).to.equal(undefined);
    expect(request.body).to.deep.equal({ sku: 'A-1', active: true });
    expect(request.query).to.deep.equal({ page: 3 });
  });

  it('fieldsOf answers a prototype-free map that holds every key as data', () => {
    const schema = Joi.object({});
    const { error } = schema.validate(JSON.parse('{"constructor": 1, "__proto__": 2, "toString": 3}'), { abortEarly: false });
    // joi drops a parsed "__proto__" key silently; hostile-text.ts refuses it (below).
    const fields = fieldsOf(error!);
    expect(Object.getPrototypeOf(fields)).to.equal(null);
    expect(Object.keys(fields)).to.deep.equal(['constructor', 'toString']);
  });
});

describe('validate() and text the database cannot store', () => {
  const body = Joi.object({ name: Joi.string().required(), tags: Joi.array().items(Joi.string()), config: Joi.object().unknown(true) });

  const cases: Array<[string, unknown, string]> = [
    ['a NUL in a field', { name: 'a\u0000b' }, 'name'],
    ['a NUL at the end of a field', { name: 'ab\u0000' }, 'name'],
    ['a NUL in an array item', { name: 'a', tags: ['ok', '\u0000'] }, 'tags.1'],
    ['a NUL in a free-form object', { name: 'a', config: { unit: 'm\u0000' } }, 'config.unit'],
    ['a NUL in a key of a free-form object', { name: 'a', config: { 'u\u0000': 1 } }, 'config'],
    ['a lone high surrogate', { name: 'a\ud800' }, 'name'],
    ['a lone low surrogate', { name: '\udc00a' }, 'name'],
    ['a "__proto__" key in a free-form object', { name: 'a', config: JSON.parse('{"__proto__": {"x": 1}}') }, 'config.__proto__'],
  ];
  for (const [what, input, field] of cases) {
    it(`refuses ${what}, naming ${field}`, () => {
      const { outcome } = runValidate({ body }, { body: input });
      expect(outcome).to.be.instanceOf(ValidationError);
      expect((outcome as ValidationError).details)
        .to.have.property(field)
        .that.is.a('string').and.not.empty;
    });
  }

  it('refuses a NUL in a query parameter, and in a path parameter', () => {
    const q = runValidate({ query: Joi.object({ search: Joi.string() }) }, { query: Object.assign(Object.create(null), { search: 'x\u0000' }) });
    expect((q.outcome as ValidationError).details).to.have.property('search');
    const p = runValidate({ params: Joi.object({ code: Joi.string() }) }, { params: { code: '\u0000abc' } });
    expect((p.outcome as ValidationError).details).to.have.property('code');
  });

  it('refuses such text in a body the route checks without a schema of its own (an import)', () => {
    const { outcome } = runValidate({ query: Joi.object({}) }, { body: { products: [{ sku: 'a\u0000' }] } });
    expect((outcome as ValidationError).details).to.have.property('products.0.sku');
  });

  it('accepts paired surrogates (emoji), right-to-left text and other control characters', () => {
    const { outcome } = runValidate({ body }, { body: { name: 'box 📦 \u202eעברית\u0001\t' } });
    expect(outcome).to.equal(undefined);
  });

  it('walks a deeply nested body without overflowing the stack', () => {
    let deep: unknown = 'x\u0000';
    for (let i = 0; i < 100_000; i++) deep = [deep];
    const fields = hostileTextFields(deep, 'body');
    expect(Object.keys(fields)).to.have.length(1);
  });
});

describe('validate() and query parameters whose percent-encoding is not UTF-8', () => {
  const query = Joi.object({ search: Joi.string(), page: Joi.number().integer() });
  // What Node's query parser makes of each: the escape kept as sent, or U+FFFD for bytes that are not UTF-8.
  const spellings: Array<[string, string, string]> = [
    ['%ff', 'a byte that is not UTF-8', '\ufffd'],
    ['%C0%AF', 'an overlong encoding', '\ufffd\ufffd'],
    ['%ED%A0%80', 'an encoded surrogate', '\ufffd\ufffd\ufffd'],
    ['50%', 'a bare %', '50%'],
    ['%zz', 'a malformed escape', '%zz'],
  ];
  for (const [spelling, what, parsed] of spellings) {
    it(`refuses ${what} (search=${spelling}), naming search, though the parsed text would pass the schema`, () => {
      const { outcome } = runValidate({ query }, { originalUrl: `/items/?page=2&search=${spelling}`, query: { page: '2', search: parsed } });
      expect(outcome).to.be.instanceOf(ValidationError);
      expect((outcome as ValidationError).details).to.deep.equal({ search: 'search is not valid percent-encoding of UTF-8 text' });
    });
  }

  it('refuses it in a route that has no query schema too', () => {
    const { outcome } = runValidate({}, { originalUrl: '/items/?search=%ff', query: { search: '\ufffd' } });
    expect((outcome as ValidationError).details).to.have.property('search');
  });

  it('names a parameter whose own name is badly encoded as it was sent', () => {
    const { outcome } = runValidate({ query }, { originalUrl: '/items/?se%ffarch=x', query: { 'se\ufffdarch': 'x' } });
    expect((outcome as ValidationError).details).to.deep.equal({ 'se%ffarch': 'se%ffarch is not valid percent-encoding of UTF-8 text' });
  });

  it('accepts UTF-8 escapes, + for a space, and empty pairs', () => {
    const { outcome, request } = runValidate(
      { query },
      { originalUrl: '/items/?search=caf%C3%A9+cr%C3%A8me&&page=2', query: { search: 'café crème', page: '2' } },
    );
    expect(outcome).to.equal(undefined);
    expect(request.query).to.deep.equal({ search: 'café crème', page: 2 });
  });
});

describe('validate() and values too wide to check one by one', () => {
  const schema = Joi.object({ name: Joi.string().required(), serials: Joi.array().items(Joi.string().max(100)).max(MAX_ARRAY_ITEMS), part: Joi.object() });
  const refusal = (value: unknown): ValidationError => {
    try {
      validateValue(schema, value);
    } catch (err) {
      return err as ValidationError;
    }
    throw new Error('the value was taken');
  };
  const members = (count: number) => Object.fromEntries(Array.from({ length: count }, (_, i) => [`k${i}`, 1]));

  it(`refuses an object of more than ${MAX_OBJECT_MEMBERS} members at once, naming it, not each unknown key`, () => {
    expect(refusal({ name: 'a', ...members(90_000) }).details).to.deep.equal({
      body: `body has 90001 fields; no request object has more than ${MAX_OBJECT_MEMBERS}`,
    });
    expect(refusal({ name: 'a', part: members(MAX_OBJECT_MEMBERS + 1) }).details).to.deep.equal({
      part: `part has ${MAX_OBJECT_MEMBERS + 1} fields; no request object has more than ${MAX_OBJECT_MEMBERS}`,
    });
  });

  it(`refuses an array of more than ${MAX_ARRAY_ITEMS} items at once, naming it by its path`, () => {
    const serials = Array.from({ length: MAX_ARRAY_ITEMS + 1 }, (_, i) => i);
    expect(refusal({ name: 'a', serials }).details).to.deep.equal({
      serials: `serials has ${MAX_ARRAY_ITEMS + 1} items; no request takes more than ${MAX_ARRAY_ITEMS}`,
    });
  });

  it(`takes the widest value a request may send: ${MAX_ARRAY_ITEMS} items, objects of ${MAX_OBJECT_MEMBERS} members`, () => {
    const serials = Array.from({ length: MAX_ARRAY_ITEMS }, (_, i) => `SN-${i}`);
    expect(validateValue(schema, { name: 'a', serials, part: members(MAX_OBJECT_MEMBERS) }))
      .to.have.property('serials')
      .with.length(MAX_ARRAY_ITEMS);
  });

  it(`names every bad field of a value of up to ${MANY_VALUES} values, and only the first of a larger one`, () => {
    const few = refusal({ name: 'a', serials: Array.from({ length: 50 }, (_, i) => i) });
    expect(Object.keys(few.details)).to.have.length(50);
    const many = refusal({ name: 'a', serials: Array.from({ length: MANY_VALUES }, (_, i) => i) });
    expect(Object.keys(many.details)).to.deep.equal(['serials.0']);
  });

  it(`names at most ${MAX_NAMED} fields in one refusal, however many are bad`, () => {
    const bad = refusal({ name: 'a', serials: Array.from({ length: 5000 }, (_, i) => i) });
    expect(Object.keys(bad.details)).to.have.length(MAX_NAMED);
    const nul = Object.fromEntries(Array.from({ length: 900 }, (_, i) => [`k${i}`, 'x\u0000']));
    expect(Object.keys(hostileTextFields(nul, 'body'))).to.have.length(MAX_NAMED);
  });
});
