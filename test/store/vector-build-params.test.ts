/**
 * A vector index's build parameters, `m` and `ef_construction` (issue 27): create_index
 * takes them (400 `invalid_query_json` naming the field when out of range), the catalogue
 * stores them with the index (a definition stored before they existed reads as 16 and
 * 128), list_indexes shows them, a second create_index must repeat them, and the graphs
 * are built with them: the native segment file holds the index's M (usearch's
 * connectivity, read back from the file), and the TypeScript HNSW of a manhattan index
 * keeps at most M links per element above level 0 and 2M at level 0.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { open } from 'lmdb';
import { answerQuery } from '../../src/database.js';
import { openDbs, environmentOptions } from '../../src/store/open.js';
import { HnswRecords } from '../../src/store/hnsw-records.js';
import { SegmentViews } from '../../src/store/vector-segments.js';
import { q, rejects400 } from '../helpers/embedded.js';
import { Rng } from '../helpers/prng.js';
import { tempDir } from '../helpers/server.js';
import {
  addDocs,
  built,
  clusteredVectors,
  createIndex,
  nodeVector,
  openVectorDb,
  readPointers,
  type Spec,
  type VectorDb,
} from '../helpers/vectors.js';

const COSINE: Spec = { label: 'Doc', property: 'emb', dimension: 8, metric: 'cosine' };

const createBody = (fields: Record<string, unknown>) =>
  JSON.stringify({
    request_type: 'write',
    query: { write: { entries: [q('r', { create_index: { spec: nodeVector({ ...COSINE, ...fields } as Spec) } })], returns: ['r'] } },
  });

/** The answer /v2/query gives a create_index with these fields, as a status and a parsed body (a valid one: null). */
function answer(fields: Record<string, unknown>): { status: number; body: Record<string, unknown> } | null {
  const a = answerQuery(createBody(fields), { warm: false, requireWriter: false, awaitDurable: undefined }, false, () => '{}');
  if (a.kind !== 'done') return null;
  return { status: a.status, body: JSON.parse(String(a.body)) as Record<string, unknown> };
}

/**
 * Makes `tuned` (of label Doc) and the same index with the default build parameters (of
 * label Plain), writes the same `n` vectors to both, and waits for their graphs: answers
 * the two indexes' ids (their graphs) and the elements of each.
 */
async function tunedAndPlain(db: VectorDb, tuned: Spec, seed: number, n: number) {
  await createIndex(db, tuned);
  const { m: _m, ef_construction: _ef, ...plain } = tuned;
  await createIndex(db, { ...plain, label: 'Plain' });
  const vectors = clusteredVectors(new Rng(seed), n, tuned.dimension);
  const docs = await addDocs(db, vectors);
  const made = await db.write(
    vectors.map((v, k) => q(`p${k}`, { add_n: { label: 'Plain', properties: [['emb', { value: { f32_array: v } }]] } })),
    vectors.map((_, k) => `p${k}`),
  );
  await built(db);
  const graphs = db.store.read((r) => ['Doc', 'Plain'].map((label) => r.indexCatalog().active('node_vector', label, 'emb')!.id));
  return { graphs, elements: [docs, vectors.map((_, k) => made[`p${k}`][0].$id as number)] };
}

async function listed(db: VectorDb): Promise<Record<string, unknown>[]> {
  return db.read([q('r', { list_indexes: {} })], ['r']).r as Record<string, unknown>[];
}

test('create_index takes m and ef_construction; out of range they are 400 invalid_query_json naming the field', () => {
  assert.equal(answer({ m: 32, ef_construction: 256 }), null, 'accepted: a write to run');
  assert.equal(answer({ m: 2, ef_construction: 2 }), null, 'the least');
  assert.equal(answer({ m: 128, ef_construction: 4096 }), null, 'the most');
  const bad: [Record<string, unknown>, RegExp][] = [
    [{ m: 1 }, /spec\.node_vector\.m: m must be between 2 and 128, got 1$/],
    [{ m: 129 }, /spec\.node_vector\.m: m must be between 2 and 128, got 129$/],
    [{ m: 16.5 }, /spec\.node_vector\.m: /],
    [{ m: '16' }, /spec\.node_vector\.m: /],
    [{ ef_construction: 4097 }, /spec\.node_vector\.ef_construction: ef_construction must be between 2 and 4096, got 4097$/],
    [{ ef_construction: 8 }, /spec\.node_vector\.ef_construction: ef_construction must be an integer from m \(16\) to 4096, got 8$/],
    [
      { m: 64, ef_construction: 32 },
      /spec\.node_vector\.ef_construction: ef_construction must be an integer from m \(64\) to 4096, got 32$/,
    ],
  ];
  for (const [fields, msg] of bad) {
    const got = answer(fields);
    assert.ok(got !== null, JSON.stringify(fields));
    assert.equal(got.status, 400, JSON.stringify(fields));
    assert.deepEqual(Object.keys(got.body).sort(), ['error', 'msg'], JSON.stringify(got.body));
    assert.equal(got.body.error, 'invalid_query_json', JSON.stringify(got.body));
    assert.match(got.body.msg as string, msg);
  }
});

