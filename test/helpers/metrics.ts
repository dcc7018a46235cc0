/**
 * Reads `GET /metrics` (the Prometheus text format) into samples, so tests can compare a
 * counter before and after what they did.
 */
import assert from 'node:assert/strict';

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

export interface Scrape {
  readonly text: string;
  readonly contentType: string;
  readonly samples: readonly Sample[];
  /** The value of the sample with this name whose labels include these; 0 when there is none. */
  value(name: string, labels?: Record<string, string>): number;
}

const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})? (\S+)$/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): Sample[] {
  const samples: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = SAMPLE.exec(line);
    assert.ok(m, `not a sample line: ${line}`);
    const labels: Record<string, string> = {};
    for (const [, key, value] of (m[2] ?? '').matchAll(LABEL)) labels[key!] = JSON.parse(`"${value}"`) as string;
    samples.push({ name: m[1]!, labels, value: Number(m[3]) });
  }
  return samples;
}

export async function scrape(baseUrl: string): Promise<Scrape> {
  const res = await fetch(`${baseUrl}/metrics`);
  const text = await res.text();
  assert.equal(res.status, 200, text);
  const samples = parseMetrics(text);
  return {
    text,
    contentType: res.headers.get('content-type') ?? '',
    samples,
    value(name, labels = {}) {
      const found = samples.filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v));
      assert.ok(found.length <= 1, `${found.length} samples of ${name} match ${JSON.stringify(labels)}`);
      return found[0]?.value ?? 0;
    },
  };
}

/**
 * How many requests a database server has answered on any route, whatever their status,
 * leaving out the scrapes of /metrics that count them and the health checks (the gateway's
 * tests; a gateway polls its readers' /readyz every 200 ms).
 */
export async function queriesServed(serverUrl: string): Promise<number> {
  const { samples } = await scrape(serverUrl);
  return (
    samples
      // Neither scrapes nor health checks (a gateway polls every reader's /readyz) are queries.
      .filter((s) => s.name === 'trellis_http_requests_total' && !['/metrics', '/readyz', '/healthz'].includes(s.labels.route ?? ''))
      .reduce((sum, s) => sum + s.value, 0)
  );
}
