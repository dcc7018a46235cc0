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
import { addDocs, built, clusteredVectors, createIndex, openVectorDb, search, type Spec } from '../helpers/vectors.js';

// 128 dimensions around 4 centres: data on which, without the sweep, a few elements of
// 12,000 (2 to 5 in each of 8 builds, often the same ones) were found by no search.
const SPEC: Spec = { label: 'Doc', property: 'emb', dimension: 128, metric: 'cosine' };

test('after the adds stop, every element is found by its own vector, however the graph grew', async () => {
  const dir = tempDir('trellis-orphan-reach-');
  try {
    const rng = new Rng(7);
    const vectors = clusteredVectors(rng, 12_000, SPEC.dimension, 4);
    const db = await openVectorDb({ path: dir.path });
    await createIndex(db, SPEC);
    // A small graph first, then four times as many elements linked into it.
    const ids = await addDocs(db, vectors.slice(0, 3000), () => [], 500);
    await built(db);
    ids.push(...(await addDocs(db, vectors.slice(3000), () => [], 1000)));
    await built(db);
    const lost = () => ids.filter((id, i) => search(db, vectors[i]!, { k: 1 })[0]?.$id !== id);
    // The sweep's last pass runs once the queue is empty, then its segment is published.
    const deadline = Date.now() + 60_000;
    let missing = lost();
    while (missing.length > 0 && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 200));
      missing = lost();
    }
    assert.deepEqual(missing, [], 'elements no search finds by their own vector');
    await db.close();
  } finally {
    dir.remove();
  }
});
