/**
 * The native vector engine (src/store/vector-index.ts, vector-builder.ts): every guarantee
 * of issue 31 item 5 that one process can show, each before the builder has caught up (the
 * queue is searched exactly) and after (the segment answers): an acknowledged write is
 * searchable at once, deletes and updates never come back, a rolled-back batch leaves no
 * trace, tenants stay apart, a lost or corrupt segment is searched exactly and rebuilt.
 * Also the metrics, dimensions up to 4,096, the ef knob and `_within` on both paths.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, rmSync, statSync, truncateSync, writeFileSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { GraphError } from '../../src/core/errors.js';
import { Rng } from '../helpers/prng.js';
import { q, rejects400 } from '../helpers/embedded.js';
import { tempDir } from '../helpers/server.js';
import {
  addDoc,
  addDocs,
  bruteForce,
  built,
  clusteredVectors,
  createIndex,
  openVectorDb,
  randomVectors,
  reachChecked,
  recall,
  search,
  searchOp,
  until,
  type Spec,
  type VectorDb,
} from '../helpers/vectors.js';

const COSINE: Spec = { label: 'Doc', property: 'emb', dimension: 16, metric: 'cosine' };

async function withDb(fn: (db: VectorDb, path: string) => Promise<void>, options: { segmentGraceMs?: number } = {}): Promise<void> {
  const dir = tempDir('trellis-vector-engine-');
  const db = await openVectorDb({ path: dir.path, ...options });
  try {
    await fn(db, dir.path);
  } finally {
    await db.close();
    dir.remove();
  }
}

/** Every query's top k equals brute force over `live` (ids and exact distances), with recall at least `min` for ids. */
function assertMatches(db: VectorDb, spec: Spec, live: Map<number, number[]>, queries: number[][], k: number, min = 1): void {
  let sum = 0;
  for (const query of queries) {
    const got = search(db, query, { k, ef: 200 });
    const want = bruteForce(spec.metric, live, query, k);
    for (const hit of got) {
      assert.ok(live.has(hit.$id), `hit ${hit.$id} is not a live element`);
      const exact = bruteForce(spec.metric, new Map([[hit.$id, live.get(hit.$id)!]]), query, 1)[0]!;
      assert.equal(hit.$distance, exact.$distance, `the exact distance of ${hit.$id}`);
    }
    for (let i = 1; i < got.length; i++) assert.ok(got[i]!.$distance >= got[i - 1]!.$distance, 'ascending distances');
    assert.equal(new Set(got.map((h) => h.$id)).size, got.length, 'no element twice (a queued one and its stale segment copy)');
    assert.equal(got.length, Math.min(k, live.size));
    sum += recall(got, want);
  }
  assert.ok(sum / queries.length >= min, `recall ${sum / queries.length} < ${min}`);
}

