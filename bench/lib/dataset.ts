/**
 * The benchmark dataset: a deterministic power-law social graph. Everything is a pure
 * function of (seed, size), so every system and every run loads the same graph.
 *
 * - Nodes 0..N-1, label `User`, properties: uid (i64, = the index), name ("user_<i>"),
 *   age (i64, 18..79), status ("active" 60%, "inactive" 30%, "banned" 10%),
 *   score (f64, 0..1000 with two decimals).
 * - Edges: label `FOLLOWS`, property since (i64, 2010..2025). Sources are uniform; targets
 *   follow a power law (u^3 skews towards low indices, so a few users have huge
 *   in-degrees). No self-loops, no parallel edges.
 * - Optionally (bench/weighted-path.ts alone) a float `weight` per edge: edgeWeight(seed, k)
 *   of the k-th edge. The other benchmarks load no weights.
 */
export interface DatasetSize {
  readonly nodes: number;
  readonly edges: number;
}

export const SIZES = {
  tiny: { nodes: 200, edges: 1_000 },
  small: { nodes: 10_000, edges: 100_000 },
  medium: { nodes: 100_000, edges: 1_000_000 },
  large: { nodes: 1_000_000, edges: 10_000_000 },
} as const satisfies Record<string, DatasetSize>;
export type SizeName = keyof typeof SIZES;

export const DEFAULT_SEED = 20261122;

export interface UserProps {
  readonly uid: number;
  readonly name: string;
  readonly age: number;
  readonly status: 'active' | 'inactive' | 'banned';
  readonly score: number;
}

/** A 32-bit mixing function (splitmix-style): hash(seed, i) -> [0, 1). */
function unit(seed: number, i: number, salt: number): number {
  let h = (seed ^ Math.imul(i + 1, 0x9e3779b1) ^ Math.imul(salt, 0x85ebca6b)) >>> 0;
  h = Math.imul(h ^ (h >>> 16), 0x7feb352d);
  h = Math.imul(h ^ (h >>> 15), 0x846ca68b);
  h ^= h >>> 16;
  return (h >>> 0) / 4294967296;
}

export function userProps(seed: number, i: number): UserProps {
  const s = unit(seed, i, 2);
  return {
    uid: i,
    name: `user_${i}`,
    age: 18 + Math.floor(unit(seed, i, 1) * 62),
    status: s < 0.6 ? 'active' : s < 0.9 ? 'inactive' : 'banned',
    score: Math.round(unit(seed, i, 3) * 100_000) / 100,
  };
}

export interface EdgeList {
  readonly from: Uint32Array;
  readonly to: Uint32Array;
  readonly since: Uint16Array;
}

/** The edge list, deterministic for (seed, size). */
export function generateEdges(seed: number, size: DatasetSize): EdgeList {
  const { nodes: n, edges: m } = size;
  if (n < 2) throw new Error('a graph needs at least 2 nodes');
  if (m > n * (n - 1)) throw new Error('too many edges for a simple graph');
  const from = new Uint32Array(m);
  const to = new Uint32Array(m);
  const since = new Uint16Array(m);
  const seen = new Set<number>();
  let k = 0;
  for (let attempt = 0; k < m; attempt++) {
    const a = Math.floor(unit(seed, attempt, 10) * n);
    let b = Math.floor(Math.pow(unit(seed, attempt, 11), 3) * n);
    if (b === a) b = (b + 1) % n;
    const key = a * n + b;
    if (seen.has(key)) continue;
    seen.add(key);
    from[k] = a;
    to[k] = b;
    since[k] = 2010 + Math.floor(unit(seed, attempt, 12) * 16);
    k++;
  }
  return { from, to, since };
}

/**
 * The weight of the k-th edge, for the weighted-path benchmark: seeded uniform in [1, 10)
 * with three decimals, so its CSV text is short and every reader parses the same double.
 */
export function edgeWeight(seed: number, k: number): number {
  return (1000 + Math.floor(unit(seed, k, 13) * 9000)) / 1000;
}
