/**
 * The copy of each indexed vector a graph keeps (vector-queue.ts): written and deleted in
 * the transactions that queue its links and unlinks, so it is exactly the vectors the graph
 * holds, rolled back with them and deleted with the index; searches rank from it. A graph
 * of an older database keeps none: its searches read the stored elements, exact and never
 * stale, while the writer's background steps fill its copies. A reader thread's searches in successive snapshots reuse the
 * queue it decoded, and see every entry queued between them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { isDeepStrictEqual } from 'node:util';
import { open } from 'lmdb';
import { VectorQueue } from '../../src/store/vector-queue.js';
import { Rng } from '../helpers/prng.js';
import { q, rejects400 } from '../helpers/embedded.js';
import { tempDir } from '../helpers/server.js';
import { startSteppedReader } from '../helpers/stepped-reader.js';
import {
  addDoc,
  addDocs,
  bruteForce,
  built,
  clusteredVectors,
  createIndex,
  openVectorDb,
  search,
  until,
  type Spec,
  type VectorDb,
} from '../helpers/vectors.js';

const COSINE: Spec = { label: 'Doc', property: 'emb', dimension: 16, metric: 'cosine' };

/** Runs `fn` on the folder's raw `vector_queue` (with the store closed: one process opens an environment once). */
async function withQueue<T>(path: string, fn: (queue: VectorQueue) => T, readOnly = true): Promise<T> {
  const env = open({ path, noSubdir: false, maxDbs: 128, readOnly });
  try {
    const queue = new VectorQueue(env.openDB<Buffer, Buffer>('vector_queue', { encoding: 'binary', keyEncoding: 'binary' }));
    return readOnly ? fn(queue) : await env.transaction(() => fn(queue));
  } finally {
    await env.close();
  }
}

/** Takes a graph's copies and mark away, as a database written before the copies has none. */
function stripCopies(queue: VectorQueue, graph: number): void {
  for (const { id } of [...queue.copies(graph, 16)]) queue.removeCopy(graph, id);
  const mark = Buffer.alloc(8);
  mark.writeUInt32BE(0xfffffffc, 0);
  mark.writeUInt32BE(graph, 4);
  queue.db.removeSync(mark);
}

/** Closes the store and looks at the raw queue until `filled` says so (reopening in between), then reopens it. */
async function untilFilled(path: string, db: VectorDb, filled: (queue: VectorQueue) => boolean): Promise<VectorDb> {
  for (let round = 0; round < 50; round++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    await db.close();
    const done = await withQueue(path, filled);
    db = await openVectorDb({ path });
    if (done) return db;
  }
  await db.close();
  throw new Error('the copies were not filled');
}

const copiesOf = (queue: VectorQueue, graph: number) =>
  new Map([...queue.copies(graph, 16)].map(({ id, vector }) => [id, Array.from(vector)] as [number, number[]]));
const f32 = (v: number[]) => Array.from(Float32Array.from(v));

test('a graph keeps a copy of exactly the vectors it holds: links, updates, deletes, rollbacks, and gone with its index', async () => {
  const dir = tempDir('trellis-vector-copies-');
  try {
    let db = await openVectorDb({ path: dir.path });
    await createIndex(db, COSINE);
    const rng = new Rng(3);
    const vectors = clusteredVectors(rng, 300, 16);
    const ids = await addDocs(db, vectors);
    const live = new Map(ids.map((id, i) => [id, f32(vectors[i]!)]));
    const moved = clusteredVectors(rng, 1, 16)[0]!;
    await db.write([
      q(null, {
        set_property: { input: { nodes: { reference: { ids: [ids[1]] } } }, name: 'emb', value: { value: { f32_array: moved } } },
      }),
      q(null, { drop: { input: { nodes: { reference: { ids: [ids[2]] } } } } }),
      q(null, { remove_property: { input: { nodes: { reference: { ids: [ids[3]] } } }, name: 'emb' } }),
    ]);
    live.set(ids[1]!, f32(moved));
    live.delete(ids[2]!);
    live.delete(ids[3]!);
    await rejects400(
      db.write([addDoc(null, clusteredVectors(rng, 1, 16)[0]!), addDoc(null, [1, 2])]),
      'invalid_vector_dimension',
      /dimension 16/,
    );
    await built(db);
    const graph = db.store.read((r) => r.indexCatalog().active('node_vector', 'Doc', 'emb')!.id);
    await db.close();
    await withQueue(dir.path, (queue) => {
      assert.ok(queue.hasCopies(graph));
      assert.deepEqual(copiesOf(queue, graph), live);
    });

    db = await openVectorDb({ path: dir.path });
    await db.write([q('r', { drop_index: { spec: { node_vector: COSINE } } })], ['r']);
    // The dropped index's keys are deleted by background steps.
    await until(() => db.store.read((r) => r.indexCatalog().defs.length === 0), 'the drop to finish');
    await db.close();
    await withQueue(dir.path, (queue) => {
      assert.equal(copiesOf(queue, graph).size, 0, 'the dropped index left no copy');
      assert.ok(!queue.hasCopies(graph));
    });
  } finally {
    dir.remove();
  }
});

