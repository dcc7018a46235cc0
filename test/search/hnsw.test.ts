/**
 * HNSW over in-memory storage (src/search/hnsw.ts): recall against brute force for each
 * metric, tombstones and `accept` filters, and the structural invariant (hnsw-check.ts)
 * after random interleavings of inserts, tombstones and removes, including removing the
 * entry point, whole neighbourhoods and everything, then inserting again.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { hnswConfig, insert, markDeleted, remove, search, type HnswConfig } from '../../src/search/hnsw.js';
import { hnswProblems } from '../../src/search/hnsw-check.js';
import { distance, METRICS, type Metric } from '../../src/search/vector-math.js';
import { Rng } from '../helpers/prng.js';
import { MapStorage } from './map-storage.js';
import { bruteForce, isOrdered, randomVectors, recall } from './vectors.js';

const seeded = (metric: Metric, seed: number, options: Partial<Omit<HnswConfig, 'metric'>> = {}) => {
  const rng = new Rng(seed);
  return hnswConfig(metric, { random: () => rng.float(), ...options });
};

function assertSound(storage: MapStorage, config: HnswConfig, when: string): void {
  const problems = hnswProblems(storage, config);
  assert.deepEqual(problems.slice(0, 10), [], `${when}: ${problems.length} problems`);
}

function build(metric: Metric, vectors: Float32Array[], seed = 7, copying = false) {
  const storage = new MapStorage(copying);
  const config = seeded(metric, seed);
  vectors.forEach((v, id) => insert(storage, config, id, v));
  return { storage, config };
}

const entriesOf = (vectors: Float32Array[], keep: (id: number) => boolean = () => true): [number, Float32Array][] =>
  vectors.flatMap((v, id): [number, Float32Array][] => (keep(id) ? [[id, v]] : []));

for (const metric of METRICS) {
  test(`${metric}: recall@10 of 2,000 random 32-d vectors is at least 0.95, answers ordered with exact distances`, () => {
    const rng = new Rng(11);
    const vectors = randomVectors(rng, 2000, 32);
    const { storage, config } = build(metric, vectors);
    assertSound(storage, config, 'after the build');
    const all = entriesOf(vectors);
    let total = 0;
    const queries = randomVectors(rng, 100, 32);
    for (const q of queries) {
      const found = search(storage, config, q, 10);
      assert.equal(found.length, 10);
      assert.ok(isOrdered(found), 'nearest first, ties by id');
      for (const n of found) assert.equal(n.distance, distance(metric, q, vectors[n.id]!));
      total += recall(found, bruteForce(metric, q, all, 10));
    }
    assert.ok(total / queries.length >= 0.95, `recall ${total / queries.length}`);
  });
}

test('tombstoned elements are navigated through but never returned', () => {
  const rng = new Rng(12);
  const vectors = randomVectors(rng, 1000, 16);
  const { storage, config } = build('euclidean', vectors);
  const dead = new Set<number>();
  for (let id = 0; id < vectors.length; id++) if (rng.chance(0.4)) dead.add(id);
  for (const id of dead) assert.equal(markDeleted(storage, id), true);
  assert.equal(markDeleted(storage, 5000), false, 'an absent id');
  assertSound(storage, config, 'after tombstoning');
  const alive = entriesOf(vectors, (id) => !dead.has(id));
  let total = 0;
  for (const q of randomVectors(rng, 50, 16)) {
    const found = search(storage, config, q, 10);
    for (const n of found) assert.ok(!dead.has(n.id), `tombstone ${n.id} returned`);
    total += recall(found, bruteForce('euclidean', q, alive, 10));
  }
  assert.ok(total / 50 >= 0.9, `recall over the live elements ${total / 50}`);
  // A query equal to a tombstoned vector does not find it.
  const gone = [...dead][0]!;
  assert.ok(!search(storage, config, vectors[gone]!, 5).some((n) => n.id === gone));
});

test('accept: refused ids are never returned, and the accepted nearest are found', () => {
  const rng = new Rng(13);
  const vectors = randomVectors(rng, 1000, 16);
  const { storage, config } = build('cosine', vectors);
  const accept = (id: number) => id % 3 === 0;
  const accepted = entriesOf(vectors, accept);
  let total = 0;
  for (const q of randomVectors(rng, 50, 16)) {
    const found = search(storage, config, q, 10, 100, accept);
    assert.equal(found.length, 10);
    for (const n of found) assert.ok(accept(n.id), `refused ${n.id} returned`);
    total += recall(found, bruteForce('cosine', q, accepted, 10));
  }
  assert.ok(total / 50 >= 0.9, `recall ${total / 50}`);
  // Nothing accepted: the search visits everything and answers nothing.
  assert.deepEqual(
    search(storage, config, vectors[0]!, 10, 100, () => false),
    [],
  );
});

test('k beyond the live elements returns them all; an empty index and k = 0 return nothing', () => {
  const rng = new Rng(14);
  const storage = new MapStorage(true);
  const config = seeded('manhattan', 14);
  assert.deepEqual(search(storage, config, new Float32Array(4), 5), []);
  const vectors = randomVectors(rng, 20, 4);
  vectors.forEach((v, id) => insert(storage, config, id, v));
  markDeleted(storage, 3);
  const found = search(storage, config, vectors[0]!, 50);
  assert.deepEqual(
    found.map((n) => n.id).sort((a, b) => a - b),
    [...Array(20).keys()].filter((id) => id !== 3),
  );
  assert.deepEqual(search(storage, config, vectors[0]!, 0), []);
});

test('inserting a stored id, a bad id or a vector of another length throws and changes nothing', () => {
  const storage = new MapStorage(true);
  const config = seeded('euclidean', 15);
  insert(storage, config, 1, new Float32Array([1, 2]));
  assert.throws(() => insert(storage, config, 1, new Float32Array([3, 4])), /already in the index/);
  assert.throws(() => insert(storage, config, -1, new Float32Array([3, 4])), /integers in \[0, 2\^53\)/);
  assert.throws(() => insert(storage, config, 2 ** 53, new Float32Array([3, 4])), /integers/);
  assert.throws(() => insert(storage, config, 1.5, new Float32Array([3, 4])), /integers/);
  assert.throws(() => insert(storage, config, 2, new Float32Array([3, 4, 5])), /3 components/);
  assert.throws(() => search(storage, config, new Float32Array([3]), 1), /the query has 1 components/);
  assert.deepEqual([...storage.ids()], [1]);
  insert(storage, config, 2 ** 53 - 1, new Float32Array([3, 4]));
  assert.deepEqual(
    search(storage, config, new Float32Array([3, 4]), 1).map((n) => n.id),
    [2 ** 53 - 1],
  );
  assertSound(storage, config, 'after the refusals');
});

test('equal vectors: ties come out by id and the graph stays sound', () => {
  const storage = new MapStorage(true);
  const config = seeded('cosine', 16, { m: 4, m0: 8, efConstruction: 16 });
  for (let id = 0; id < 60; id++) insert(storage, config, id, new Float32Array([1, id % 2, 0]));
  assertSound(storage, config, 'after the build');
  const found = search(storage, config, new Float32Array([1, 0, 0]), 5, 100);
  assert.deepEqual(
    found.map((n) => n.id),
    [0, 2, 4, 6, 8],
  );
  for (let id = 0; id < 60; id += 2) remove(storage, config, id);
  assertSound(storage, config, 'after removing half');
});

test('the same random source builds the same graph', () => {
  const vectors = randomVectors(new Rng(17), 300, 8);
  const a = build('euclidean', vectors, 99);
  const b = build('euclidean', vectors, 99);
  assert.deepEqual([...a.storage.records.entries()], [...b.storage.records.entries()]);
  assert.deepEqual(a.storage.entry(), b.storage.entry());
});

test('removing the entry point again and again keeps an entry at the greatest level until the index is empty', () => {
  const rng = new Rng(18);
  const vectors = randomVectors(rng, 300, 8);
  const { storage, config } = build('euclidean', vectors, 18, true);
  const left = new Set(vectors.keys());
  while (left.size > 0) {
    const entry = storage.entry();
    assert.ok(entry !== undefined, `${left.size} elements left but no entry point`);
    assert.equal(remove(storage, config, entry.id), true);
    left.delete(entry.id);
    if (left.size % 25 === 0) assertSound(storage, config, `${left.size} left`);
    if (left.size > 0) {
      const q = vectors[[...left][0]!]!;
      assert.equal(search(storage, config, q, 1)[0]?.distance, 0, 'a stored vector finds itself');
    }
  }
  assert.equal(storage.entry(), undefined);
  assert.equal(remove(storage, config, 0), false);
});

test('removing a whole neighbourhood keeps the graph sound and searchable', () => {
  const rng = new Rng(19);
  const vectors = randomVectors(rng, 800, 8);
  const { storage, config } = build('cosine', vectors, 19, true);
  const centre = 123;
  const doomed = new Set([centre, ...storage.get(centre)!.neighbours[0]!, ...storage.get(centre)!.inbound[0]!]);
  for (const id of doomed) remove(storage, config, id);
  assertSound(storage, config, 'after removing the neighbourhood');
  const alive = entriesOf(vectors, (id) => !doomed.has(id));
  const found = search(storage, config, vectors[centre]!, 10);
  for (const n of found) assert.ok(!doomed.has(n.id));
  assert.ok(recall(found, bruteForce('cosine', vectors[centre]!, alive, 10)) >= 0.8);
});

test('removing everything, then inserting again (ids reused, vectors changed)', () => {
  const rng = new Rng(20);
  const config = seeded('manhattan', 20);
  const storage = new MapStorage(true);
  const first = randomVectors(rng, 400, 6);
  first.forEach((v, id) => insert(storage, config, id, v));
  const order = [...first.keys()].sort(() => rng.float() - 0.5);
  for (const id of order) remove(storage, config, id);
  assert.equal(storage.entry(), undefined);
  assert.equal(storage.records.size, 0);
  assertSound(storage, config, 'empty');
  const second = randomVectors(rng, 400, 6);
  second.forEach((v, id) => insert(storage, config, id, v));
  assertSound(storage, config, 'refilled');
  let total = 0;
  for (const q of randomVectors(rng, 30, 6))
    total += recall(search(storage, config, q, 10), bruteForce('manhattan', q, entriesOf(second), 10));
  assert.ok(total / 30 >= 0.95, `recall ${total / 30}`);
});

test('a vector update is remove then insert under the same id', () => {
  const rng = new Rng(21);
  const vectors = randomVectors(rng, 300, 8);
  const { storage, config } = build('euclidean', vectors, 21, true);
  const moved = new Float32Array(8).fill(5);
  for (const id of [0, 17, 299]) {
    remove(storage, config, id);
    insert(
      storage,
      config,
      id,
      moved.map((x) => x + id / 1000),
    );
  }
  assertSound(storage, config, 'after the updates');
  assert.deepEqual(
    search(storage, config, new Float32Array(8).fill(5), 3).map((n) => n.id),
    [0, 17, 299],
  );
});

/** One step of a random run: insert a new id, tombstone or remove a stored one. */
type Step = { op: 'insert' | 'delete' | 'remove'; pick: number; seed: number };

