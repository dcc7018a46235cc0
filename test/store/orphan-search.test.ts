/**
 * How a search finds a segment's orphans (src/store/orphan-search.ts): a few by a
 * brute-force pass, exactly the nearest; many through a graph of their own once the
 * segment has served enough searches, with the graph's unreachable members ranked beside it. Either way every orphan is found by its own vector
 * (none is out of reach), no position comes twice, and the nearest ones are found.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { OrphanSearch } from '../../src/store/orphan-search.js';
import type { NativeMetric } from '../../src/store/native-vectors.js';
import { Rng } from '../helpers/prng.js';
import { clusteredVectors } from '../helpers/vectors.js';

const DIM = 16;

function flatOf(vectors: number[][]): Float32Array {
  const flat = new Float32Array(vectors.length * DIM);
  vectors.forEach((v, i) => flat.set(v, i * DIM));
  return flat;
}

/** The native distance of the vector at `position` from `query` (1 - inner product, or squared L2). */
function nativeDistance(flat: Float32Array, position: number, query: ArrayLike<number>, metric: NativeMetric): number {
  let s = 0;
  for (let j = 0; j < DIM; j++) {
    const x = flat[position * DIM + j]!;
    s += metric === 'ip' ? x * query[j]! : (x - query[j]!) ** 2;
  }
  return metric === 'ip' ? 1 - s : s;
}

/** The native distances given beside the positions are theirs (f32 sums in another order: to 1e-5). */
function assertDistances(
  flat: Float32Array,
  query: ArrayLike<number>,
  metric: NativeMetric,
  got: { positions: number[]; distances: number[] },
) {
  assert.equal(got.distances.length, got.positions.length);
  got.positions.forEach((p, i) => {
    const want = nativeDistance(flat, p, query, metric);
    assert.ok(
      Math.abs(got.distances[i]! - want) <= 1e-5 * Math.max(1, Math.abs(want)),
      `position ${p}: ${got.distances[i]} against ${want}`,
    );
  });
}

/** Brute force in the native metric: positions, nearest first (ties by position). */
function bruteForce(flat: Float32Array, query: ArrayLike<number>, metric: NativeMetric, count: number): number[] {
  const n = flat.length / DIM;
  const d: [number, number][] = [];
  for (let i = 0; i < n; i++) d.push([nativeDistance(flat, i, query, metric), i]);
  return d
    .sort((a, b) => a[0] - b[0] || a[1] - b[1])
    .slice(0, count)
    .map(([, i]) => i);
}

/** Cosine indexes give the native index normalised vectors: by inner product, a vector is then its own nearest. */
function normalised(vectors: number[][]): number[][] {
  return vectors.map((v) => {
    const norm = Math.hypot(...v);
    return v.map((x) => Math.fround(x / norm));
  });
}

const shape = (metric: NativeMetric) => ({ dimension: DIM, metric, connectivity: 16, expansionAdd: 128 });

for (const metric of ['ip', 'l2sq'] as const) {
  test(`orphans: a few are ranked by brute force, exactly the nearest (${metric})`, () => {
    const rng = new Rng(31);
    const flat = flatOf(clusteredVectors(rng, 200, DIM));
    const search = new OrphanSearch(flat, shape(metric), true);
    for (let i = 0; i < 1000; i++) search.nearest(flat.subarray(0, DIM), 20);
    assert.equal(search.graphed, false, 'a few orphans never get a graph');
    for (const query of clusteredVectors(rng, 20, DIM)) {
      const ranked = search.nearest(Float32Array.from(query), 20);
      assertDistances(flat, query, metric, ranked);
      const got = ranked.positions;
      const want = bruteForce(flat, query, metric, 20);
      // The native distances are f32 sums in another order: near-ties may swap.
      assert.deepEqual(new Set(got).size, 20);
      assert.ok(
        want.slice(0, 15).every((p) => got.includes(p)),
        `${metric}: ${got} against ${want}`,
      );
    }
  });

  test(`orphans: many get a graph; each is found by its own vector, none twice, and the nearest are found (${metric})`, () => {
    const rng = new Rng(32);
    const drawn = clusteredVectors(rng, 1200, DIM);
    const vectors = metric === 'ip' ? normalised(drawn) : drawn;
    const flat = flatOf(vectors);
    const search = new OrphanSearch(flat, shape(metric), true);
    assert.equal(search.size, 1200);
    // A segment's first 900 searches go by brute force; then each search takes a step of
    // the graph's build (32 orphans added, then 32 checked for reach), still answered by
    // brute force until the graph is whole.
    const steps = 2 * Math.ceil(1200 / 32);
    for (let i = 0; i < 900 + steps - 1; i++) {
      const got = search.nearest(Float32Array.from(vectors[i % 1200]!), 20).positions;
      assert.ok(got.includes(i % 1200), `search ${i}: found by its own vector while the graph is built`);
    }
    assert.equal(search.graphed, false);
    search.nearest(Float32Array.from(vectors[0]!), 20);
    assert.equal(search.graphed, true);
    vectors.forEach((v, i) => {
      const got = search.nearest(Float32Array.from(v), 20).positions;
      assert.equal(new Set(got).size, got.length, `position ${i}: no position twice`);
      assert.ok(got.includes(i), `position ${i} is found by its own vector`);
    });
    let found = 0;
    const queries = metric === 'ip' ? normalised(clusteredVectors(rng, 100, DIM)) : clusteredVectors(rng, 100, DIM);
    for (const query of queries) {
      const ranked = search.nearest(Float32Array.from(query), 20);
      assertDistances(flat, query, metric, ranked);
      const got = new Set(ranked.positions);
      for (const p of bruteForce(flat, query, metric, 10)) if (got.has(p)) found++;
    }
    assert.ok(found / (10 * queries.length) >= 0.95, `recall of the 10 nearest among the 20 found: ${found / (10 * queries.length)}`);
  });
}

test('orphans: an inner product over vectors of any length never gets a graph (its graph would leave about half out of reach)', () => {
  const rng = new Rng(33);
  const vectors = clusteredVectors(rng, 600, DIM);
  const flat = flatOf(vectors);
  const search = new OrphanSearch(flat, shape('ip'), false);
  const queries = clusteredVectors(rng, 20, DIM);
  for (let i = 0; i < 1200; i++) {
    const query = queries[i % 20]!;
    const got = search.nearest(Float32Array.from(query), 20).positions;
    if (i % 100 === 0)
      assert.ok(
        bruteForce(flat, query, 'ip', 15).every((p) => got.includes(p)),
        `search ${i}: the nearest by brute force`,
      );
  }
  assert.equal(search.graphed, false);
});
