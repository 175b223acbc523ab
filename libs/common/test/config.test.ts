import { expect } from 'chai';
import Joi from 'joi';
import { ConfigError, commonEnv, loadConfig } from '../src';

describe('loadConfig', () => {
  const schema = Joi.object({ ...commonEnv, SOME_PORT: Joi.number().port().default(8001) });

  it('reports every bad or missing setting at once, by name', () => {
    let error: unknown;
    try {
      loadConfig(schema, { DATABASE_URL: 'mysql://nope', INTERNAL_JWT_SECRET: 'short', SOME_PORT: 'eighty' });
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(ConfigError);
    const message = (error as ConfigError).message;
    for (const name of ['DATABASE_URL', 'INTERNAL_JWT_SECRET', 'SOME_PORT']) expect(message).to.include(name);
  });

  it('converts and defaults values, and ignores unrelated variables', () => {
    const config = loadConfig(schema, {
      DATABASE_URL: 'postgres://u@localhost/db',
      INTERNAL_JWT_SECRET: 'x'.repeat(32),
      SOME_PORT: '9001',
      PATH: '/usr/bin',
    }) as Record<string, unknown>;
    expect(config.SOME_PORT).to.equal(9001);
    expect(config.LOG_LEVEL).to.equal('info');
    expect(config).to.not.have.property('PATH');
  });
});
