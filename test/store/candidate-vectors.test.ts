/**
 * A `_within` search's candidates searched exactly over their kept vectors
 * (src/store/candidate-vectors.ts, vector-index.ts): a small set at once, a larger one
 * from its second search on, each answer equal to brute force over the candidates (ids and
 * exact distances) for every native metric; a write moves, deletes or adds a candidate and
 * the next search sees it; what a thread keeps is bounded.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CANDIDATE_VECTOR_BYTES, CandidateVectors, type CandidateMatrix } from '../../src/store/candidate-vectors.js';
import type { Candidates } from '../../src/store/index.js';
import { Rng } from '../helpers/prng.js';
import { q } from '../helpers/embedded.js';
import { tempDir } from '../helpers/server.js';
import { addDoc, addDocs, bruteForce, built, createIndex, openVectorDb, randomVectors, search, type Spec } from '../helpers/vectors.js';

const set = (ids: number[]): Candidates => ({ has: (id) => ids.includes(id), size: ids.length, keys: () => ids });
const matrix = (ids: number[]): CandidateMatrix => {
  const flat = new Float32Array(ids.length * 4);
  return { ids: Float64Array.from(ids), flat, ranked: flat };
};

test("a thread keeps a set's vectors from its second search; a first one made only when asked, never kept; at most 8 sets and the byte budget", () => {
  const kept = new CandidateVectors();
  let made = 0;
  const make = (ids: number[]) => () => (made++, matrix(ids));
  const a = set([1, 2, 3]);
  assert.equal(kept.get(a, 'g', 4, false, make([1, 2, 3])), null, 'a first search walks');
  assert.equal(made, 0);
  const m = kept.get(a, 'g', 4, false, make([1, 2, 3]));
  assert.deepEqual(m && [...m.ids], [1, 2, 3], 'the second search keeps the vectors');
  assert.equal(kept.get(a, 'g', 4, false, make([1, 2, 3])), m, 'and finds them kept');
  assert.equal(made, 1);
  assert.notEqual(kept.get(a, 'another graph', 4, false, make([1])), null, 'each graph has its own; the set counts its searches');
  assert.equal(made, 2);
  // A first search of a small set reads its vectors at once, and keeps them from the second.
  const b = set([4]);
  const once = kept.get(b, 'g', 4, true, make([4]));
  assert.notEqual(once, null, 'made when asked');
  const twice = kept.get(b, 'g', 4, true, make([4]));
  assert.notEqual(twice, once, 'not kept from the first search: made again');
  assert.equal(kept.get(b, 'g', 4, true, make([4])), twice, 'kept from the second');
  assert.equal(made, 4);
  // Sets searched once never push out one that recurs.
  for (let i = 0; i < 20; i++) kept.get(set([100 + i]), 'g', 4, true, make([100 + i]));
  assert.equal(kept.get(a, 'g', 4, false, make([1, 2, 3])), m, 'still kept');
  // Eight more sets searched twice: the least recently used go first.
  for (let i = 0; i < 8; i++) {
    const s = set([200 + i]);
    kept.get(s, 'g', 4, false, make([200 + i]));
    kept.get(s, 'g', 4, false, make([200 + i]));
  }
  made = 0;
  assert.notEqual(kept.get(a, 'g', 4, false, make([1, 2, 3])), m, 'dropped, made again');
  assert.equal(made, 1);
  // A set whose vectors exceed the budget is never read whole.
  const huge: Candidates = { has: () => true, size: CANDIDATE_VECTOR_BYTES / 24 + 1, keys: () => [] };
  assert.equal(kept.get(huge, 'g', 24, true, make([])), null);
  assert.equal(kept.get(huge, 'g', 24, true, make([])), null);
  assert.equal(made, 1);
});

for (const metric of ['cosine', 'euclidean', 'inner_product'] as const) {
  test(`_within over kept vectors (${metric}): equal to brute force over the candidates, and every write seen at once`, async () => {
    const dir = tempDir('trellis-candidate-vectors-');
    const db = await openVectorDb({ path: dir.path });
    try {
      // Uniform 32-d vectors: hard for a graph walk (at a beam of 50 it misses some of the
      // nearest), so only an exact search answers every query as brute force does.
      const spec: Spec = { label: 'Doc', property: 'emb', dimension: 32, metric };
      await createIndex(db, spec);
      const rng = new Rng(metric.length);
      const vectors = randomVectors(rng, 6000, 32).map((v, n) =>
        metric === 'inner_product' ? v.map((x) => Math.fround(x * (1 + (n % 5)))) : v,
      );
      const ids = await addDocs(db, vectors, (n) => [['bucket', { value: { i64: n % 100 } }]], 500);
      await built(db);
      const live = new Map(ids.map((id, n) => [id, vectors[n]!]));
      const bucketOf = new Map(ids.map((id, n) => [id, n % 100]));
      const queries = randomVectors(rng, 8, 32);
      const filter = (below: number) => ({
        nodes_where: { predicate: { lt: { left: { property: 'bucket' }, right: { constant: { i64: below } } } } },
      });
      const chosen = (below: number) => new Map([...live].filter(([id]) => bucketOf.get(id)! < below));
      // 1% (60 candidates: exact at once), 20% (1,200: c^2 over ef x n is 24 at ef 10,
      // exact over kept vectors from the second search; the first walks the graph) and 70%
      // (4,200 at ef 50: c^2 over ef x n is 59, over kept vectors, ranked as i8 first but
      // for euclidean, then exactly).
      for (const [below, ef] of [
        [1, 10],
        [20, 10],
        [70, 50],
      ] as const) {
        search(db, queries[0]!, { k: 10, within: filter(below), ef });
        for (const query of queries) {
          const got = search(db, query, { k: 10, within: filter(below), ef });
          assert.deepEqual(got, bruteForce(metric, chosen(below), query, 10), `${below}%: brute force over the candidates`);
        }
      }
      // Writes: the nearest candidate of each query moves onto the query, the next is
      // deleted, and a new candidate comes in; the next searches see all three.
      for (const query of queries.slice(0, 3)) {
        const [moved, doomed] = search(db, query, { k: 2, within: filter(20), ef: 10 }).map((h) => h.$id);
        const target = metric === 'inner_product' ? query.map((x) => Math.fround(x * 9)) : query;
        const made = await db.write(
          [
            q(null, {
              set_property: { input: { nodes: { reference: { ids: [moved] } } }, name: 'emb', value: { value: { f32_array: target } } },
            }),
            q(null, { drop: { input: { nodes: { reference: { ids: [doomed] } } } } }),
            addDoc(
              'n',
              query.map((x) => Math.fround(x * 0.5)),
              [['bucket', { value: { i64: 3 } }]],
            ),
          ],
          ['n'],
        );
        const added = made.n[0].$id as number;
        live.set(moved!, target);
        live.delete(doomed!);
        live.set(
          added,
          query.map((x) => Math.fround(x * 0.5)),
        );
        bucketOf.set(added, 3);
        // The write changed the columns: a new candidate set, whose first search walks.
        const first = search(db, query, { k: 10, within: filter(20), ef: 10 });
        assert.equal(first[0]!.$id, moved, 'the moved candidate leads');
        assert.ok(!first.some((h) => h.$id === doomed), `deleted ${doomed} is not found`);
        const got = search(db, query, { k: 10, within: filter(20), ef: 10 });
        assert.deepEqual(got, bruteForce(metric, chosen(20), query, 10), 'the moved, deleted and added candidates as written');
      }
      // The builder's new segment is another graph generation: its first search walks again.
      await built(db);
      search(db, queries[0]!, { k: 10, within: filter(20), ef: 10 });
      for (const query of queries)
        assert.deepEqual(search(db, query, { k: 10, within: filter(20), ef: 10 }), bruteForce(metric, chosen(20), query, 10));
    } finally {
      await db.close();
      dir.remove();
    }
  });
}
