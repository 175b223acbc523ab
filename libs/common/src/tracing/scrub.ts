/**
 * Keeps secrets out of exported spans as the logger keeps them out of log lines (logger.ts, docs/api/conventions.md "Logs"):
 * each span, just before it ends, has every string attribute scrubbed the way a log line is (a URL's secret
 * query parameters, anything shaped like a key, token or channel secret), and the SQL text of a query span has
 * its quoted literals replaced by `'?'`. Sequelize writes many values into the statement text itself
 * (password hashes, key hashes, encrypted channel secrets), which the bound values of instrumentation-pg's own
 * option would not cover. A span whose attribute names a secret (`…password…`, `…token`) loses that value.
 */
import type { AttributeValue, Context } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace-node';
import { REDACTED, isSecretName, redactSecretShapes, scrubUrl } from '../logger';

/** The attributes that hold a statement's text (old and stable semantic conventions). */
const SQL_TEXT_ATTRIBUTES = new Set(['db.statement', 'db.query.text']);

/** Every SQL string literal (`'…'` with `''` escapes, `E'…'` with backslash escapes) becomes `'?'`. */
export function maskSqlLiterals(sql: string): string {
  return sql.replace(/\b[Ee]'(?:[^'\\]|\\.|'')*'/g, "'?'").replace(/'(?:[^']|'')*'/g, "'?'");
}

function scrubText(text: string): string {
  return redactSecretShapes(text.includes('?') ? scrubUrl(text) : text);
}

export function scrubAttribute(name: string, value: AttributeValue): AttributeValue {
  if (isSecretName(name)) return REDACTED;
  // A statement is not a URL: its `?` (a masked literal, an operator) must not be read as a query string.
  if (typeof value === 'string') return SQL_TEXT_ATTRIBUTES.has(name) ? redactSecretShapes(maskSqlLiterals(value)) : scrubText(value);
  if (Array.isArray(value)) return value.map((v) => (typeof v === 'string' ? scrubText(v) : v)) as AttributeValue;
  return value;
}

export class ScrubbingSpanProcessor implements SpanProcessor {
  onStart(_span: Span, _parentContext: Context): void {}

  onEnding(span: Span): void {
    for (const [name, value] of Object.entries(span.attributes)) {
      if (value === undefined) continue;
      const clean = scrubAttribute(name, value);
      if (clean !== value) span.setAttribute(name, clean);
    }
    for (const event of span.events) {
      if (!event.attributes) continue;
      for (const [name, value] of Object.entries(event.attributes)) {
        if (value !== undefined) (event.attributes as Record<string, AttributeValue>)[name] = scrubAttribute(name, value);
      }
    }
  }

  onEnd(_span: ReadableSpan): void {}

  forceFlush(): Promise<void> {
    return Promise.resolve();
  }

  shutdown(): Promise<void> {
    return Promise.resolve();
  }
}
