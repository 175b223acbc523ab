/**
 * engine_config validation on product create and update, through the gateway (docs/api/catalog-and-records.md):
 * the profile × engine_type matrix, defaults per profile, and refused configs, each answering 400
 * `invalid_engine_config` with every problem in `validation_errors` and saving nothing.
 */
import { expect } from 'chai';
import { ApiResponse, patch, post } from '../../support/api';
import { expectErrorShape } from '../../support/assertions';
import { ENGINE_OF, TestCompany, buildCompany, buildProduct, unique } from '../../support/builders';
import type { Profile } from '../../support/builders';
import { productCount, readProduct } from '../../support/products';

const PROFILES: Profile[] = ['STANDARD', 'SERIALIZED', 'BATCH', 'DIMENSIONAL'];
const ENGINE_TYPES = ['counter', 'serialized', 'batch', 'dimensional'];

const create = (company: TestCompany, profile: string, engine_config: unknown) =>
  post('/api/v1/product-models/', { sku: unique('SKU'), name: unique('Product'), profile, engine_config }, { token: company.token });

/** 400 invalid_engine_config, in the error shape plus `validation_errors`, naming exactly `paths`. */
function expectInvalidConfig(res: ApiResponse, paths: string[]) {
  expectErrorShape(res, 400, 'invalid_engine_config');
  expect(res.body.error).to.match(/engine config is invalid/i);
  expect(res.body.details).to.have.all.keys('engine_config');
  const errors = res.body.validation_errors as Array<{ path: string; message: string }>;
  for (const e of errors) {
    expect(e).to.have.all.keys('path', 'message');
    expect(e.message).to.be.a('string').and.not.empty;
  }
  expect(new Set(errors.map((e) => e.path)), JSON.stringify(errors)).to.deep.equal(new Set(paths));
}

describe('engine_config: profile × engine_type on POST /api/v1/product-models/', () => {
  for (const profile of PROFILES) {
    for (const engineType of ENGINE_TYPES) {
      const matches = ENGINE_OF[profile] === engineType;
      const config = { engine_type: engineType, ...(profile === 'DIMENSIONAL' ? { unit: 'm' } : {}) };
      if (matches) {
        it(`accepts engine_type '${engineType}' for a ${profile} product`, async () => {
          const company = await buildCompany();
          const res = await create(company, profile, config);
          expect(res.status, JSON.stringify(res.body)).to.equal(201);
          expect(res.body).to.include({ profile, engine_type: engineType });
        });
      } else {
        it(`refuses engine_type '${engineType}' for a ${profile} product with 400 naming engine_type, creating nothing`, async () => {
          const company = await buildCompany();
          const res = await create(company, profile, config);
          expectInvalidConfig(res, ['engine_type']);
          const error = res.body.validation_errors[0];
          expect(error.message).to.include(profile).and.include(ENGINE_OF[profile]);
          expect(await productCount(company.id)).to.equal(0);
        });
      }
    }
  }
});

describe('engine_config: accepted configs and defaults on POST /api/v1/product-models/', () => {
  const cases: Array<{ what: string; profile: Profile; config: Record<string, unknown>; stored: Record<string, unknown> }> = [
    {
      what: 'a bare STANDARD config gets unit pcs and decimals 0',
      profile: 'STANDARD',
      config: { engine_type: 'counter' },
      stored: { engine_type: 'counter', unit: 'pcs', decimals: 0 },
    },
    {
      what: 'a STANDARD config keeps its own unit, decimals and stock bounds',
      profile: 'STANDARD',
      config: { engine_type: 'counter', unit: 'box', decimals: 2, min_stock: 1.5, min_threshold: 1, max_stock: 40 },
      stored: { engine_type: 'counter', unit: 'box', decimals: 2, min_stock: 1.5, min_threshold: 1, max_stock: 40 },
    },
    {
      what: 'a bare SERIALIZED config gets unit pcs and decimals 0',
      profile: 'SERIALIZED',
      config: { engine_type: 'serialized' },
      stored: { engine_type: 'serialized', unit: 'pcs', decimals: 0 },
    },
    {
      what: 'a SERIALIZED config accepts decimals 0 given explicitly',
      profile: 'SERIALIZED',
      config: { engine_type: 'serialized', decimals: 0, unit: 'unit' },
      stored: { engine_type: 'serialized', unit: 'unit', decimals: 0 },
    },
    {
      what: 'a bare BATCH config gets unit pcs and decimals 0',
      profile: 'BATCH',
      config: { engine_type: 'batch' },
      stored: { engine_type: 'batch', unit: 'pcs', decimals: 0 },
    },
    {
      what: 'a BATCH config accepts a DATE_OFFSET rule (severity defaults to WARNING)',
      profile: 'BATCH',
      config: {
        engine_type: 'batch',
        monitoring_rules: [{ trigger_type: 'DATE_OFFSET', condition_config: { date_field: 'expiration_date', days_offset: 30 } }],
      },
      stored: {
        engine_type: 'batch',
        unit: 'pcs',
        decimals: 0,
        monitoring_rules: [{ trigger_type: 'DATE_OFFSET', condition_config: { date_field: 'expiration_date', days_offset: 30 }, severity: 'WARNING' }],
      },
    },
    {
      what: 'a DIMENSIONAL config with a unit from the list gets decimals 2',
      profile: 'DIMENSIONAL',
      config: { engine_type: 'dimensional', unit: 'm' },
      stored: { engine_type: 'dimensional', unit: 'm', decimals: 2 },
    },
    {
      what: 'a DIMENSIONAL config keeps decimals 3 and a THRESHOLD rule',
      profile: 'DIMENSIONAL',
      config: {
        engine_type: 'dimensional',
        unit: 'kg',
        decimals: 3,
        monitoring_rules: [{ trigger_type: 'THRESHOLD', condition_config: { min: 0.5, max: 20 }, severity: 'CRITICAL' }],
      },
      stored: {
        engine_type: 'dimensional',
        unit: 'kg',
        decimals: 3,
        monitoring_rules: [{ trigger_type: 'THRESHOLD', condition_config: { min: 0.5, max: 20 }, severity: 'CRITICAL' }],
      },
    },
  ];
  for (const c of cases) {
    it(`stores the completed config: ${c.what}`, async () => {
      const company = await buildCompany();
      const res = await create(company, c.profile, c.config);
      expect(res.status, JSON.stringify(res.body)).to.equal(201);
      expect(res.body.engine_config).to.deep.equal(c.stored);
      expect(res.body).to.include({ unit: c.stored.unit, decimals: c.stored.decimals });
      const stored = await readProduct(res.body.id);
      expect(stored.engine_config).to.deep.equal(c.stored);
      expect(stored).to.include({ unit: c.stored.unit, decimals: c.stored.decimals });
    });
  }
});