test('the build parameters are stored with the index, listed, kept across a reopen, and part of its definition; an older definition reads as 16 and 128', async () => {
  const dir = tempDir('trellis-vector-params-');
  try {
    let db = await openVectorDb({ path: dir.path });
    await createIndex(db, { ...COSINE, m: 32, ef_construction: 256 });
    await createIndex(db, { ...COSINE, label: 'Plain' });
    const shown = (rows: Record<string, unknown>[]) => rows.map((r) => [r.label, r.m, r.ef_construction]);
    assert.deepEqual(shown(await listed(db)), [
      ['Doc', 32, 256],
      ['Plain', 16, 128],
    ]);
    const again = (spec: Spec, ifNotExists = true) =>
      db.write([q('r', { create_index: { spec: nodeVector(spec), if_not_exists: ifNotExists } })], ['r']);
    assert.equal((await again({ ...COSINE, m: 32, ef_construction: 256 })).r.kind, 'already_active');
    await rejects400(again({ ...COSINE }), 'index_definition_conflict', /"m":32,"ef_construction":256/);
    await rejects400(again({ ...COSINE, m: 32 }), 'index_definition_conflict', /exists with another definition/);
    await db.close();

    db = await openVectorDb({ path: dir.path });
    assert.deepEqual(shown(await listed(db)), [
      ['Doc', 32, 256],
      ['Plain', 16, 128],
    ]);
    const plain = db.store.read((r) => r.indexCatalog().active('node_vector', 'Plain', 'emb')!.id);
    await db.close();

    // A definition stored before the fields existed has neither.
    const env = open(environmentOptions(dir.path, false));
    const catalog = openDbs(env, dir.path).indexes;
    const def = catalog.get(`def:${plain}`) as { spec: Record<string, unknown> };
    delete def.spec.m;
    delete def.spec.ef_construction;
    await catalog.put(`def:${plain}`, def);
    assert.equal('m' in (catalog.get(`def:${plain}`) as { spec: object }).spec, false);
    await env.close();

    db = await openVectorDb({ path: dir.path });
    assert.deepEqual(shown(await listed(db)), [
      ['Doc', 32, 256],
      ['Plain', 16, 128],
    ]);
    assert.equal((await again({ ...COSINE, label: 'Plain' })).r.kind, 'already_active', 'the same definition as the defaults');
    await db.close();
  } finally {
    dir.remove();
  }
});

test("the native segment is built with the index's M: its file holds it", async () => {
  const dir = tempDir('trellis-vector-params-');
  try {
    const db = await openVectorDb({ path: dir.path });
    const { graphs } = await tunedAndPlain(db, { ...COSINE, m: 6, ef_construction: 40 }, 3, 300);
    await db.close();

    const pointers = await readPointers(dir.path, graphs);
    const views = new SegmentViews(join(dir.path, 'vectors'), (m) => assert.fail(m));
    // The shape's connectivity is what a new index would get; a viewed file has its own.
    const shape = { dimension: 8, metric: 'ip' as const, connectivity: 16, expansionAdd: 128 };
    const connectivity = graphs.map((graph, i) => {
      assert.equal(pointers[i]!.state, 'segment');
      const view = views.get(graph, pointers[i]!, shape, 8);
      assert.ok(view !== null);
      assert.equal(view.index.size, 300);
      return view.index.connectivity;
    });
    assert.deepEqual(connectivity, [6, 16]);
  } finally {
    dir.remove();
  }
});

test("a manhattan index's graph (the TypeScript HNSW) keeps at most M links per element above level 0 and 2M at level 0", async () => {
  const dir = tempDir('trellis-vector-params-');
  try {
    const db = await openVectorDb({ path: dir.path });
    const spec: Spec = { label: 'Doc', property: 'emb', dimension: 8, metric: 'manhattan', m: 3, ef_construction: 12 };
    const { graphs, elements } = await tunedAndPlain(db, spec, 4, 400);
    await db.close();

    const env = open(environmentOptions(dir.path, true));
    const records = openDbs(env, dir.path).hnsw;
    /** The most links any element of the graph keeps, at level 0 and above. */
    const widest = (g: number, ids: number[]) => {
      const storage = new HnswRecords(records, g);
      let base = 0;
      let upper = 0;
      for (const id of ids) {
        const r = storage.get(id);
        assert.ok(r !== undefined, `element ${id} is in graph ${g}`);
        base = Math.max(base, r.neighbours[0]!.length);
        for (let l = 1; l <= r.level; l++) upper = Math.max(upper, r.neighbours[l]!.length);
      }
      return { base, upper };
    };
    const [tuned, plain] = graphs.map((g, i) => widest(g, elements[i]!)) as [
      { base: number; upper: number },
      { base: number; upper: number },
    ];
    await env.close();
    assert.ok(tuned.base <= 6 && tuned.upper <= 3, `m 3: ${JSON.stringify(tuned)}`);
    assert.ok(tuned.base === 6, `level 0 lists fill up to 2M: ${JSON.stringify(tuned)}`);
    assert.ok(plain.base > 6 && plain.base <= 32, `the default m 16 keeps more: ${JSON.stringify(plain)}`);
  } finally {
    dir.remove();
  }
});
