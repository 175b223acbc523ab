import { expect } from 'chai';
import Joi from 'joi';
import { ServiceApi, publishApi, readPublishedApi } from '../src';

describe('a published API read back', () => {
  const api: ServiceApi = {
    service: 'example',
    tags: [{ name: 'Things', description: 'Things.' }],
    operations: [
      {
        method: 'post',
        path: '/api/v1/things/',
        operationId: 'createThing',
        tag: 'Things',
        summary: 'Creates a thing',
        security: 'bearer',
        request: { body: Joi.object({ name: Joi.string().max(3).required() }) },
        responses: { 201: { description: 'The thing', schema: Joi.object({ id: Joi.string().uuid() }) } },
      },
    ],
  };

  it('rebuilds a schema only when it is read, and the rebuilt one validates as the published one did', () => {
    const read = readPublishedApi(publishApi(api));
    const request = read.operations[0].request!;
    // Not yet built: the path table reads methods, paths and security only.
    expect(Object.getOwnPropertyDescriptor(request, 'body')).to.have.property('get').that.is.a('function');
    const body = request.body!;
    expect(Joi.isSchema(body)).to.equal(true);
    // Built once: the getter gave way to the schema.
    expect(Object.getOwnPropertyDescriptor(request, 'body')!.value).to.equal(body);
    expect(request.body).to.equal(body);
    expect(body.validate({ name: 'abc' }).error).to.equal(undefined);
    expect(body.validate({ name: 'abcd' }).error?.message).to.equal('"name" length must be less than or equal to 3 characters long');
    expect(read.operations[0].responses[201].schema!.validate({ id: 'not-a-uuid' }).error?.message).to.equal('"id" must be a valid GUID');
  });

  it('publishes the same text again once read back', () => {
    expect(publishApi(readPublishedApi(publishApi(api)))).to.equal(publishApi(api));
  });
});
