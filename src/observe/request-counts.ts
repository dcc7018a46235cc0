/**
 * Counts of answers kept as plain numbers (RequestMetrics): an answer costs two Map
 * lookups, a scan of the bucket bounds and a few increments, and allocates nothing.
 * prom-client's own counter and histogram build a string key from the labels and check
 * them on every call, about 0.5 µs a pair in a loop and a few µs of a point read's
 * latency on a busy main thread (docs/benchmarks.md, "Observability"); these numbers
 * become the text format only when /metrics is scraped.
 */
import type client from 'prom-client';

export type Labels = client.LabelValues<string>;

/** Observations of one label set: per bucket (the last is +Inf, not cumulative), their sum and count. */
export interface Buckets {
  readonly counts: Float64Array;
  readonly sum: number;
  readonly count: number;
}

/** The answers of one route: by status and code, and their latency in buckets. */
export class RouteCounts implements Buckets {
  /** status -> code -> answers. */
  private readonly answers = new Map<number, Map<string, number>>();
  readonly counts: Float64Array;
  sum = 0;
  count = 0;

  constructor(private readonly bounds: readonly number[]) {
    this.counts = new Float64Array(bounds.length + 1);
  }

  add(status: number, code: string, seconds: number): void {
    let byCode = this.answers.get(status);
    if (byCode === undefined) {
      byCode = new Map();
      this.answers.set(status, byCode);
    }
    byCode.set(code, (byCode.get(code) ?? 0) + 1);
    const bounds = this.bounds;
    let i = 0;
    while (i < bounds.length && seconds > bounds[i]!) i++;
    this.counts[i]!++;
    this.sum += seconds;
    this.count++;
  }

  /** Every status and code seen, with its total. */
  *totals(): Iterable<readonly [status: number, code: string, answers: number]> {
    for (const [status, byCode] of this.answers) for (const [code, answers] of byCode) yield [status, code, answers];
  }
}

/** One line of the text format: `name{labels} value`, `metricName` when it is not the metric's own name. */
interface Sample {
  readonly labels: Labels;
  readonly value: number;
  readonly metricName: string;
}

/**
 * A histogram in the registry whose observations are counted elsewhere (`read` gives each
 * label set's buckets at scrape time), with the text output of a prom-client Histogram.
 * prom-client has no histogram that takes counts, but its registry asks a metric only
 * for `get()` and reads `name`, `help`, `type` and `aggregator` (and calls `reset()` in
 * resetMetrics, which here leaves counts that belong to their owner alone).
 */
export class CollectedHistogram {
  readonly type = 'histogram';
  readonly aggregator = 'sum';

  constructor(
    readonly name: string,
    readonly help: string,
    private readonly bounds: readonly number[],
    private readonly read: () => Iterable<readonly [Labels, Buckets]>,
  ) {}

  get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: Sample[] }> {
    const values: Sample[] = [];
    const bucket = `${this.name}_bucket`;
    for (const [labels, { counts, sum, count }] of this.read()) {
      let below = 0;
      this.bounds.forEach((le, i) => {
        below += counts[i]!;
        values.push({ labels: { le, ...labels }, value: below, metricName: bucket });
      });
      values.push({ labels: { le: '+Inf', ...labels }, value: count, metricName: bucket });
      values.push({ labels, value: sum, metricName: `${this.name}_sum` });
      values.push({ labels, value: count, metricName: `${this.name}_count` });
    }
    return Promise.resolve({ name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values });
  }

  reset(): void {}
}
