/**
 * Prometheus metrics (prom-client), shared by the database server and the gateway: each
 * process keeps its own registry and serves it at `GET /metrics` in the text format.
 *
 * Label values stay few on purpose: routes are the fixed paths, with every named query
 * folded into `/<QueryName>` and unknown paths into `other`; codes are the registry's
 * error codes (docs/errors.md), `ok` for a success.
 */
import client from 'prom-client';
import { CollectedHistogram, RouteCounts, type Buckets, type Labels } from './request-counts.js';

export type Counter = client.Counter<string>;
export type Histogram = client.Histogram<string>;
export type Gauge = client.Gauge<string>;

/** Seconds: 100 µs to 30 s, the range between an inline point read and the query budget. */
export const LATENCY_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

export class MetricsRegistry {
  readonly registry = new client.Registry();

  constructor(readonly prefix: string) {
    client.collectDefaultMetrics({ register: this.registry, prefix: `${prefix}_` });
  }

  counter(name: string, help: string, labelNames: readonly string[] = []): Counter {
    return new client.Counter({ name: `${this.prefix}_${name}`, help, labelNames, registers: [this.registry] });
  }

  /**
   * A counter whose totals are kept where its events happen (a plain number in the read
   * pool or the writer client, which may not import this layer) and read at each scrape:
   * counting then costs those places an increment and nothing else. `read` gives the
   * total so far of each label set (`{}` for a counter without labels).
   */
  counterFrom(name: string, help: string, labelNames: readonly string[], read: () => Iterable<readonly [Labels, number]>): Counter {
    return new client.Counter({
      name: `${this.prefix}_${name}`,
      help,
      labelNames,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [labels, total] of read()) this.inc(labels, total);
      },
    });
  }

  gauge(name: string, help: string, labelNames: readonly string[] = [], collect?: (this: Gauge) => void | Promise<void>): Gauge {
    return new client.Gauge({
      name: `${this.prefix}_${name}`,
      help,
      labelNames,
      registers: [this.registry],
      ...(collect ? { collect } : {}),
    });
  }

  histogram(name: string, help: string, labelNames: readonly string[] = [], buckets = LATENCY_BUCKETS): Histogram {
    return new client.Histogram({ name: `${this.prefix}_${name}`, help, labelNames, buckets, registers: [this.registry] });
  }

  /**
   * A histogram whose observations are counted elsewhere, in buckets of these bounds
   * (request-counts.ts), read at each scrape: for observations too frequent for
   * prom-client's per-call cost. `read` gives each label set's buckets.
   */
  histogramFrom(name: string, help: string, bounds: readonly number[], read: () => Iterable<readonly [Labels, Buckets]>): void {
    const histogram = new CollectedHistogram(`${this.prefix}_${name}`, help, bounds, read);
    // Not a prom-client class, but what the registry uses of one (see CollectedHistogram).
    this.registry.registerMetric(histogram as unknown as client.Metric);
  }

  /** The body and content type of `GET /metrics`. */
  async render(): Promise<{ contentType: string; body: string }> {
    return { contentType: this.registry.contentType, body: await this.registry.metrics() };
  }
}

/**
 * Requests by route, status and code, and their latency by route: what both the server
 * and the gateway count for every answer they send. Counted as plain numbers per route
 * (request-counts.ts), since this runs for every answer on the main thread; turned into
 * `<prefix>_http_requests_total` and `<prefix>_http_request_duration_seconds` at scrape.
 */
export class RequestMetrics {
  private readonly routes = new Map<string, RouteCounts>();

  constructor(metrics: MetricsRegistry) {
    metrics.counterFrom('http_requests_total', 'HTTP requests answered, by route, status and error code', ['route', 'status', 'code'], () =>
      this.answers(),
    );
    metrics.histogramFrom('http_request_duration_seconds', 'Time from a complete request to its answer, by route', LATENCY_BUCKETS, () =>
      [...this.routes].map(([route, counts]) => [{ route }, counts] as const),
    );
  }

  observe(route: string, status: number, code: string, seconds: number): void {
    let counts = this.routes.get(route);
    if (counts === undefined) {
      counts = new RouteCounts(LATENCY_BUCKETS);
      this.routes.set(route, counts);
    }
    counts.add(status, code, seconds);
  }

  private *answers(): Iterable<readonly [Labels, number]> {
    for (const [route, counts] of this.routes) {
      for (const [status, code, answers] of counts.totals()) yield [{ route, status: String(status), code }, answers];
    }
  }
}

const CODE_IN_BODY = /^\s*\{\s*"error"\s*:\s*"([a-z0-9_]{1,64})"/;

/** The error code of an answer (`ok` below 400), read from the start of its body. */
export function codeOf(status: number, body: string | Uint8Array): string {
  if (status < 400) return 'ok';
  const head =
    typeof body === 'string'
      ? body.slice(0, 96)
      : Buffer.from(body.buffer, body.byteOffset, Math.min(96, body.byteLength)).toString('latin1');
  return CODE_IN_BODY.exec(head)?.[1] ?? 'unknown';
}