test('every acknowledged write is searchable at once, and deletes and updates never come back, before and after segments', async () => {
  await withDb(async (db) => {
    await createIndex(db, COSINE);
    const rng = new Rng(31);
    const live = new Map<number, number[]>();
    const queries = clusteredVectors(rng, 10, 16);
    for (let round = 0; round < 4; round++) {
      const vectors = clusteredVectors(rng, 300, 16);
      const ids = await addDocs(db, vectors, () => [], 100);
      ids.forEach((id, i) => live.set(id, vectors[i]!));
      // Straight after the acknowledgement: each new vector is its own nearest, at distance 0.
      for (const [i, id] of ids.entries()) {
        if (i % 10 !== 0) continue;
        assert.deepEqual(search(db, vectors[i]!, { k: 1 })[0], { $id: id, $distance: 0 });
      }
      assertMatches(db, COSINE, live, queries, 10, 0.95);
      await built(db);
      assertMatches(db, COSINE, live, queries, 10, 0.95);
    }
    // Deletes and moves, searched at once and once the builder has caught up.
    const all = [...live.keys()];
    const doomed = all.filter((_, i) => i % 4 === 0);
    const moved = all.filter((_, i) => i % 4 === 1);
    const old = new Map(moved.map((id) => [id, live.get(id)!]));
    const gone = new Map(doomed.map((id) => [id, live.get(id)!]));
    await db.write([q(null, { drop: { input: { nodes: { reference: { ids: doomed } } } } })]);
    for (const id of doomed) live.delete(id);
    const fresh = clusteredVectors(rng, moved.length, 16);
    for (let n = 0; n < moved.length; n += 100) {
      await db.write(
        moved.slice(n, n + 100).map((id, k) =>
          q(null, {
            set_property: { input: { nodes: { reference: { ids: [id] } } }, name: 'emb', value: { value: { f32_array: fresh[n + k] } } },
          }),
        ),
      );
    }
    moved.forEach((id, i) => live.set(id, fresh[i]!));
    const check = () => {
      for (const id of doomed.slice(0, 60)) {
        // A deleted element's own vector finds other elements, never it.
        assert.ok(!search(db, gone.get(id)!, { k: 10 }).some((h) => h.$id === id), `deleted ${id} came back`);
      }
      for (const id of moved.slice(0, 60)) {
        // Its new vector is in (a beam over the whole graph: the default one's recall is checked below).
        assert.deepEqual(search(db, live.get(id)!, { k: 1, ef: 2000 })[0], { $id: id, $distance: 0 });
        const atOld = search(db, old.get(id)!, { k: 10 }).find((h) => h.$id === id);
        if (atOld !== undefined) assert.notEqual(atOld.$distance, 0, 'a moved element is not found at its old vector');
      }
      assertMatches(db, COSINE, live, queries, 10, 0.95);
    };
    check();
    await built(db);
    check();
  });
});

test('a rolled-back batch leaves no trace in any search, queued or built', async () => {
  await withDb(async (db) => {
    await createIndex(db, COSINE);
    const rng = new Rng(7);
    const vectors = clusteredVectors(rng, 400, 16);
    const ids = await addDocs(db, vectors);
    await built(db);
    const backlog = () => db.store.read((r) => r.vectorBacklogs()[0]!.backlog);
    const before = backlog();
    const intruder = clusteredVectors(rng, 1, 16)[0]!;
    // Adds one, moves one, deletes one, then fails on a vector of the wrong dimension: all or nothing.
    await rejects400(
      db.write([
        addDoc(null, intruder),
        q(null, {
          set_property: { input: { nodes: { reference: { ids: [ids[1]] } } }, name: 'emb', value: { value: { f32_array: intruder } } },
        }),
        q(null, { drop: { input: { nodes: { reference: { ids: [ids[2]] } } } } }),
        addDoc(null, [1, 2, 3]),
      ]),
      'invalid_vector_dimension',
      /dimension 16/,
    );
    const look = () => {
      assert.ok(
        search(db, intruder, { k: 3 }).every((h) => h.$distance > 0),
        'the rolled-back vector is nowhere',
      );
      assert.deepEqual(search(db, vectors[1]!, { k: 1 })[0], { $id: ids[1], $distance: 0 });
      assert.deepEqual(search(db, vectors[2]!, { k: 1 })[0], { $id: ids[2], $distance: 0 });
    };
    look();
    assert.deepEqual(backlog(), before, 'nothing was queued');
    await db.write([addDoc(null, clusteredVectors(rng, 1, 16)[0]!)]);
    await built(db);
    look();
  });
});