/** Refused configs, each naming exactly these validation_errors paths. */
const REFUSED: Array<{ when: string; profile: Profile; config: unknown; paths: string[] }> = [
  { when: 'engine_type is missing', profile: 'STANDARD', config: { unit: 'pcs' }, paths: ['engine_type'] },
  { when: 'engine_type is unknown', profile: 'STANDARD', config: { engine_type: 'abacus' }, paths: ['engine_type'] },
  { when: 'the config has an unknown key', profile: 'STANDARD', config: { engine_type: 'counter', colour: 'red' }, paths: ['colour'] },
  { when: 'decimals is 7', profile: 'STANDARD', config: { engine_type: 'counter', decimals: 7 }, paths: ['decimals'] },
  { when: 'decimals is 1.5', profile: 'STANDARD', config: { engine_type: 'counter', decimals: 1.5 }, paths: ['decimals'] },
  { when: 'decimals is the string "2"', profile: 'STANDARD', config: { engine_type: 'counter', decimals: '2' }, paths: ['decimals'] },
  { when: 'a SERIALIZED product has decimals 2', profile: 'SERIALIZED', config: { engine_type: 'serialized', decimals: 2 }, paths: ['decimals'] },
  { when: 'a DIMENSIONAL product has no unit', profile: 'DIMENSIONAL', config: { engine_type: 'dimensional' }, paths: ['unit'] },
  { when: 'a DIMENSIONAL unit is not from the list', profile: 'DIMENSIONAL', config: { engine_type: 'dimensional', unit: 'parsecs' }, paths: ['unit'] },
  { when: 'min_stock is negative', profile: 'STANDARD', config: { engine_type: 'counter', min_stock: -1 }, paths: ['min_stock'] },
  { when: 'min_stock is above max_stock', profile: 'STANDARD', config: { engine_type: 'counter', min_stock: 10, max_stock: 3 }, paths: ['max_stock'] },
  {
    when: 'a THRESHOLD rule has no condition_config',
    profile: 'STANDARD',
    config: { engine_type: 'counter', monitoring_rules: [{ trigger_type: 'THRESHOLD', severity: 'WARNING' }] },
    paths: ['monitoring_rules.0.condition_config'],
  },
  {
    when: 'a THRESHOLD rule has neither min nor max',
    profile: 'STANDARD',
    config: { engine_type: 'counter', monitoring_rules: [{ trigger_type: 'THRESHOLD', condition_config: {} }] },
    paths: ['monitoring_rules.0.condition_config'],
  },
  {
    when: 'a THRESHOLD rule has min above max',
    profile: 'STANDARD',
    config: { engine_type: 'counter', monitoring_rules: [{ trigger_type: 'THRESHOLD', condition_config: { min: 10, max: 2 } }] },
    paths: ['monitoring_rules.0.condition_config.max'],
  },
  {
    when: 'a DATE_OFFSET rule has no date_field',
    profile: 'BATCH',
    config: { engine_type: 'batch', monitoring_rules: [{ trigger_type: 'DATE_OFFSET', condition_config: { days_offset: 5 } }] },
    paths: ['monitoring_rules.0.condition_config.date_field'],
  },
  {
    when: 'a DATE_OFFSET rule has no days_offset',
    profile: 'BATCH',
    config: { engine_type: 'batch', monitoring_rules: [{ trigger_type: 'DATE_OFFSET', condition_config: { date_field: 'expiration_date' } }] },
    paths: ['monitoring_rules.0.condition_config.days_offset'],
  },
  {
    when: 'a DATE_OFFSET rule is on a STANDARD product',
    profile: 'STANDARD',
    config: {
      engine_type: 'counter',
      monitoring_rules: [{ trigger_type: 'DATE_OFFSET', condition_config: { date_field: 'expiration_date', days_offset: 5 } }],
    },
    paths: ['monitoring_rules.0.trigger_type'],
  },
  {
    when: 'a CUSTOM rule is sent',
    profile: 'STANDARD',
    config: { engine_type: 'counter', monitoring_rules: [{ trigger_type: 'CUSTOM' }] },
    paths: ['monitoring_rules.0.trigger_type'],
  },
  {
    when: 'a trigger_type is unknown',
    profile: 'STANDARD',
    config: { engine_type: 'counter', monitoring_rules: [{ trigger_type: 'EVERY_FULL_MOON', condition_config: {} }] },
    paths: ['monitoring_rules.0.trigger_type'],
  },
  {
    when: "a severity is 'LOUD'",
    profile: 'STANDARD',
    config: { engine_type: 'counter', monitoring_rules: [{ trigger_type: 'THRESHOLD', condition_config: { min: 1 }, severity: 'LOUD' }] },
    paths: ['monitoring_rules.0.severity'],
  },
  {
    when: 'monitoring_rules is not a list',
    profile: 'STANDARD',
    config: { engine_type: 'counter', monitoring_rules: { trigger_type: 'THRESHOLD' } },
    paths: ['monitoring_rules'],
  },
  {
    when: 'several things are wrong at once (all listed)',
    profile: 'SERIALIZED',
    config: {
      engine_type: 'batch',
      decimals: 1,
      min_stock: -5,
      flavour: 'vanilla',
      monitoring_rules: [
        { trigger_type: 'THRESHOLD' },
        { trigger_type: 'CUSTOM' },
        { trigger_type: 'THRESHOLD', condition_config: { max: 3 }, severity: 'LOUD' },
      ],
    },
    paths: [
      'engine_type',
      'decimals',
      'min_stock',
      'flavour',
      'monitoring_rules.0.condition_config',
      'monitoring_rules.1.trigger_type',
      'monitoring_rules.2.severity',
    ],
  },
];