const stepArb: fc.Arbitrary<Step> = fc.record({
  op: fc.constantFrom<Step['op']>('insert', 'insert', 'insert', 'delete', 'remove', 'remove'),
  pick: fc.nat(),
  seed: fc.nat(),
});

/** Few distinct components, so equal vectors and equal distances are common. */
function coarseVector(seed: number, dim: number): Float32Array {
  const rng = new Rng(seed);
  const v = new Float32Array(dim);
  for (let j = 0; j < dim; j++) v[j] = rng.int(5) - 2;
  if (v.every((x) => x === 0)) v[0] = 1;
  return v;
}

test('random interleavings of inserts, tombstones and removes keep the invariant, for every metric', () => {
  fc.assert(
    fc.property(fc.constantFrom(...METRICS), fc.nat(), fc.array(stepArb, { minLength: 1, maxLength: 120 }), (metric, seed, steps) => {
      const storage = new MapStorage(true);
      const config = seeded(metric, seed, { m: 3, m0: 6, efConstruction: 8 });
      const stored = new Map<number, Float32Array>();
      const dead = new Set<number>();
      let next = 0;
      for (const step of steps) {
        const ids = [...stored.keys()];
        if (step.op === 'insert' || ids.length === 0) {
          // Sometimes reuse a removed id, as a vector update does.
          const id = next > 0 && step.pick % 4 === 0 && !stored.has(step.pick % next) ? step.pick % next : next++;
          const v = coarseVector(step.seed, 3);
          insert(storage, config, id, v);
          stored.set(id, v);
          dead.delete(id);
        } else {
          const id = ids[step.pick % ids.length]!;
          if (step.op === 'delete') {
            markDeleted(storage, id);
            dead.add(id);
          } else {
            assert.equal(remove(storage, config, id), true);
            stored.delete(id);
            dead.delete(id);
          }
        }
        const problems = hnswProblems(storage, config);
        if (problems.length > 0) throw new Error(`after ${JSON.stringify(step)}: ${problems.slice(0, 5).join('; ')}`);
      }
      assert.deepEqual(
        [...storage.ids()].sort((a, b) => a - b),
        [...stored.keys()].sort((a, b) => a - b),
      );
      for (const [id, r] of storage.records) assert.equal(r.deleted, dead.has(id));
      // Every answer is a stored, live element at its exact distance.
      const q = coarseVector(seed, 3);
      for (const n of search(storage, config, q, 5, 50)) {
        assert.ok(stored.has(n.id) && !dead.has(n.id));
        assert.equal(n.distance, distance(metric, q, stored.get(n.id)!));
      }
    }),
    { numRuns: 150 },
  );
});
