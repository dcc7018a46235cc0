/** Small statistics helpers shared by the benches: nearest-rank percentiles and medians. */

/** Nearest-rank percentile (p in 0..100) of an already sorted list. */
export function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  const rank = Math.max(1, Math.ceil((p / 100) * sorted.length));
  return sorted[Math.min(sorted.length, rank) - 1]!;
}

export function median(values: readonly number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
}

/** Rounds for printing: figures are noisy, so more digits would only suggest false precision. */
export function round(value: number, digits = 1): number {
  const f = 10 ** digits;
  return Math.round(value * f) / f;
}

/**
 * Combines repeated runs of one scenario: every numeric field becomes the median across
 * runs, except counters listed in `summed` (errors must add up, not be averaged away).
 */
export function medianOfRuns<T extends Record<string, number>>(runs: readonly T[], summed: readonly (keyof T)[] = []): T {
  const first = runs[0];
  if (first === undefined) throw new Error('no runs to combine');
  const out: Record<string, number> = {};
  for (const key of Object.keys(first)) {
    const values = runs.map((r) => r[key]!);
    out[key] = summed.includes(key) ? values.reduce((a, b) => a + b, 0) : median(values);
  }
  return out as T;
}

/**
 * A distribution-free confidence interval for the median (about 95% with the default z):
 * the order statistics at ranks (n - z√n)/2 and 1 + (n + z√n)/2, so a figure drawn from
 * noisy rounds comes with how far its median could be from the machine's true one.
 * Fewer than 6 values give no interval: [NaN, NaN].
 */
export function medianInterval(values: readonly number[], z = 1.96): [number, number] {
  const n = values.length;
  if (n < 6) return [Number.NaN, Number.NaN];
  const sorted = [...values].sort((a, b) => a - b);
  const lower = Math.max(1, Math.floor((n - z * Math.sqrt(n)) / 2));
  const upper = Math.min(n, Math.ceil(1 + (n + z * Math.sqrt(n)) / 2));
  return [sorted[lower - 1]!, sorted[upper - 1]!];
}

/** Least-squares slope of y over x (0 with fewer than two points). */
export function slope(points: readonly [number, number][]): number {
  const n = points.length;
  if (n < 2) return 0;
  const mx = points.reduce((a, [x]) => a + x, 0) / n;
  const my = points.reduce((a, [, y]) => a + y, 0) / n;
  let num = 0;
  let den = 0;
  for (const [x, y] of points) {
    num += (x - mx) * (y - my);
    den += (x - mx) ** 2;
  }
  return den === 0 ? 0 : num / den;
}
