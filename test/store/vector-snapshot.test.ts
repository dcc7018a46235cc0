/**
 * A read sees the vectors of its own snapshot only: a reader thread (a read-only store, as
 * a read worker has) holds one read open while the writer deletes and adds vectors and the
 * builder publishes a new segment; within that read, a search answers exactly as before,
 * and the next read sees the new state. The snapshot's pointer names the old segment
 * file, which stays until no read can still use it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { Rng } from '../helpers/prng.js';
import { q } from '../helpers/embedded.js';
import { tempDir } from '../helpers/server.js';
import { addDocs, built, clusteredVectors, createIndex, openVectorDb, search } from '../helpers/vectors.js';

const WORKER = `
const { workerData, parentPort } = require('node:worker_threads');
(async () => {
  const { openStore } = await import(workerData.storeUrl);
  const store = await openStore({ path: workerData.path, readOnly: true });
  const flag = new Int32Array(workerData.flag);
  const step = (n) => {
    Atomics.store(flag, 0, n);
    Atomics.notify(flag, 0);
    Atomics.wait(flag, 0, n);
  };
  const vector = Float32Array.from(workerData.query);
  const nearest = (r) => {
    const def = r.indexCatalog().active('node_vector', 'Doc', 'emb');
    return r.vectorSearch(def, { tenant: null, vector, k: 20, candidates: null, ef: 200 });
  };
  const out = {};
  out.within = store.read((r) => {
    const first = nearest(r);
    step(1); // the writer deletes and adds; the builder publishes a new segment
    return { first, second: nearest(r) };
  });
  out.next = store.read(nearest);
  parentPort.postMessage(out);
  await store.close();
})().catch((err) => parentPort.postMessage({ error: String((err && err.stack) || err) }));
`;

async function waitFor(flag: Int32Array, value: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  while (Atomics.load(flag, 0) !== value) {
    if (Date.now() > deadline) throw new Error(`worker did not reach step ${value}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

test('a read keeps the vectors of its snapshot while the writer changes them and a new segment is published', async () => {
  const dir = tempDir('trellis-vector-snapshot-');
  const db = await openVectorDb({ path: dir.path });
  try {
    await createIndex(db, { label: 'Doc', property: 'emb', dimension: 16, metric: 'cosine' });
    const rng = new Rng(41);
    const vectors = clusteredVectors(rng, 800, 16);
    await addDocs(db, vectors);
    await built(db);
    const query = vectors[3]!;
    const before = search(db, query, { k: 20, ef: 200 });

    const flag = new Int32Array(new SharedArrayBuffer(4));
    const storeUrl = new URL('../../src/store/index.js', import.meta.url).href;
    const worker = new Worker(WORKER, { eval: true, workerData: { storeUrl, path: dir.path, flag: flag.buffer, query } });
    // Listened for now: the worker may be gone before the assertions are done.
    const exited = new Promise((resolve) => worker.once('exit', resolve));
    const result = new Promise<Record<string, any>>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
    });
    await waitFor(flag, 1);
    // The ten nearest go, and a copy of the query comes in, while the reader's snapshot stays open.
    const doomed = before.slice(0, 10).map((h) => h.$id);
    await db.write([q(null, { drop: { input: { nodes: { reference: { ids: doomed } } } } })]);
    const made = await db.write([q('n', { add_n: { label: 'Doc', properties: [['emb', { value: { f32_array: query } }]] } })], ['n']);
    const added = made.n[0].$id as number;
    await built(db);
    Atomics.store(flag, 0, 2);
    Atomics.notify(flag, 0);

    const out = await result;
    assert.equal(out['error'], undefined, String(out['error']));
    const ids = (hits: { id: number }[]) => hits.map((h) => h.id);
    assert.deepEqual(ids(out.within.first), ids(out.within.second), 'one snapshot, one answer');
    assert.deepEqual(out.within.second, out.within.first);
    assert.deepEqual(
      ids(out.within.first),
      before.map((h) => h.$id),
    );
    assert.deepEqual(out.next[0], { id: added, distance: 0 });
    for (const id of doomed) assert.ok(!ids(out.next).includes(id), `deleted ${id} is gone from the next read`);
    await exited;
  } finally {
    await db.close();
    dir.remove();
  }
});
