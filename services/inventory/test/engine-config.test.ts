/**
 * Unit tests of engine/engine-config.ts: the profile × engine_type match, defaults, the bounds, monitoring
 * rules, and that every problem of a config is listed, as `{path, message}`, in one error.
 */
import { expect } from 'chai';
import { PROFILES, Profile, errorBody } from '@pi/common';
import { ENGINE_TYPES, EngineConfigProblem, InvalidEngineConfigError, validateEngineConfig } from '../src/engine/engine-config';

const ENGINE_OF: Record<Profile, string> = { STANDARD: 'counter', SERIALIZED: 'serialized', BATCH: 'batch', DIMENSIONAL: 'dimensional' };
const base = (profile: Profile): Record<string, unknown> => ({ engine_type: ENGINE_OF[profile], ...(profile === 'DIMENSIONAL' ? { unit: 'm' } : {}) });

/** The problems validateEngineConfig reports (it must throw). */
function problemsOf(profile: Profile, config: unknown): EngineConfigProblem[] {
  try {
    validateEngineConfig(profile, config);
  } catch (err) {
    expect(err).to.be.instanceOf(InvalidEngineConfigError);
    return (err as InvalidEngineConfigError).problems;
  }
  throw new Error(`expected ${JSON.stringify(config)} to be refused for ${profile}`);
}

const paths = (problems: EngineConfigProblem[]) => problems.map((p) => p.path);

describe('engine/engine-config: profile and engine_type', () => {
  for (const profile of PROFILES) {
    for (const engineType of ENGINE_TYPES) {
      const matches = ENGINE_OF[profile] === engineType;
      it(`${matches ? 'accepts' : 'refuses'} engine_type '${engineType}' for a ${profile} product`, () => {
        const config = { ...base(profile), engine_type: engineType };
        if (matches) {
          expect(validateEngineConfig(profile, config).engine_type).to.equal(engineType);
        } else {
          const problems = problemsOf(profile, config);
          expect(problems).to.have.length(1);
          expect(problems[0].path).to.equal('engine_type');
          expect(problems[0].message).to.include(profile).and.include(ENGINE_OF[profile]);
        }
      });
    }
  }

  it('refuses an unknown engine_type, naming engine_type', () => {
    const problems = problemsOf('STANDARD', { engine_type: 'abacus' });
    expect(paths(problems)).to.include('engine_type');
    expect(new Set(paths(problems))).to.deep.equal(new Set(['engine_type']));
  });

  it('refuses a missing engine_type, naming engine_type', () => {
    expect(paths(problemsOf('STANDARD', {}))).to.deep.equal(['engine_type']);
  });

  for (const raw of [null, [], 'counter', 42]) {
    it(`refuses ${JSON.stringify(raw)} as a whole config`, () => {
      expect(problemsOf('STANDARD', raw)).to.deep.equal([{ path: '', message: 'engine_config must be an object' }]);
    });
  }
});

describe('engine/engine-config: defaults and accepted configs', () => {
  it('fills unit pcs and decimals 0 for STANDARD, SERIALIZED and BATCH', () => {
    for (const profile of ['STANDARD', 'SERIALIZED', 'BATCH'] as const) {
      expect(validateEngineConfig(profile, { engine_type: ENGINE_OF[profile] })).to.deep.equal({ engine_type: ENGINE_OF[profile], unit: 'pcs', decimals: 0 });
    }
  });

  it('defaults DIMENSIONAL decimals to 2 and keeps the given unit', () => {
    expect(validateEngineConfig('DIMENSIONAL', { engine_type: 'dimensional', unit: 'kg' })).to.deep.equal({
      engine_type: 'dimensional',
      unit: 'kg',
      decimals: 2,
    });
  });

  it('keeps every accepted field of a full STANDARD config', () => {
    const config = {
      engine_type: 'counter',
      unit: 'box',
      decimals: 3,
      min_stock: 5,
      min_threshold: 4,
      max_stock: 100,
      monitoring_rules: [{ trigger_type: 'THRESHOLD', condition_config: { min: 1, max: 50 }, severity: 'CRITICAL' }],
    };
    expect(validateEngineConfig('STANDARD', config)).to.deep.equal(config);
  });

  it('defaults a monitoring rule severity to WARNING', () => {
    const out = validateEngineConfig('STANDARD', { engine_type: 'counter', monitoring_rules: [{ trigger_type: 'THRESHOLD', condition_config: { min: 2 } }] });
    expect(out.monitoring_rules).to.deep.equal([{ trigger_type: 'THRESHOLD', condition_config: { min: 2 }, severity: 'WARNING' }]);
  });

  it('accepts a DATE_OFFSET rule on a BATCH product', () => {
    const rule = { trigger_type: 'DATE_OFFSET', condition_config: { date_field: 'expiration_date', days_offset: 14 }, severity: 'WARNING' };
    expect(validateEngineConfig('BATCH', { engine_type: 'batch', monitoring_rules: [rule] }).monitoring_rules).to.deep.equal([rule]);
  });

  it('accepts min_stock equal to max_stock', () => {
    expect(validateEngineConfig('STANDARD', { engine_type: 'counter', min_stock: 10, max_stock: 10 }).max_stock).to.equal(10);
  });

  it('does not change the config it was given', () => {
    const raw = { engine_type: 'counter' };
    validateEngineConfig('STANDARD', raw);
    expect(raw).to.deep.equal({ engine_type: 'counter' });
  });
});

