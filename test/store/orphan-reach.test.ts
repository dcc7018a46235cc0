/**
 * The reach sweep (vector-builder.ts sweep): adding an element prunes links of its
 * neighbours, so an element the graph reached when it was added can be cut off later, and
 * no search would ever find it again. The builder checks every element's reach again in
 * passes beside the adds and while idle; one cut off becomes an orphan, ranked exactly by
 * every search, and an orphan the grown graph reaches again is an ordinary element.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Rng } from '../helpers/prng.js';
import { tempDir } from '../helpers/server.js';
import {
  addDocs,
  built,
  clusteredVectors,
  createIndex,
  openVectorDb,
  readPointers,
  reachChecked,
  search,
  type Spec,
  type VectorDb,
} from '../helpers/vectors.js';

// 128 dimensions around 4 centres: data on which, without the sweep, a few elements of
// 12,000 (2 to 5 in each of 8 builds, often the same ones) were found by no search.
const SPEC: Spec = { label: 'Doc', property: 'emb', dimension: 128, metric: 'cosine' };

/**
 * A database in `path` with 3,000 vectors, then 9,000 more linked into that graph, its queue
 * empty; with the vectors and their ids.
 */
async function grownGraph(path: string): Promise<{ db: VectorDb; ids: number[]; vectors: number[][] }> {
  const vectors = clusteredVectors(new Rng(7), 12_000, SPEC.dimension, 4);
  const db = await openVectorDb({ path });
  await createIndex(db, SPEC);
  const ids = await addDocs(db, vectors.slice(0, 3000), () => [], 500);
  await built(db);
  ids.push(...(await addDocs(db, vectors.slice(3000), () => [], 1000)));
  await built(db);
  return { db, ids, vectors };
}

/** The elements a search by their own vector (k 1, the default beam) does not find. */
const unfound = (db: VectorDb, ids: readonly number[], vectors: number[][]): number[] =>
  ids.filter((id, i) => search(db, vectors[i]!, { k: 1 })[0]?.$id !== id);

test('after the adds stop, every element is found by its own vector, however the graph grew', async () => {
  const dir = tempDir('trellis-orphan-reach-');
  try {
    const { db, ids, vectors } = await grownGraph(dir.path);
    // The sweep's last pass runs once the queue is empty, then its segment is published,
    // and the backlog says so: from then on, every element is found.
    await reachChecked(db); // the backlog says every element was checked (or this times out)
    assert.deepEqual(unfound(db, ids, vectors), [], 'elements no search finds by their own vector');
    await db.close();
  } finally {
    dir.remove();
  }
});

test('a pass cut short by a close is made again when the database opens', async () => {
  const dir = tempDir('trellis-orphan-reach-');
  try {
    const grown = await grownGraph(dir.path);
    // A graph of an index without tenants is the index's id (vector-index.ts graphOf).
    const graph = grown.db.store.read((r) => r.indexCatalog().active('node_vector', 'Doc', 'emb')!.id);
    // Closed as the queue empties: the last pass has not ended, and no add will come.
    await grown.db.close();
    assert.equal((await readPointers(dir.path, [graph]))[0]!.swept, false, 'the last segment was published before a pass ended');
    const db = await openVectorDb({ path: dir.path });
    assert.equal(
      db.store.read((r) => r.vectorBacklogs()[0]!.backlog.reachChecked),
      false,
      'the backlog says a pass is due',
    );
    await reachChecked(db); // the pass was made again and published (or this times out)
    assert.deepEqual(unfound(db, grown.ids, grown.vectors), [], 'elements no search finds by their own vector');
    await db.close();
    assert.equal((await readPointers(dir.path, [graph]))[0]!.swept, true, 'the segment now says it was swept');
  } finally {
    dir.remove();
  }
});
