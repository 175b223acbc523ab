import { expect } from 'chai';
import { childEnvironment, childSpecs } from '../src/standalone/services';

describe('npm start and tracing', () => {
  it('hands every service the OTEL_* settings, but not one OTEL_SERVICE_NAME for all five (each names itself)', () => {
    const base = {
      OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318',
      OTEL_TRACES_SAMPLER: 'parentbased_traceidratio',
      OTEL_SERVICE_NAME: 'inventory-system',
    };
    const env = childEnvironment(base, childSpecs({}), 'postgres://u@127.0.0.1:5432/db', {});
    expect(env).to.include({ OTEL_EXPORTER_OTLP_ENDPOINT: 'http://127.0.0.1:4318', OTEL_TRACES_SAMPLER: 'parentbased_traceidratio' });
    expect(env).to.not.have.property('OTEL_SERVICE_NAME');
  });
});
