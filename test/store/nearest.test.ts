/**
 * How a search keeps its k nearest and offers a segment's orphans (src/store/nearest.ts),
 * over a real OrphanSearch (usearch's brute-force pass): each orphan is offered once,
 * however often the count widens, and a group of ties larger than the count is ranked
 * whole, so that equal distances go by id.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Nearest, offerOrphans, type OrphanQuery } from '../../src/store/nearest.js';
import { OrphanSearch } from '../../src/store/orphan-search.js';
import { distanceFrom } from '../../src/search/vector-math.js';
import { Rng } from '../helpers/prng.js';
import { clusteredVectors } from '../helpers/vectors.js';

const DIM = 16;
const RERANK = 2;
/** Cosine's bound of an exact distance by a native one (vector-index.ts EXACT_AT_LEAST). */
const COSINE_AT_LEAST = (native: number) => (native - 1.25e-3) / 2;

const unit = (v: number[]): Float32Array => {
  const n = Math.hypot(...v);
  return Float32Array.from(v, (x) => x / n);
};

/**
 * Orphans with their vectors as stored and in the native space (unit, for `ip`); the ids
 * (1000 and up) in an order of their own, as a segment's side file holds them ascending
 * but a brute-force pass returns equal distances in any order.
 */
function orphanSet(vectors: number[][], ids = idsOf(vectors.length)) {
  const stored = vectors.map((v) => Float32Array.from(v));
  const flat = new Float32Array(vectors.length * DIM);
  stored.forEach((v, i) => flat.set(unit([...v]), i * DIM));
  const search = new OrphanSearch(flat, { dimension: DIM, metric: 'ip', connectivity: 16, expansionAdd: 64 }, true);
  return { search, ids, vectors: stored };
}

/** Ids 1000 to 1000 + n - 1, descending by position: the last position holds the least id. */
const idsOf = (n: number): Float64Array => Float64Array.from({ length: n }, (_, i) => 1000 + n - 1 - i);

function query(v: number[], k: number, accept: (id: number) => boolean, selectivity = 1): OrphanQuery {
  return { query: unit(v), k, selectivity, exact: distanceFrom('cosine', Float32Array.from(v)), accept, atLeast: COSINE_AT_LEAST };
}

/** The exact k nearest of `vectors` (with the ids of idsOf) that `accept` keeps, ties by id. */
function bruteForce(vectors: number[][], v: number[], k: number, accept: (id: number) => boolean) {
  const exact = distanceFrom('cosine', Float32Array.from(v));
  const ids = idsOf(vectors.length);
  return vectors
    .map((x, i) => ({ id: ids[i]!, distance: exact(Float32Array.from(x)) }))
    .filter((h) => accept(h.id))
    .sort((a, b) => a.distance - b.distance || a.id - b.id)
    .slice(0, k);
}

test('a wider round finds the earlier orphans again: each is offered once', () => {
  const vectors = clusteredVectors(new Rng(5), 300, DIM, 4);
  const orphans = orphanSet(vectors);
  // Every 40th passes: the first round (count 20 of 300) finds too few, and the count widens.
  const accept = (id: number) => (id - 1000) % 40 === 0;
  for (const [n, v] of vectors.slice(0, 20).entries()) {
    const nearest = new Nearest(10);
    offerOrphans(orphans, query(v, 10, accept), RERANK, nearest);
    const hits = nearest.hits();
    assert.equal(new Set(hits.map((h) => h.id)).size, hits.length, `query ${n}: an orphan twice in ${JSON.stringify(hits)}`);
    assert.deepEqual(hits, bruteForce(vectors, v, 10, accept), `query ${n}`);
  }
});

test('copies of one vector beyond the count are ranked whole: equal distances by id', () => {
  const rng = new Rng(9);
  const base = [1, ...Array<number>(DIM - 1).fill(0)];
  // 100 copies among 200 others, shuffled: k 1 asks for 2 (RERANK), far fewer than the ties.
  const vectors = [...Array.from({ length: 100 }, () => [...base]), ...clusteredVectors(rng, 200, DIM, 4)];
  for (let i = vectors.length - 1; i > 0; i--) {
    const j = rng.int(i + 1);
    [vectors[i], vectors[j]] = [vectors[j]!, vectors[i]!];
  }
  const orphans = orphanSet(vectors);
  const all = () => true;
  for (const k of [1, 3, 10, 99, 100, 101]) {
    const nearest = new Nearest(k);
    offerOrphans(orphans, query(base, k, all), RERANK, nearest);
    assert.deepEqual(nearest.hits(), bruteForce(vectors, base, k, all), `k ${k}`);
  }
});

test('graph hits offered first set the bar: an orphan that cannot rank is not offered, one that ties in below the kept id is', () => {
  const base = [1, ...Array<number>(DIM - 1).fill(0)];
  const far = [0, 1, ...Array<number>(DIM - 2).fill(0)];
  const orphans = orphanSet([base, far, [...base]], Float64Array.of(1000, 1001, 1002));
  const read: number[] = [];
  const nearest = new Nearest(2);
  nearest.offer(5000, 0); // a graph hit at distance 0, with a higher id than the orphans
  nearest.offer(5001, 0);
  const q = query(base, 2, () => true);
  offerOrphans(orphans, { ...q, exact: (v) => (read.push(v[1]!), q.exact(v)) }, RERANK, nearest);
  assert.deepEqual(
    nearest.hits().map((h) => h.id),
    [1000, 1002],
    'the copies of the query tie at 0 and come before the hits of higher ids',
  );
  assert.deepEqual(read, [0, 0], 'the far orphan (its bound above the bar) is never read');
});
