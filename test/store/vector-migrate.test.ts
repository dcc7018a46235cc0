/**
 * A database whose cosine index is a graph of HNSW records in LMDB (the engine before the
 * native segments: no pointer, records in `hnsw`, links still queued) opens and keeps
 * answering: searches are exact at once, the builder makes the graph's segment from the
 * stored vectors, and the old records are deleted in the background. The old format is
 * written here by the old engine's own code (src/search/hnsw.ts, hnsw-records.ts) into a
 * folder the store made, with the pointer and segment files taken away. The migration
 * rewrites derived data outside any batch, so a logging writer follows it with a reset entry.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
import { hnswConfig, insert } from '../../src/search/hnsw.js';
import { METRICS } from '../../src/search/vector-math.js';
import { HNSW_DB_OPTIONS, HnswRecords } from '../../src/store/hnsw-records.js';
import { LINK, VectorQueue } from '../../src/store/vector-queue.js';
import { pointerKey } from '../../src/store/vector-segments.js';
import { entryHeader } from '../../src/store/index.js';
import { Rng } from '../helpers/prng.js';
import { tempDir } from '../helpers/server.js';
import { addDocs, bruteForce, built, clusteredVectors, createIndex, openVectorDb, recall, search, type Spec } from '../helpers/vectors.js';

const COSINE: Spec = { label: 'Doc', property: 'emb', dimension: 16, metric: 'cosine' };

test('a graph of the older format (HNSW records in LMDB) is searched exactly at once, then served by a segment, its records deleted', async () => {
  const dir = tempDir('trellis-vector-migrate-');
  try {
    const rng = new Rng(17);
    const vectors = clusteredVectors(rng, 700, 16);
    let db = await openVectorDb({ path: dir.path });
    await createIndex(db, COSINE);
    const ids = await addDocs(db, vectors);
    await built(db);
    // The builder's reach sweep publishes once more after the queue empties: the log's
    // position is read once it has (the next entry must be the migration's reset).
    const deadline = Date.now() + 60_000;
    while (!db.store.read((r) => r.vectorBacklogs()[0]!.backlog.reachChecked) && Date.now() < deadline)
      await new Promise((resolve) => setTimeout(resolve, 20));
    const graph = db.store.read((r) => r.indexCatalog().active('node_vector', 'Doc', 'emb')!.id);
    const logged = db.store.logPosition().lsn;
    await db.close();

    // The older format: the first 600 linked into HNSW records, the last 100 still queued.
    rmSync(join(dir.path, 'vectors'), { recursive: true, force: true });
    const env = open({ path: dir.path, noSubdir: false, maxDbs: 128 });
    const records = env.openDB<Buffer, Buffer>('hnsw', HNSW_DB_OPTIONS);
    const queueDb = env.openDB<Buffer, Buffer>('vector_queue', { encoding: 'binary', keyEncoding: 'binary' });
    const config = hnswConfig('cosine', { random: () => rng.float() });
    await env.transaction(() => {
      queueDb.removeSync(pointerKey(graph));
      const storage = new HnswRecords(records, graph);
      ids.slice(0, 600).forEach((id, i) => insert(storage, config, id, Float32Array.from(vectors[i]!)));
      const queue = new VectorQueue(queueDb);
      ids
        .slice(600)
        .forEach((id, i) =>
          queue.append(graph, METRICS.indexOf('cosine'), LINK, id, Float32Array.from(vectors[600 + i]!), () => 'Doc.emb'),
        );
    });
    assert.equal(HnswRecords.count(records, graph), 600);
    await env.close();

    db = await openVectorDb({ path: dir.path });
    // The migration is outside any batch: a writer that records the change log continues
    // its history with a reset entry first, so its replicas take a new snapshot.
    const [reset] = db.store.logEntries(logged + 1, 1);
    assert.equal(reset?.lsn, logged + 1);
    assert.equal(entryHeader(reset.entry).count, 0, 'the entry after the migration is a reset');
    const live = new Map(ids.map((id, i) => [id, vectors[i]!]));
    const queries = clusteredVectors(rng, 8, 16);
    // Right after the open: the stored vectors are ranked exactly until the segment exists
    // (the builder may be quick: a beam as wide as the graph makes its answers exact too).
    for (const query of queries) assert.deepEqual(search(db, query, { k: 10, ef: 1000 }), bruteForce('cosine', live, query, 10));
    for (const [i, id] of ids.entries())
      if (i % 50 === 0) assert.deepEqual(search(db, vectors[i]!, { k: 1 })[0], { $id: id, $distance: 0 });
    await built(db);
    let sum = 0;
    for (const query of queries) sum += recall(search(db, query, { k: 10, ef: 200 }), bruteForce('cosine', live, query, 10));
    assert.ok(sum / queries.length >= 0.95, `recall ${sum / queries.length} once the segment serves`);
    for (const [i, id] of ids.entries())
      if (i % 50 === 7) assert.deepEqual(search(db, vectors[i]!, { k: 1 })[0], { $id: id, $distance: 0 });
    await db.close();

    // The old records are deleted by background steps after the open (looked at with the
    // store closed: one process opens an environment once).
    const left = async () => {
      const raw = open({ path: dir.path, noSubdir: false, maxDbs: 128, readOnly: true });
      try {
        return HnswRecords.count(raw.openDB<Buffer, Buffer>('hnsw', HNSW_DB_OPTIONS), graph);
      } finally {
        await raw.close();
      }
    };
    for (let round = 0; (await left()) > 0; round++) {
      assert.ok(round < 20, 'the old records are deleted');
      db = await openVectorDb({ path: dir.path });
      await new Promise((resolve) => setTimeout(resolve, 500));
      await db.close();
    }
  } finally {
    dir.remove();
  }
});
