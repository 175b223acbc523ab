import { expect } from 'chai';
import Joi from 'joi';
import { ValidationError, validateValue } from '../src';

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
