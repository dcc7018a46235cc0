/**
 * Shared by the search tests: seeded random vectors, exact nearest neighbours by brute
 * force, recall, and a scripted run of index operations checked against a model.
 */
import { distance, type Metric } from '../../src/search/vector-math.js';
import type { Neighbour } from '../../src/search/hnsw.js';
import type { Rng } from '../helpers/prng.js';

/** `n` vectors with components uniform in [-1, 1). */
export function randomVectors(rng: Rng, n: number, dim: number): Float32Array[] {
  const out: Float32Array[] = [];
  for (let i = 0; i < n; i++) {
    const v = new Float32Array(dim);
    for (let j = 0; j < dim; j++) v[j] = rng.float() * 2 - 1;
    out.push(v);
  }
  return out;
}

/** The exact k nearest of `candidates` (id → vector), nearest first, ties by id. */
export function bruteForce(metric: Metric, query: Float32Array, candidates: Iterable<[number, Float32Array]>, k: number): Neighbour[] {
  const all: Neighbour[] = [];
  for (const [id, v] of candidates) all.push({ id, distance: distance(metric, query, v) });
  all.sort((a, b) => a.distance - b.distance || a.id - b.id);
  return all.slice(0, k);
}

/** The share of the exact answers' ids an approximate answer found. */
export function recall(found: readonly Neighbour[], exact: readonly Neighbour[]): number {
  if (exact.length === 0) return 1;
  const want = new Set(exact.map((n) => n.id));
  let hit = 0;
  for (const n of found) if (want.has(n.id)) hit++;
  return hit / exact.length;
}

/** Nearest first, equal distances by ascending id. */
export function isOrdered(found: readonly Neighbour[]): boolean {
  for (let i = 1; i < found.length; i++) {
    const a = found[i - 1]!;
    const b = found[i]!;
    if (a.distance > b.distance || (a.distance === b.distance && a.id >= b.id)) return false;
  }
  return true;
}