describe('engine_config: refused configs on POST /api/v1/product-models/', () => {
  for (const c of REFUSED) {
    it(`answers 400 invalid_engine_config naming ${c.paths.join(', ')} when ${c.when}, and creates nothing`, async () => {
      const company = await buildCompany();
      expectInvalidConfig(await create(company, c.profile, c.config), c.paths);
      expect(await productCount(company.id)).to.equal(0);
    });
  }
});

describe('engine_config: refused configs on PATCH /api/v1/product-models/{id}/', () => {
  for (const c of REFUSED) {
    it(`answers 400 invalid_engine_config naming ${c.paths.join(', ')} when ${c.when}, and leaves the product unchanged`, async () => {
      const company = await buildCompany();
      const product = await buildProduct(company, { profile: c.profile });
      const before = await readProduct(product.id);
      expectInvalidConfig(
        await patch(`/api/v1/product-models/${product.id}/`, { engine_config: c.config, name: 'Changed too' }, { token: company.token }),
        c.paths,
      );
      expect(await readProduct(product.id)).to.deep.equal(before);
    });
  }

  it("validates a new engine_config alone against the product's current profile", async () => {
    const company = await buildCompany();
    const product = await buildProduct(company, { profile: 'BATCH' });
    const before = await readProduct(product.id);
    expectInvalidConfig(await patch(`/api/v1/product-models/${product.id}/`, { engine_config: { engine_type: 'counter' } }, { token: company.token }), [
      'engine_type',
    ]);
    expect(await readProduct(product.id)).to.deep.equal(before);
    const ok = await patch(`/api/v1/product-models/${product.id}/`, { engine_config: { engine_type: 'batch', min_stock: 3 } }, { token: company.token });
    expect(ok.status, JSON.stringify(ok.body)).to.equal(200);
    expect(ok.body.engine_config).to.deep.equal({ engine_type: 'batch', unit: 'pcs', decimals: 0, min_stock: 3 });
  });

  it('validates a new engine_config against a new profile given in the same request', async () => {
    const company = await buildCompany();
    const product = await buildProduct(company);
    const before = await readProduct(product.id);
    expectInvalidConfig(
      await patch(`/api/v1/product-models/${product.id}/`, { profile: 'DIMENSIONAL', engine_config: { engine_type: 'dimensional' } }, { token: company.token }),
      ['unit'],
    );
    expect(await readProduct(product.id)).to.deep.equal(before);
  });
});
