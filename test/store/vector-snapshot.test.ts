/**
 * A read sees the vectors of its own snapshot only: a reader thread (a read-only store, as
 * a read worker has) holds one read open while the writer deletes and adds vectors and the
 * builder publishes a new segment; within that read, a search answers exactly as before,
 * and the next read sees the new state. The snapshot's pointer names the old segment
 * file, which stays until no read can still use it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../helpers/prng.js';
import { q } from '../helpers/embedded.js';
import { tempDir } from '../helpers/server.js';
import { startSteppedReader } from '../helpers/stepped-reader.js';
import { addDocs, built, clusteredVectors, createIndex, openVectorDb, search } from '../helpers/vectors.js';

const SCRIPT = `
  const vector = Float32Array.from(workerData.data);
  const nearest = (r) => {
    const def = r.indexCatalog().active('node_vector', 'Doc', 'emb');
    return r.vectorSearch(def, { tenant: null, vector, k: 20, candidates: null, ef: 200 });
  };
  out.within = store.read((r) => {
    const first = nearest(r);
    step(1); // the writer deletes and adds; the builder publishes a new segment
    return { first, second: nearest(r) };
  });
  out.next = store.read(nearest);
`;

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

    const reader = startSteppedReader(dir.path, SCRIPT, query);
    await reader.reached(1);
    // The ten nearest go, and a copy of the query comes in, while the reader's snapshot stays open.
    const doomed = before.slice(0, 10).map((h) => h.$id);
    await db.write([q(null, { drop: { input: { nodes: { reference: { ids: doomed } } } } })]);
    const made = await db.write([q('n', { add_n: { label: 'Doc', properties: [['emb', { value: { f32_array: query } }]] } })], ['n']);
    const added = made.n[0].$id as number;
    await built(db);
    reader.resume(2);

    const out = await reader.result;
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
    await reader.exited;
  } finally {
    await db.close();
    dir.remove();
  }
});
