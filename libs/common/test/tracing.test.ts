import { expect } from 'chai';
import { ConfigError } from '../src';
import { currentTraceCarrier, traceLogFields, tracingEnabled, tracingSettingsFrom, withSpan, withoutTracePropagation } from '../src/tracing';
import { maskSqlLiterals, scrubAttribute } from '../src/tracing/scrub';

describe('tracing settings (OTEL_* variables)', () => {
  const ENDPOINT = 'http://127.0.0.1:4318';

  it('are off without any OTEL_* variable, and with a service name alone', () => {
    expect(tracingSettingsFrom({}, 'gateway')).to.deep.equal({ enabled: false });
    expect(tracingSettingsFrom({ OTEL_SERVICE_NAME: 'edge' }, 'gateway')).to.deep.equal({ enabled: false });
  });

  it('turn on with an OTLP endpoint (general or for traces) or a named exporter', () => {
    expect(tracingSettingsFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT }, 'gateway')).to.deep.equal({
      enabled: true,
      exporter: 'otlp',
      serviceName: 'pi-gateway',
    });
    expect(tracingSettingsFrom({ OTEL_EXPORTER_OTLP_TRACES_ENDPOINT: `${ENDPOINT}/v1/traces` }, 'qr')).to.include({ enabled: true, exporter: 'otlp' });
    expect(tracingSettingsFrom({ OTEL_TRACES_EXPORTER: 'console' }, 'inventory')).to.include({ enabled: true, exporter: 'console' });
    expect(tracingSettingsFrom({ OTEL_TRACES_EXPORTER: 'otlp' }, 'inventory')).to.include({ enabled: true, exporter: 'otlp' });
  });

  it('take OTEL_SERVICE_NAME as the service name when set', () => {
    expect(tracingSettingsFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SERVICE_NAME: 'edge-gateway' }, 'gateway')).to.include({
      serviceName: 'edge-gateway',
    });
  });

  it('stay off when OTEL_SDK_DISABLED is true or the exporter is none, whatever else is set', () => {
    expect(tracingSettingsFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_SDK_DISABLED: 'true' }, 'gateway')).to.deep.equal({ enabled: false });
    expect(tracingSettingsFrom({ OTEL_TRACES_EXPORTER: 'console', OTEL_SDK_DISABLED: 'TRUE' }, 'gateway')).to.deep.equal({ enabled: false });
    expect(tracingSettingsFrom({ OTEL_EXPORTER_OTLP_ENDPOINT: ENDPOINT, OTEL_TRACES_EXPORTER: 'none' }, 'gateway')).to.deep.equal({ enabled: false });
  });

  it('name every bad variable at once', () => {
    let error: unknown;
    try {
      tracingSettingsFrom(
        { OTEL_TRACES_EXPORTER: 'zipkin', OTEL_EXPORTER_OTLP_ENDPOINT: 'collector:4318', OTEL_EXPORTER_OTLP_TRACES_PROTOCOL: 'grpc' },
        'gateway',
      );
    } catch (err) {
      error = err;
    }
    expect(error).to.be.instanceOf(ConfigError);
    const message = (error as ConfigError).message;
    for (const name of ['OTEL_TRACES_EXPORTER', 'OTEL_EXPORTER_OTLP_ENDPOINT', 'OTEL_EXPORTER_OTLP_TRACES_PROTOCOL']) expect(message).to.include(name);
  });
});

describe('tracing helpers while tracing is off', () => {
  it('run the work as is, record nothing and carry no trace context', async () => {
    expect(tracingEnabled()).to.equal(false);
    let handle: unknown;
    const result = await withSpan('work', { kind: 'consumer', parent: { traceparent: `00-${'a'.repeat(32)}-${'b'.repeat(16)}-01` } }, (span) => {
      span.setAttributes({ anything: 1 });
      handle = span;
      return Promise.resolve(42);
    });
    expect(result).to.equal(42);
    expect(handle).to.have.property('setAttributes');
    expect(currentTraceCarrier()).to.deep.equal({});
    expect(traceLogFields()).to.deep.equal({});
    expect(withoutTracePropagation(() => 'sent')).to.equal('sent');
  });

  it('let an error of the work through', async () => {
    let caught: unknown;
    await withSpan('failing', {}, () => Promise.reject(new Error('boom'))).catch((err) => (caught = err));
    expect((caught as Error).message).to.equal('boom');
  });
});

describe('span scrubbing', () => {
  it('masks every SQL literal, with escapes, and keeps the rest of the statement', () => {
    expect(maskSqlLiterals(`UPDATE "users" SET "password_hash"='scrypt$16$ab''cd' WHERE "id" = '5' AND n = 3`)).to.equal(
      `UPDATE "users" SET "password_hash"='?' WHERE "id" = '?' AND n = 3`,
    );
    expect(maskSqlLiterals(`SELECT E'it\\'s' , $1`)).to.equal(`SELECT '?' , $1`);
    expect(maskSqlLiterals('SELECT id FROM api_keys WHERE key_hash = $1')).to.equal('SELECT id FROM api_keys WHERE key_hash = $1');
  });

  it('scrubs secret query parameters, secret-shaped values and secret-named attributes', () => {
    expect(scrubAttribute('url.full', 'http://127.0.0.1:8000/api/v1/widget/?api_key=pik_abc123&x=1')).to.equal(
      'http://127.0.0.1:8000/api/v1/widget/?api_key=[redacted]&x=1',
    );
    expect(scrubAttribute('url.query', 'token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.sig')).to.not.include('eyJ');
    expect(scrubAttribute('exception.message', 'bad key pik_secretvalue')).to.equal('bad key [redacted]');
    expect(scrubAttribute('db.query.text', "SELECT 1 WHERE secret = 'whsec_abc'")).to.equal("SELECT 1 WHERE secret = '?'");
    // A statement is never read as a URL, whatever follows its first `?`.
    expect(scrubAttribute('db.query.text', "SELECT data ? 'k' AND password = $1 FROM t")).to.equal("SELECT data ? '?' AND password = $1 FROM t");
    expect(scrubAttribute('http.request.header.authorization', ['Bearer abc'])).to.equal('[redacted]');
    expect(scrubAttribute('http.response.status_code', 200)).to.equal(200);
    expect(scrubAttribute('http.route', '/api/v1/locations/:id/')).to.equal('/api/v1/locations/:id/');
  });
});