test('a graph of an older database keeps no copies: its searches read the stored elements, exact and never stale', async () => {
  const dir = tempDir('trellis-vector-copies-');
  try {
    let db = await openVectorDb({ path: dir.path });
    await createIndex(db, COSINE);
    const rng = new Rng(5);
    const vectors = clusteredVectors(rng, 400, 16);
    const ids = await addDocs(db, vectors);
    await built(db);
    const graph = db.store.read((r) => r.indexCatalog().active('node_vector', 'Doc', 'emb')!.id);
    await db.close();
    // As a database written before the copies: no mark, no copy.
    await withQueue(dir.path, (queue) => stripCopies(queue, graph), false);
    await withQueue(dir.path, (queue) => assert.ok(!queue.hasCopies(graph)));

    db = await openVectorDb({ path: dir.path });
    try {
      const live = new Map(ids.map((id, i) => [id, vectors[i]!]));
      const check = () => {
        for (const query of clusteredVectors(rng, 6, 16)) {
          assert.deepEqual(search(db, query, { k: 10, ef: 1000 }), bruteForce('cosine', live, query, 10));
          const within = { nodes_where: { predicate: { eq: { left: { property: '$label' }, right: { constant: { string: 'Doc' } } } } } };
          assert.deepEqual(search(db, query, { k: 5, ef: 1000, within }), bruteForce('cosine', live, query, 5));
        }
      };
      check();
      const moved = clusteredVectors(rng, 1, 16)[0]!;
      await db.write([
        q(null, {
          set_property: { input: { nodes: { reference: { ids: [ids[7]] } } }, name: 'emb', value: { value: { f32_array: moved } } },
        }),
        q(null, { drop: { input: { nodes: { reference: { ids: [ids[8]] } } } } }),
      ]);
      live.set(ids[7]!, moved);
      live.delete(ids[8]!);
      check();
      assert.deepEqual(search(db, moved, { k: 1 })[0], { $id: ids[7], $distance: 0 });
      await built(db);
      check();
      assert.deepEqual(
        search(db, vectors[8]!, { k: 400, ef: 1000 }).filter((h) => h.$id === ids[8]),
        [],
        'the deleted element is gone',
      );
      // The writer's background steps fill the copies, then mark the graph (looked at with
      // the store closed; reopened to go on while they are not done).
      db = await untilFilled(dir.path, db, (queue) => {
        if (!queue.hasCopies(graph)) return false;
        assert.deepEqual(copiesOf(queue, graph), new Map([...live].map(([id, v]) => [id, f32(v)])));
        return true;
      });
      check();
    } finally {
      await db.close();
    }
  } finally {
    dir.remove();
  }
});