test('tenants never see each other, queued or built, and an element that changes tenant moves', async () => {
  await withDb(async (db) => {
    const spec: Spec = { ...COSINE, tenant_property: 'tenant' };
    await createIndex(db, spec);
    const rng = new Rng(5);
    const vectors = clusteredVectors(rng, 600, 16, 4);
    const tenantOf = (n: number) => ['a', 'b', 'c'][n % 3]!;
    const ids = await addDocs(db, vectors, (n) => [['tenant', { value: { string: tenantOf(n) } }]]);
    const members = (t: string) => new Set(ids.filter((_, n) => tenantOf(n) === t));
    const check = () => {
      for (const t of ['a', 'b', 'c']) {
        const mine = members(t);
        for (const query of vectors.slice(0, 5)) {
          const hits = search(db, query, { k: 50, tenant: t, ef: 400 });
          assert.equal(hits.length, 50);
          for (const h of hits) assert.ok(mine.has(h.$id), `tenant ${t} sees ${h.$id}`);
        }
      }
      assert.deepEqual(search(db, vectors[0]!, { k: 5, tenant: 'nobody' }), []);
    };
    check();
    await built(db);
    check();
    // ids[0] moves from a to b: found in b at once, never again in a.
    await db.write([
      q(null, { set_property: { input: { nodes: { reference: { ids: [ids[0]] } } }, name: 'tenant', value: { value: { string: 'b' } } } }),
    ]);
    const moved = () => {
      assert.deepEqual(search(db, vectors[0]!, { k: 1, tenant: 'b' })[0], { $id: ids[0], $distance: 0 });
      assert.ok(!search(db, vectors[0]!, { k: 20, tenant: 'a' }).some((h) => h.$id === ids[0]));
    };
    moved();
    await built(db);
    moved();
  });
});

test('a lost or corrupt segment is searched exactly at once and rebuilt from the stored vectors', async () => {
  const dir = tempDir('trellis-vector-lost-');
  try {
    const rng = new Rng(9);
    const vectors = clusteredVectors(rng, 500, 16);
    const queries = clusteredVectors(rng, 8, 16);
    let db = await openVectorDb({ path: dir.path });
    await createIndex(db, COSINE);
    const ids = await addDocs(db, vectors);
    const live = new Map(ids.map((id, i) => [id, vectors[i]!]));
    await built(db);
    await db.close();
    const segments = () => readdirSync(join(dir.path, 'vectors')).filter((n) => n.endsWith('.usearch'));
    for (const damage of ['truncate', 'scramble', 'delete'] as const) {
      const [file] = segments();
      assert.ok(file !== undefined, 'a segment exists');
      const path = join(dir.path, 'vectors', file);
      if (damage === 'truncate') truncateSync(path, 100);
      if (damage === 'delete') rmSync(path);
      if (damage === 'scramble') {
        const bytes = readFileSync(path);
        for (let i = 64; i < bytes.length; i += 7) bytes[i] = bytes[i]! ^ 0x5a;
        writeFileSync(path, bytes);
      }
      db = await openVectorDb({ path: dir.path, segmentGraceMs: 0 });
      // A missing or short file is seen by every search, which ranks the stored vectors
      // exactly meanwhile. A file changed in place is found by the builder's checksum.
      if (damage !== 'scramble') assertMatches(db, COSINE, live, queries, 10, 1);
      await until(() => !segments().includes(file), `the ${damage} segment to be replaced`);
      await built(db);
      assertMatches(db, COSINE, live, queries, 10, 0.95);
      await db.close();
    }
  } finally {
    dir.remove();
  }
});

test('a graph that lost most of its elements is built again, and answers right throughout', async () => {
  await withDb(
    async (db, path) => {
      await createIndex(db, COSINE);
      const rng = new Rng(13);
      const vectors = clusteredVectors(rng, 2400, 16);
      const ids = await addDocs(db, vectors, () => [], 400);
      await built(db);
      const live = new Map(ids.map((id, i) => [id, vectors[i]!]));
      const segmentBytes = () =>
        readdirSync(join(path, 'vectors'))
          .filter((n) => n.endsWith('.usearch'))
          .map((n) => statSync(join(path, 'vectors', n)).size);
      const [before] = segmentBytes();
      // Four in five deleted in one batch: the builder applies them in one step, past the
      // churn bound (deletes in smaller waves leave tombstones until the bound is passed).
      const doomed = ids.filter((_, i) => i % 5 !== 0);
      await db.write([q(null, { drop: { input: { nodes: { reference: { ids: doomed } } } } })]);
      for (const id of doomed) live.delete(id);
      const queries = clusteredVectors(rng, 8, 16);
      assertMatches(db, COSINE, live, queries, 10, 0.95);
      await built(db);
      // Built again: the segment holds the live fifth only, not the deleted slots as tombstones.
      await until(() => segmentBytes().every((size) => size < before! / 2), 'the rebuilt segment');
      assertMatches(db, COSINE, live, queries, 10, 0.95);
    },
    { segmentGraceMs: 0 },
  );
});