describe('engine/engine-config: refused configs', () => {
  const cases: Array<{ when: string; profile?: Profile; config: Record<string, unknown>; paths: string[] }> = [
    { when: 'an unknown key is sent', config: { engine_type: 'counter', colour: 'red' }, paths: ['colour'] },
    { when: 'decimals is 7', config: { engine_type: 'counter', decimals: 7 }, paths: ['decimals'] },
    { when: 'decimals is 1.5', config: { engine_type: 'counter', decimals: 1.5 }, paths: ['decimals'] },
    { when: 'decimals is the string "2"', config: { engine_type: 'counter', decimals: '2' }, paths: ['decimals'] },
    { when: 'decimals is negative', config: { engine_type: 'counter', decimals: -1 }, paths: ['decimals'] },
    { when: 'a SERIALIZED product has decimals 2', profile: 'SERIALIZED', config: { engine_type: 'serialized', decimals: 2 }, paths: ['decimals'] },
    { when: 'a DIMENSIONAL product has no unit', profile: 'DIMENSIONAL', config: { engine_type: 'dimensional' }, paths: ['unit'] },
    { when: 'a DIMENSIONAL unit is not from the list', profile: 'DIMENSIONAL', config: { engine_type: 'dimensional', unit: 'pcs' }, paths: ['unit'] },
    { when: 'a unit is empty', config: { engine_type: 'counter', unit: '' }, paths: ['unit'] },
    { when: 'a unit has markup in it', config: { engine_type: 'counter', unit: '<b>' }, paths: ['unit'] },
    { when: 'min_stock is negative', config: { engine_type: 'counter', min_stock: -1 }, paths: ['min_stock'] },
    { when: 'min_stock is a string', config: { engine_type: 'counter', min_stock: '5' }, paths: ['min_stock'] },
    { when: 'min_stock is above max_stock', config: { engine_type: 'counter', min_stock: 10, max_stock: 5 }, paths: ['max_stock'] },
    { when: 'min_threshold is above max_stock', config: { engine_type: 'counter', min_threshold: 10, max_stock: 5 }, paths: ['max_stock'] },
    {
      when: 'min_threshold is above max_stock while min_stock is not',
      config: { engine_type: 'counter', min_stock: 1, min_threshold: 10, max_stock: 5 },
      paths: ['max_stock'],
    },
    { when: 'monitoring_rules is not a list', config: { engine_type: 'counter', monitoring_rules: 'THRESHOLD' }, paths: ['monitoring_rules'] },
    { when: 'a monitoring rule is not an object', config: { engine_type: 'counter', monitoring_rules: [null] }, paths: ['monitoring_rules.0'] },
    {
      when: 'a THRESHOLD rule has no condition_config',
      config: { engine_type: 'counter', monitoring_rules: [{ trigger_type: 'THRESHOLD' }] },
      paths: ['monitoring_rules.0.condition_config'],
    },
    {
      when: 'a THRESHOLD rule has neither min nor max',
      config: { engine_type: 'counter', monitoring_rules: [{ trigger_type: 'THRESHOLD', condition_config: {} }] },
      paths: ['monitoring_rules.0.condition_config'],
    },
    {
      when: 'a THRESHOLD rule has min above max',
      config: { engine_type: 'counter', monitoring_rules: [{ trigger_type: 'THRESHOLD', condition_config: { min: 9, max: 3 } }] },
      paths: ['monitoring_rules.0.condition_config.max'],
    },
    {
      when: 'a THRESHOLD condition_config is a string',
      config: { engine_type: 'counter', monitoring_rules: [{ trigger_type: 'THRESHOLD', condition_config: 'min=1' }] },
      paths: ['monitoring_rules.0.condition_config'],
    },
    {
      when: 'a DATE_OFFSET rule has no date_field',
      profile: 'BATCH',
      config: { engine_type: 'batch', monitoring_rules: [{ trigger_type: 'DATE_OFFSET', condition_config: { days_offset: 7 } }] },
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
      config: {
        engine_type: 'counter',
        monitoring_rules: [{ trigger_type: 'DATE_OFFSET', condition_config: { date_field: 'expiration_date', days_offset: 7 } }],
      },
      paths: ['monitoring_rules.0.trigger_type'],
    },
    {
      when: 'a CUSTOM rule is sent',
      config: { engine_type: 'counter', monitoring_rules: [{ trigger_type: 'CUSTOM' }] },
      paths: ['monitoring_rules.0.trigger_type'],
    },
    {
      when: 'a trigger_type is unknown',
      config: { engine_type: 'counter', monitoring_rules: [{ trigger_type: 'SOMETIMES', condition_config: {} }] },
      paths: ['monitoring_rules.0.trigger_type'],
    },
    {
      when: "a severity is 'LOUD'",
      config: { engine_type: 'counter', monitoring_rules: [{ trigger_type: 'THRESHOLD', condition_config: { min: 1 }, severity: 'LOUD' }] },
      paths: ['monitoring_rules.0.severity'],
    },
  ];

  for (const c of cases) {
    it(`refuses the config when ${c.when}, naming ${c.paths.join(', ')}`, () => {
      const problems = problemsOf(c.profile ?? 'STANDARD', c.config);
      expect(new Set(paths(problems)), JSON.stringify(problems)).to.deep.equal(new Set(c.paths));
      for (const p of problems) expect(p.message).to.be.a('string').and.not.empty;
    });
  }

  it('lists every problem at once, in one error', () => {
    const problems = problemsOf('SERIALIZED', {
      engine_type: 'counter',
      decimals: 2,
      min_stock: -1,
      colour: 'red',
      monitoring_rules: [
        { trigger_type: 'THRESHOLD' },
        { trigger_type: 'CUSTOM' },
        { trigger_type: 'THRESHOLD', condition_config: { min: 1 }, severity: 'LOUD' },
      ],
    });
    expect(new Set(paths(problems))).to.deep.equal(
      new Set([
        'engine_type',
        'decimals',
        'min_stock',
        'colour',
        'monitoring_rules.0.condition_config',
        'monitoring_rules.1.trigger_type',
        'monitoring_rules.2.severity',
      ]),
    );
  });

  it('answers in the error shape: 400 invalid_engine_config with validation_errors beside details', () => {
    let error: InvalidEngineConfigError | undefined;
    try {
      validateEngineConfig('STANDARD', { engine_type: 'batch', decimals: 9 });
    } catch (err) {
      error = err as InvalidEngineConfigError;
    }
    expect(error).to.be.instanceOf(InvalidEngineConfigError);
    expect(error!.status).to.equal(400);
    const body = errorBody(error!, 'req-1') as Record<string, unknown>;
    expect(body).to.have.all.keys('error', 'code', 'details', 'validation_errors', 'request_id');
    expect(body.code).to.equal('invalid_engine_config');
    expect(body.error).to.match(/engine config is invalid/i);
    expect(body.details).to.have.all.keys('engine_config');
    expect(new Set(paths(body.validation_errors as EngineConfigProblem[]))).to.deep.equal(new Set(['engine_type', 'decimals']));
  });
});