test("the copies of an older tenant-partitioned index are filled in one pass, each into its tenant's graph", async () => {
  const dir = tempDir('trellis-vector-copies-');
  try {
    let db = await openVectorDb({ path: dir.path });
    await createIndex(db, { ...COSINE, tenant_property: 'tenant' });
    const rng = new Rng(15);
    const vectors = clusteredVectors(rng, 300, 16);
    const tenants = ['a', 'b', 'c'];
    const ids = await addDocs(db, vectors, (n) => [['tenant', { value: { string: tenants[n % 3] } }]]);
    await built(db);
    await db.close();
    const graphs = await withQueue(dir.path, (queue) => [...queue.pointers()].map((p) => p.graph));
    assert.equal(graphs.length, 3);
    await withQueue(dir.path, (queue) => graphs.forEach((g) => stripCopies(queue, g)), false);
    db = await openVectorDb({ path: dir.path });
    const byTenant = tenants.map(
      (_, t) => new Map(ids.flatMap((id, n) => (n % 3 === t ? [[id, f32(vectors[n]!)] as [number, number[]]] : []))),
    );
    db = await untilFilled(dir.path, db, (queue) => {
      if (!graphs.every((g) => queue.hasCopies(g))) return false;
      const found = graphs.map((g) => copiesOf(queue, g));
      for (const want of byTenant)
        assert.equal(found.filter((got) => isDeepStrictEqual(got, want)).length, 1, 'one graph holds each tenant');
      return true;
    });
    try {
      const query = vectors[4]!;
      const live = new Map(ids.flatMap((id, n) => (n % 3 === 1 ? [[id, vectors[n]!] as [number, number[]]] : [])));
      assert.deepEqual(search(db, query, { k: 5, ef: 1000, tenant: 'b' }), bruteForce('cosine', live, query, 5));
    } finally {
      await db.close();
    }
  } finally {
    dir.remove();
  }
});

const SCRIPT = `
  const vector = Float32Array.from(workerData.data);
  const nearest = () => store.read((r) => {
    const def = r.indexCatalog().active('node_vector', 'Doc', 'emb');
    return r.vectorSearch(def, { tenant: null, vector, k: 5, candidates: null, ef: 1000 });
  });
  out.rounds = [];
  for (let round = 1; round <= 4; round++) {
    out.rounds.push(nearest());
    step(round);
  }
  out.rounds.push(nearest());
`;

test('a reader thread searching successive snapshots sees every entry queued between them (its decoded queue reused)', async () => {
  const dir = tempDir('trellis-vector-copies-');
  const db = await openVectorDb({ path: dir.path });
  try {
    await createIndex(db, COSINE);
    const rng = new Rng(9);
    const vectors = clusteredVectors(rng, 300, 16);
    const ids = await addDocs(db, vectors);
    await built(db);
    const query = clusteredVectors(rng, 1, 16)[0]!;
    const live = new Map(ids.map((id, i) => [id, vectors[i]!]));
    const reader = startSteppedReader(dir.path, SCRIPT, query);
    const near = (d: number) => query.map((x, i) => x + (i === 0 ? d : 0));
    const expected: ReturnType<typeof bruteForce>[] = [bruteForce('cosine', live, query, 5)];
    // Between the reader's searches: an add near the query, the same element moved, deleted, then another.
    await reader.reached(1);
    const a = (await db.write([addDoc('a', near(0.001))], ['a'])).a[0].$id as number;
    live.set(a, near(0.001));
    expected.push(bruteForce('cosine', live, query, 5));
    reader.resume(-1);
    await reader.reached(2);
    await db.write([
      q(null, { set_property: { input: { nodes: { reference: { ids: [a] } } }, name: 'emb', value: { value: { f32_array: near(5) } } } }),
    ]);
    live.set(a, near(5));
    expected.push(bruteForce('cosine', live, query, 5));
    reader.resume(-2);
    await reader.reached(3);
    await db.write([q(null, { drop: { input: { nodes: { reference: { ids: [a] } } } } })]);
    live.delete(a);
    expected.push(bruteForce('cosine', live, query, 5));
    reader.resume(-3);
    await reader.reached(4);
    const b = (await db.write([addDoc('b', query)], ['b'])).b[0].$id as number;
    live.set(b, query);
    expected.push(bruteForce('cosine', live, query, 5));
    reader.resume(-4);
    const out = await reader.result;
    assert.equal(out['error'], undefined, String(out['error']));
    assert.deepEqual(
      out['rounds'].map((hits: { id: number; distance: number }[]) => hits.map((h) => ({ $id: h.id, $distance: h.distance }))),
      expected,
    );
    await reader.exited;
  } finally {
    await db.close();
    dir.remove();
  }
});