test('inner product, euclidean and manhattan report their exact distances; 4,096 dimensions work', async () => {
  await withDb(async (db) => {
    const rng = new Rng(17);
    for (const metric of ['inner_product', 'euclidean', 'manhattan'] as const) {
      const label = `M_${metric}`;
      const spec: Spec = { label, property: 'emb', dimension: 12, metric };
      await createIndex(db, spec);
      const vectors = randomVectors(rng, 300, 12).map((v) => v.map((x) => Math.fround(x * 3)));
      const made = await db.write(
        vectors.map((v, k) => q(`d${k}`, { add_n: { label, properties: [['emb', { value: { f32_array: v } }]] } })),
        vectors.map((_, k) => `d${k}`),
      );
      const live = new Map(vectors.map((v, k) => [made[`d${k}`][0].$id as number, v]));
      await built(db);
      for (const query of randomVectors(rng, 5, 12)) {
        const got = search(db, query, { k: 10, ef: 300, label });
        const want = bruteForce(metric, live, query, 10);
        assert.ok(recall(got, want) >= 0.9, `${metric} recall`);
        for (const hit of got)
          assert.equal(hit.$distance, bruteForce(metric, new Map([[hit.$id, live.get(hit.$id)!]]), query, 1)[0]!.$distance);
      }
    }
    // The inner product is the negated dot product: the largest dot comes first.
    const dot = search(db, [1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0], { k: 1, label: 'M_inner_product' })[0]!;
    assert.ok(dot.$distance < 0);
    await rejects400(
      db.write([q(null, { add_n: { label: 'M_inner_product', properties: [['emb', { value: { f32_array: Array(12).fill(1e19) } }]] } })]),
      'vector_component_magnitude_exceeded',
      /inner_product vector of dimension 12/,
    );
    const wide: Spec = { label: 'Wide', property: 'emb', dimension: 4096, metric: 'cosine' };
    await createIndex(db, wide);
    const big = randomVectors(rng, 40, 4096);
    const made = await db.write(
      big.map((v, k) => q(`d${k}`, { add_n: { label: 'Wide', properties: [['emb', { value: { f32_array: v } }]] } })),
      big.map((_, k) => `d${k}`),
    );
    await built(db);
    assert.deepEqual(search(db, big[7]!, { k: 1, label: 'Wide' })[0], { $id: made.d7[0].$id, $distance: 0 });
  });
});

test("cosine near-ties finer than the segment's f16 components: the k nearest by exact distance, in order", async () => {
  await withDb(async (db) => {
    await createIndex(db, COSINE);
    const rng = new Rng(23);
    // 40 elements at cosine distances from e1 about 2.6e-5 apart (angle tangents 0.3 to
    // 0.304), far below what f16 components resolve, in a shuffled order; beside them 200
    // clustered ones. The native ranking scrambles the 40; only the exact re-rank, read up
    // to the metric's error past the k-th, orders them.
    const ties = Array.from({ length: 40 }, (_, j) => {
      const v = Array.from({ length: 16 }, () => (rng.float() - 0.5) * 1e-3);
      v[0] = 1;
      v[1 + (j % 15)] = 0.3 + j * 4e-4;
      return v;
    });
    for (let i = ties.length - 1; i > 0; i--) {
      const j = rng.int(i + 1);
      [ties[i], ties[j]] = [ties[j]!, ties[i]!];
    }
    const others = clusteredVectors(rng, 200, 16);
    const vectors = [...ties, ...others];
    const ids = await addDocs(db, vectors, () => [], 80);
    const live = new Map(ids.map((id, i) => [id, vectors[i]!]));
    await built(db);
    const query = [1, ...Array(15).fill(0)];
    for (const k of [1, 5, 10, 20]) {
      const got = search(db, query, { k, ef: 240 });
      assert.deepEqual(got, bruteForce('cosine', live, query, k), `k ${k}`);
    }
  });
});

