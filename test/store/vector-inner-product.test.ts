/**
 * Inner-product indexes over vectors of mixed lengths (vector-index.ts nativeShape): their
 * graphs are searched as euclidean ones over vectors with one more component, sqrt(M² −
 * |x|²), so an element is its own nearest and the graph reaches nearly all of them (over
 * raw inner products, usearch left about half out of reach, every one of them then ranked
 * by brute force in every search). A vector longer than the graph's M sends the graph to
 * be built again with a larger one.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { nativeShape, newPointer, type VectorSpec } from '../../src/store/vector-index.js';
import { decodePointer, encodePointer, type GraphPointer } from '../../src/store/vector-segments.js';
import { Rng } from '../helpers/prng.js';
import { tempDir } from '../helpers/server.js';
import {
  addDocs,
  bruteForce,
  built,
  clusteredVectors,
  createIndex,
  openVectorDb,
  readPointers,
  reachChecked,
  recall,
  search,
  type Spec,
} from '../helpers/vectors.js';

const SPEC: Spec = { label: 'Doc', property: 'emb', dimension: 16, metric: 'inner_product' };

const length = (v: readonly number[]) => Math.hypot(...v);

test('inner product over vectors of mixed lengths: few orphans, the nearest found, and a longer vector rebuilds the graph', async () => {
  const dir = tempDir('trellis-vector-ip-');
  try {
    const db = await openVectorDb({ path: dir.path });
    await createIndex(db, SPEC);
    const rng = new Rng(41);
    const vectors = clusteredVectors(rng, 3000, 16, 8).map((v) => {
      const scale = 0.5 + 1.5 * rng.float();
      return v.map((x) => Math.fround(x * scale));
    });
    const ids = await addDocs(db, vectors);
    await built(db);
    const graph = db.store.read((r) => r.indexCatalog().active('node_vector', 'Doc', 'emb')!.id);
    const live = new Map(ids.map((id, i) => [id, vectors[i]!]));
    const queries = clusteredVectors(rng, 20, 16, 8);
    let sum = 0;
    for (const query of queries) {
      const got = search(db, query, { k: 10 });
      sum += recall(got, bruteForce('inner_product', live, query, 10));
      // Distances are the exact negated dot products, whatever form the graph is searched in.
      for (const hit of got)
        assert.equal(hit.$distance, bruteForce('inner_product', new Map([[hit.$id, live.get(hit.$id)!]]), query, 1)[0]!.$distance);
    }
    assert.ok(sum / queries.length >= 0.9, `recall ${sum / queries.length}`);

    // Twenty times the first vector: longer than the graph's M takes.
    const long = vectors[0]!.map((x) => Math.fround(x * 20));
    const [longId] = await addDocs(db, [long]);
    live.set(longId!, long);
    await built(db);
    // The rebuilt graph's elements are findable once its reach sweep has ended a pass.
    await reachChecked(db);
    assert.equal(search(db, vectors[0]!, { k: 1 })[0]!.$id, longId, 'the longest in its direction comes first');
    let after = 0;
    for (const query of queries) after += recall(search(db, query, { k: 10 }), bruteForce('inner_product', live, query, 10));
    assert.ok(after / queries.length >= 0.9, `recall after the rebuild ${after / queries.length}`);
    await db.close();

    const [pointer] = (await readPointers(dir.path, [graph])) as [GraphPointer];
    assert.equal(pointer.state, 'segment');
    assert.ok(pointer.longest >= length(long), `M ${pointer.longest} takes the longer vector (${length(long)})`);
    assert.equal(pointer.count, 3001);
    // Over raw inner products about half were orphans.
    assert.ok(pointer.orphans < 0.02 * pointer.count, `${pointer.orphans} orphans of ${pointer.count}`);
  } finally {
    dir.remove();
  }
});

test('a pointer written before M existed reads as M 0, and its inner-product graph keeps the raw form', () => {
  const pointer: GraphPointer = { ...newPointer('segment', 3, 100, 'f32'), orphans: 7, longest: 12.5 };
  assert.deepEqual(decodePointer(encodePointer(pointer)), pointer, 'M round-trips');
  const older = encodePointer(pointer).subarray(0, 80);
  assert.deepEqual(decodePointer(older), { ...pointer, longest: 0 });
  const spec = { metric: 'inner_product', dimension: 16, m: 16, ef_construction: 128 } as VectorSpec;
  assert.deepEqual(nativeShape(spec, 0), { dimension: 16, metric: 'ip', connectivity: 16, expansionAdd: 128 });
  assert.deepEqual(nativeShape(spec, 12.5), { dimension: 17, metric: 'l2sq', connectivity: 16, expansionAdd: 128 });
});
