/**
 * A search thread's segment views (store/vector-segments.ts SegmentViews) when the file a
 * pointer names is not there yet, as on a replica that applied a segment's pointer before
 * fetching its file (replication/segments.ts): no view, one message, and the file is looked
 * for again at the next search, so it serves as soon as it arrives.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { renameSync } from 'node:fs';
import { join } from 'node:path';
import { SegmentViews, segmentFiles, type GraphPointer } from '../../src/store/vector-segments.js';
import { Rng } from '../helpers/prng.js';
import { tempDir } from '../helpers/server.js';
import { namedSegments } from '../helpers/replication.js';
import { addDocs, built, clusteredVectors, createIndex, openVectorDb, readPointers, type Spec } from '../helpers/vectors.js';

const SPEC: Spec = { label: 'Doc', property: 'emb', dimension: 8, metric: 'euclidean' };

test('a segment file not there yet gives no view and one message, and serves once it arrives', async () => {
  const dir = tempDir('trellis-segment-views-');
  try {
    const db = await openVectorDb({ path: dir.path });
    await createIndex(db, SPEC);
    await addDocs(db, clusteredVectors(new Rng(5), 300, 8));
    await built(db);
    const graph = db.store.read((r) => r.indexCatalog().active('node_vector', 'Doc', 'emb')!.id);
    await db.close();
    assert.ok(namedSegments(dir.path).size > 0, 'the builder made a segment');
    const [pointer] = (await readPointers(dir.path, [graph])) as [GraphPointer];
    const folder = join(dir.path, 'vectors');
    const files = segmentFiles(graph, pointer);
    for (const name of files) renameSync(join(folder, name), join(folder, `${name}.away`));

    const said: string[] = [];
    const views = new SegmentViews(folder, (m) => said.push(m));
    const shape = { dimension: 8, metric: 'l2sq' as const, connectivity: 16, expansionAdd: 128 };
    assert.equal(views.get(graph, pointer, shape, 8), null, 'no view without the file');
    assert.equal(views.get(graph, pointer, shape, 8), null);
    assert.equal(said.length, 1, said.join('\n'));
    assert.match(said[0]!, /is not there \(yet\); searching graph \d+ exactly until it is/);

    for (const name of files) renameSync(join(folder, `${name}.away`), join(folder, name));
    const view = views.get(graph, pointer, shape, 8);
    assert.ok(view !== null, 'the file serves once it is there, for the same generation');
    assert.ok(view.index.size > 0);
    assert.equal(said.length, 1, 'nothing more to say');
  } finally {
    dir.remove();
  }
});