test('copies of one vector, more than the hits a search ranks again, come by id: the k with the least ids', async () => {
  await withDb(async (db) => {
    await createIndex(db, COSINE);
    const rng = new Rng(29);
    // 12 copies (each still among the 16 nearest of its own vector when added: no
    // orphans) in 212 vectors, shuffled, so that their ids are spread; k 1 to 3 ranks
    // again 2 to 6 native hits, fewer than the ties, which come in any order.
    const base = [1, ...Array<number>(15).fill(0)];
    const vectors = [...Array.from({ length: 12 }, () => [...base]), ...clusteredVectors(rng, 200, 16)];
    for (let i = vectors.length - 1; i > 0; i--) {
      const j = rng.int(i + 1);
      [vectors[i], vectors[j]] = [vectors[j]!, vectors[i]!];
    }
    const ids = await addDocs(db, vectors, () => [], 50);
    const live = new Map(ids.map((id, i) => [id, vectors[i]!]));
    await built(db);
    await reachChecked(db);
    for (const k of [1, 2, 3, 12]) assert.deepEqual(search(db, base, { k, ef: 64 }), bruteForce('cosine', live, base, k), `k ${k}`);
  });
});

test('ef: per search and as the index default, validated on the wire and when it runs', async () => {
  await withDb(async (db) => {
    const spec: Spec = { ...COSINE, ef_search: 400 };
    await createIndex(db, spec);
    const rng = new Rng(21);
    const vectors = clusteredVectors(rng, 1500, 16, 8);
    const ids = await addDocs(db, vectors);
    const live = new Map(ids.map((id, i) => [id, vectors[i]!]));
    await built(db);
    const queries = clusteredVectors(rng, 10, 16, 8);
    // With the index's ef of 400 (and a search's own ef of 1,500, the whole graph) the answers are exact.
    let sum = 0;
    for (const query of queries) sum += recall(search(db, query, { k: 10 }), bruteForce('cosine', live, query, 10));
    assert.ok(sum / queries.length >= 0.99, `recall ${sum / queries.length} at the index's ef`);
    for (const query of queries) assert.deepEqual(search(db, query, { k: 10, ef: 1500 }), bruteForce('cosine', live, query, 10));
    const v = vectors[0]!;
    const op = (ef: unknown) => ({ ...(searchOp(v, { k: 5 }) as { vector_search_nodes: object }).vector_search_nodes, ef });
    await rejects400(
      Promise.resolve().then(() => db.read([q('x', { vector_search_nodes: op({ literal: 0 }) })], ['x'])),
      'invalid_query_json',
      /\.ef\b.*from 1 to 10000/,
    );
    await rejects400(
      Promise.resolve().then(() => db.read([q('x', { vector_search_nodes: op({ literal: 10_001 }) })], ['x'])),
      'invalid_query_json',
      /\.ef/,
    );
    await rejects400(
      Promise.resolve().then(() => db.read([q('x', { vector_search_nodes: op(5) })], ['x'])),
      'invalid_query_json',
      /\.ef/,
    );
    const byParam = { vector_search_nodes: op({ expr: { param: 'ef' } }) };
    assert.equal((db.read([q('x', byParam)], ['x'], { ef: 50 }).x as unknown[]).length, 5);
    assert.throws(
      () => db.read([q('x', byParam)], ['x'], { ef: 0 }),
      (err: unknown) => err instanceof GraphError && err.code === 'invalid_query' && /ef must be an integer from 1 to 10000/.test(err.msg),
    );
    await rejects400(
      db.write([
        q('r', { create_index: { spec: { node_vector: { label: 'X', property: 'e', dimension: 4, metric: 'cosine', ef_search: 0 } } } }),
      ]),
      'invalid_query_json',
      /ef_search: ef must be between 1 and 10000/,
    );
  });
});

