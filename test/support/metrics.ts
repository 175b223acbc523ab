/**
 * Reading what a service exposes at /metrics (docs/operations/metrics.md): the Prometheus text format parsed
 * into samples, and the value of one series by name and labels.
 */
import { expect } from 'chai';

export interface Sample {
  name: string;
  labels: Record<string, string>;
  value: number;
}

export class Scrape {
  constructor(
    readonly text: string,
    readonly samples: Sample[],
  ) {}

  /** Every metric family name (from the `# TYPE` lines), in order. */
  families(): string[] {
    return [...this.text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]);
  }

  /** The samples of `name` whose labels include `labels`. */
  find(name: string, labels: Record<string, string> = {}): Sample[] {
    return this.samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
  }

  /** The sum of the values of the samples `find` answers (0 when none). */
  value(name: string, labels: Record<string, string> = {}): number {
    return this.find(name, labels).reduce((sum, s) => sum + s.value, 0);
  }
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)(?: \d+)?$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): Scrape {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    if (!m) throw new Error(`not a Prometheus sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1]] = l[2].replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
    samples.push({ name: m[1], labels, value: Number(m[3]) });
  }
  return new Scrape(text, samples);
}

/** GET `<baseUrl>/metrics` (with the bearer token when given); expects 200 in the text format. */
export async function scrape(baseUrl: string, token?: string): Promise<Scrape> {
  const res = await fetch(`${baseUrl}/metrics`, { headers: token ? { authorization: `Bearer ${token}` } : {} });
  const text = await res.text();
  expect(res.status, `${baseUrl}/metrics: ${text.slice(0, 300)}`).to.equal(200);
  expect(res.headers.get('content-type')).to.match(/^text\/plain; version=0\.0\.4/);
  return parseMetrics(text);
}
