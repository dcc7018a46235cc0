/**
 * The few figures the server panel shows, read from Prometheus' text format (GET /metrics)
 * and from two scrapes a few seconds apart. Pure, so the tests run it under Node.
 */

export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

const LINE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\{(.*)\})?\s+(\S+)/;
const LABEL = /([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\]|\\.)*)"/g;

export function parseMetrics(text: string): Sample[] {
  const out: Sample[] = [];
  for (const line of text.split('\n')) {
    if (line === '' || line.startsWith('#')) continue;
    const m = LINE.exec(line);
    if (m === null) continue;
    const labels: Record<string, string> = {};
    for (const l of (m[2] ?? '').matchAll(LABEL)) labels[l[1]!] = l[2]!.replace(/\\(.)/g, '$1');
    const value = m[3] === '+Inf' ? Infinity : m[3] === '-Inf' ? -Infinity : Number(m[3]);
    out.push({ name: m[1]!, labels, value });
  }
  return out;
}

function sum(samples: readonly Sample[], name: string, keep: (l: Readonly<Record<string, string>>) => boolean = () => true): number {
  let total = 0;
  for (const s of samples) if (s.name === name && keep(s.labels)) total += s.value;
  return total;
}

/** The request histogram's buckets summed over routes and statuses: upper bound to cumulative count. */
function buckets(samples: readonly Sample[], prefix: string): Map<number, number> {
  const out = new Map<number, number>();
  for (const s of samples) {
    if (s.name !== `${prefix}_bucket` || s.labels.le === undefined) continue;
    const le = s.labels.le === '+Inf' ? Infinity : Number(s.labels.le);
    out.set(le, (out.get(le) ?? 0) + s.value);
  }
  return out;
}

/** The q-quantile (0..1) of the observations between two histogram snapshots, as the bucket's upper bound. */
export function quantile(before: Map<number, number>, after: Map<number, number>, q: number): number | null {
  const bounds = [...after.keys()].sort((a, b) => a - b);
  const total = (after.get(Infinity) ?? 0) - (before.get(Infinity) ?? 0);
  if (total <= 0) return null;
  for (const le of bounds) {
    if ((after.get(le) ?? 0) - (before.get(le) ?? 0) >= q * total) return le;
  }
  return null;
}

export interface Figures {
  /** Requests per second between the two scrapes. */
  readonly requestsPerSecond: number;
  /** Latency quantiles of those requests, seconds (bucket upper bounds); null when none ran. */
  readonly p50: number | null;
  readonly p99: number | null;
  readonly writerQueue: number | null;
  /** Read requests queued and tasks running, by lane. */
  readonly lanes: { readonly lane: string; readonly queued: number; readonly inFlight: number }[];
}

/**
 * The panel's figures from two scrapes `seconds` apart. `prefix` is the metrics' prefix:
 * `trellis` on a server, `trellis_gateway` through a gateway (whose figures have no lanes).
 */
export function figures(before: readonly Sample[], after: readonly Sample[], seconds: number, prefix: string): Figures {
  const requests = `${prefix}_http_requests_total`;
  const latency = `${prefix}_http_request_duration_seconds`;
  const rate = Math.max(0, sum(after, requests) - sum(before, requests)) / Math.max(seconds, 1e-9);
  const b0 = buckets(before, latency);
  const b1 = buckets(after, latency);
  const hasWriter = after.some((s) => s.name === `${prefix}_writer_queue_depth`);
  const laneNames = [...new Set(after.filter((s) => s.name === `${prefix}_read_queue_depth`).map((s) => s.labels.lane ?? ''))];
  return {
    requestsPerSecond: rate,
    p50: quantile(b0, b1, 0.5),
    p99: quantile(b0, b1, 0.99),
    writerQueue: hasWriter ? sum(after, `${prefix}_writer_queue_depth`) : null,
    lanes: laneNames.map((lane) => ({
      lane,
      queued: sum(after, `${prefix}_read_queue_depth`, (l) => l.lane === lane),
      inFlight: sum(after, `${prefix}_read_tasks_in_flight`, (l) => l.lane === lane),
    })),
  };
}