test('_within: small candidate sets ranked exactly, large ones over-fetched from the segment, both equal to brute force over the candidates', async () => {
  await withDb(async (db) => {
    await createIndex(db, COSINE);
    const rng = new Rng(23);
    const vectors = clusteredVectors(rng, 6000, 16, 8);
    const ids = await addDocs(db, vectors, (n) => [['bucket', { value: { i64: n % 100 } }]], 500);
    await built(db);
    const queries = clusteredVectors(rng, 6, 16, 8);
    // 1% (60 candidates: exact) and 60% (3,600: over-fetched from the segment).
    for (const [share, filter] of [
      [0.01, { eq: { left: { property: 'bucket' }, right: { constant: { i64: 7 } } } }],
      [0.6, { lt: { left: { property: 'bucket' }, right: { constant: { i64: 60 } } } }],
    ] as const) {
      const within = { nodes_where: { predicate: filter } };
      const chosen = new Map(
        ids.flatMap((id, n) => ((n % 100 < 60 && share === 0.6) || (n % 100 === 7 && share === 0.01) ? [[id, vectors[n]!]] : [])),
      );
      let sum = 0;
      for (const query of queries) {
        const got = search(db, query, { k: 10, within, ef: 200 });
        for (const h of got) assert.ok(chosen.has(h.$id), `hit ${h.$id} is a candidate`);
        sum += recall(got, bruteForce('cosine', chosen as Map<number, number[]>, query, 10));
      }
      assert.ok(sum / queries.length >= 0.95, `recall ${sum / queries.length} at ${share * 100}%`);
    }
    // Queued over the segment: each query's nearest bucket-7 candidates move onto the query
    // itself (their segment copies are stale), one more is deleted, and a new one comes in;
    // searched at once, both paths answer from the queue, each element once.
    for (const query of queries.slice(0, 3)) {
      const near = search(db, query, {
        k: 3,
        within: { nodes_where: { predicate: { eq: { left: { property: 'bucket' }, right: { constant: { i64: 7 } } } } } },
      });
      const [moved, , doomed] = near.map((h) => h.$id);
      const made = await db.write(
        [
          q(null, {
            set_property: { input: { nodes: { reference: { ids: [moved] } } }, name: 'emb', value: { value: { f32_array: query } } },
          }),
          q(null, { drop: { input: { nodes: { reference: { ids: [doomed] } } } } }),
          addDoc(
            'n',
            query.map((x) => Math.fround(x * 2)),
            [['bucket', { value: { i64: 7 } }]],
          ),
        ],
        ['n'],
      );
      const added = made.n[0].$id as number;
      for (const filter of [
        { eq: { left: { property: 'bucket' }, right: { constant: { i64: 7 } } } },
        { lt: { left: { property: 'bucket' }, right: { constant: { i64: 60 } } } },
      ]) {
        const got = search(db, query, { k: 10, within: { nodes_where: { predicate: filter } }, ef: 200 });
        assert.equal(new Set(got.map((h) => h.$id)).size, got.length, 'no element twice');
        assert.ok(!got.some((h) => h.$id === doomed), `deleted ${doomed} is not found`);
        // The moved one and the new one (the query scaled: cosine distance 0) lead.
        assert.deepEqual(new Set(got.slice(0, 2).map((h) => h.$id)), new Set([moved, added]));
        assert.ok(got.slice(0, 2).every((h) => Math.abs(h.$distance) < 1e-6));
      }
    }
  });
});
