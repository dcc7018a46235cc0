/**
 * Vector (HNSW) and text (BM25) search through the embedded API on real LMDB: answers
 * against brute force, queued links searched before they are drained, deletes of whole
 * neighbourhoods and of the entry point, `_within`, tenant partitions, the request
 * errors of reference §5.12, text limits that commit nothing, builds blocked by a row,
 * and the queue bound.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { preparePlan, runWrite } from '../../src/database.js';
import { GraphError } from '../../src/core/errors.js';
import { openStore } from '../../src/store/index.js';
import { Rng } from '../helpers/prng.js';
import { openTestDb, q, rejects400, s, type TestDb } from '../helpers/embedded.js';
import { tempDir } from '../helpers/server.js';

const create = (spec: unknown) => q('r', { create_index: { spec } });

async function poll(t: TestDb, id: string, until = ['succeeded']): Promise<Record<string, any>> {
  for (let n = 0; n < 1000; n++) {
    const status = (await t.read([q('r', { get_index_operation: { operation_id: id } })], ['r'])).r;
    if (until.includes(status.status)) return status;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`operation ${id} did not reach ${until.join('/')}`);
}

async function makeIndex(t: TestDb, spec: unknown): Promise<void> {
  await poll(t, (await t.write([create(spec)], ['r'])).r.operation_id);
}

/** Waits until the writer has drained every queued vector link (a search then reads only the graph). */
async function drained(t: TestDb): Promise<void> {
  for (let n = 0; n < 1000; n++) {
    let queued = 0;
    t.db.store.read((r) => {
      for (const { backlog } of r.vectorBacklogs()) queued += backlog.queued;
    });
    if (queued === 0) return;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error('the vector queue was not drained');
}

const VEC = { node_vector: { label: 'Doc', property: 'emb', dimension: 8, metric: 'euclidean' } };
const vsearch = (v: number[] | null, k: number, extra: Record<string, unknown> = {}) => ({
  vector_search_nodes: {
    label: 'Doc',
    property: 'emb',
    query_vector: v === null ? { expr: { param: 'v' } } : { value: { f32_array: v } },
    k: { literal: k },
    ...extra,
  },
});

function randomVectors(n: number, dim: number, seed: number): number[][] {
  const rng = new Rng(seed);
  return Array.from({ length: n }, () => Array.from({ length: dim }, () => Math.fround(rng.float() * 2 - 1)));
}

function bruteForce(vectors: Map<number, number[]>, query: number[], k: number): number[] {
  const d = (a: number[]) => a.reduce((sum, x, i) => sum + (x - query[i]!) ** 2, 0);
  return [...vectors]
    .sort((a, b) => d(a[1]) - d(b[1]) || a[0] - b[0])
    .slice(0, k)
    .map(([id]) => id);
}

async function addDocs(t: TestDb, vectors: number[][], extra: (n: number) => [string, unknown][] = () => []): Promise<number[]> {
  const out: number[] = [];
  for (let n = 0; n < vectors.length; n += 200) {
    const chunk = vectors.slice(n, n + 200);
    const made = await t.write(
      chunk.map((v, k) => q(`d${k}`, { add_n: { label: 'Doc', properties: [['emb', { value: { f32_array: v } }], ...extra(n + k)] } })),
      chunk.map((_, k) => `d${k}`),
    );
    for (let k = 0; k < chunk.length; k++) out.push(made[`d${k}`][0].$id);
  }
  return out;
}

test('vector search matches brute force, before and after the queue drains, and survives deleting whole neighbourhoods and the entry point', async () => {
  const t = await openTestDb();
  try {
    await makeIndex(t, VEC);
    const vectors = randomVectors(600, 8, 7);
    const ids = await addDocs(t, vectors);
    const live = new Map(ids.map((id, n) => [id, vectors[n]!]));
    const queries = randomVectors(20, 8, 99);
    const recall = async () => {
      let hits = 0;
      for (const query of queries) {
        const got = (await t.read([q('x', vsearch(query, 10))], ['x'])).x.map((r: { $id: number }) => r.$id);
        const want = bruteForce(live, query, 10);
        hits += got.filter((id: number) => want.includes(id)).length;
        const rows = (await t.read([q('x', vsearch(query, 10))], ['x'])).x;
        for (let i = 1; i < rows.length; i++) assert.ok(rows[i].$distance >= rows[i - 1].$distance, 'ascending $distance');
      }
      return hits / (queries.length * 10);
    };
    // Straight after the writes the links may still be queued: searched exactly.
    assert.ok((await recall()) >= 0.95);
    await drained(t);
    assert.ok((await recall()) >= 0.95);
    // Delete the 200 nearest neighbours of one point (a whole neighbourhood), then every third node.
    const doomed = bruteForce(live, vectors[0]!, 200);
    for (let n = 300; n < ids.length; n += 3) if (!doomed.includes(ids[n]!)) doomed.push(ids[n]!);
    await t.write([q('x', { drop: { input: { nodes: { reference: { ids: doomed } } } } })], []);
    for (const id of doomed) live.delete(id);
    const afterDelete = await recall();
    assert.ok(afterDelete >= 0.95, `recall ${afterDelete} after deletes`);
    await drained(t);
    assert.ok((await recall()) >= 0.9);
    // Every survivor is found by its own vector, at distance 0.
    for (const [id, v] of [...live].slice(0, 50)) {
      const top = (await t.read([q('x', vsearch(v, 1))], ['x'])).x;
      assert.deepEqual(top, [{ $id: id, $distance: 0 }]);
    }
    // Deleting everything, then adding again, works (no "no entry point" failure).
    await t.write(
      [
        q('x', {
          drop: { input: { nodes_where: { predicate: { eq: { left: { property: '$label' }, right: { constant: { string: 'Doc' } } } } } } },
        }),
      ],
      [],
    );
    await drained(t);
    assert.deepEqual((await t.read([q('x', vsearch(queries[0]!, 5))], ['x'])).x, []);
    const [again] = await addDocs(t, [vectors[1]!]);
    await drained(t);
    assert.deepEqual((await t.read([q('x', vsearch(vectors[1]!, 5))], ['x'])).x, [{ $id: again, $distance: 0 }]);
  } finally {
    await t.close();
  }
});

test('vector search: an updated vector moves, _within ranks only its input, a parameter query, k capped', async () => {
  const t = await openTestDb();
  try {
    await makeIndex(t, VEC);
    const vectors = randomVectors(50, 8, 3);
    const ids = await addDocs(t, vectors, (n) => [['group', { value: { i64: n % 2 } }]]);
    await t.write(
      [
        q('x', {
          set_property: { input: { nodes: { reference: { ids: [ids[5]!] } } }, name: 'emb', value: { value: { f32_array: vectors[9] } } },
        }),
      ],
      [],
    );
    const top = (await t.read([q('x', vsearch(vectors[9]!, 2))], ['x'])).x;
    assert.deepEqual(
      top.map((r: { $id: number }) => r.$id).sort((a: number, b: number) => a - b),
      [ids[5], ids[9]].sort((a, b) => a! - b!),
    );
    assert.equal((await t.read([q('x', vsearch(vectors[5]!, 1))], ['x'])).x[0].$distance > 0, true, 'the old vector is gone');
    const odd = { nodes_where: { predicate: { eq: { left: { property: 'group' }, right: { constant: { i64: 1 } } } } } };
    const within = {
      vector_search_nodes_within: {
        input: odd,
        label: 'Doc',
        property: 'emb',
        query_vector: { value: { f32_array: vectors[2] } },
        k: { literal: 5 },
      },
    };
    const rows = (await t.read([q('x', within)], ['x'])).x;
    assert.equal(rows.length, 5);
    for (const row of rows) assert.equal(ids.indexOf(row.$id) % 2, 1);
    const byParam = (await t.read([q('x', vsearch(null, 1))], ['x'], { v: vectors[7] })).x;
    assert.deepEqual(byParam, [{ $id: ids[7], $distance: 0 }]);
    assert.equal((await t.read([q('x', vsearch(vectors[0]!, 5000))], ['x'])).x.length, 50);
  } finally {
    await t.close();
  }
});

test('_within over a node scan: conjuncts on columns, on records, a where over it, other labels left out', async () => {
  const t = await openTestDb();
  try {
    await makeIndex(t, VEC);
    const vectors = randomVectors(300, 8, 13);
    const ids = await addDocs(t, vectors, (n) => [
      ['a', { value: { i64: n % 7 } }],
      ['b', { value: { i64: n % 5 } }],
    ]);
    await t.write([q(null, { add_n: { label: 'Other', properties: [['a', { value: { i64: 1 } }]] } })], []);
    const label = { eq: { left: { property: '$label' }, right: { constant: { string: 'Doc' } } } };
    const cases: [unknown, (n: number) => boolean][] = [
      [{ nodes_where: { predicate: { lt: { left: { property: 'a' }, right: { constant: { i64: 3 } } } } } }, (n) => n % 7 < 3],
      // A comparison of two properties is evaluated on each record.
      [
        { nodes_where: { predicate: { and: { predicates: [label, { lt: { left: { property: 'a' }, right: { property: 'b' } } }] } } } },
        (n) => n % 7 < n % 5,
      ],
      [
        {
          where: {
            input: { nodes_where: { predicate: label } },
            predicate: { eq: { left: { property: 'b' }, right: { constant: { i64: 2 } } } },
          },
        },
        (n) => n % 5 === 2,
      ],
    ];
    for (const [input, keep] of cases) {
      const chosen = new Map(ids.flatMap((id, n) => (keep(n) ? [[id, vectors[n]!] as [number, number[]]] : [])));
      for (const query of randomVectors(3, 8, 17)) {
        const within = { vector_search_nodes_within: { ...vsearch(query, 7).vector_search_nodes, input } };
        const got = (await t.read([q('x', within)], ['x'])).x as { $id: number }[];
        assert.deepEqual(
          got.map((h) => h.$id),
          bruteForce(chosen, query, 7),
        );
      }
    }
    // An edge search over a node scan is refused as before.
    const edges = {
      vector_search_edges_within: { ...vsearch(vectors[0]!, 3).vector_search_nodes, input: { nodes_where: { predicate: label } } },
    };
    await assert.rejects(t.read([q('x', edges)], ['x']), /index_not_found|ranks edges/);
  } finally {
    await t.close();
  }
});

test('search errors: missing or dropped index, vector input, k, tenant', async () => {
  const t = await openTestDb();
  try {
    await rejects400(
      t.read([q('x', vsearch([1, 0, 0, 0, 0, 0, 0, 0], 1))], ['x']),
      'index_not_found',
      /missing Node vector index for `Doc\.emb`/,
    );
    await makeIndex(t, VEC);
    await rejects400(
      t.read([q('x', vsearch([1, 0], 1))], ['x']),
      'invalid_vector_dimension',
      /query_vector: expected a vector of dimension 8, got 2/,
    );
    await rejects400(t.read([q('x', vsearch([1, 0, 0, 0, 0, 0, 0, 0], 0))], ['x']), 'invalid_search_result_count', /k/);
    const negative = { ...vsearch([1, 0, 0, 0, 0, 0, 0, 0], 1).vector_search_nodes, k: { expr: { constant: { i64: -1 } } } };
    await rejects400(t.read([q('x', { vector_search_nodes: negative })], ['x']), 'invalid_search_result_count_expression', /k/);
    const text = { ...vsearch(null, 1).vector_search_nodes, query_vector: { value: { string: 'x' } } };
    await rejects400(t.read([q('x', { vector_search_nodes: text })], ['x']), 'invalid_search_input', /query_vector/);
    await rejects400(t.read([q('x', vsearch(null, 1))], ['x'], { v: 'nope' }), 'invalid_search_input', /query_vector/);
    await rejects400(
      t.read([q('x', vsearch(null, 1))], ['x'], { v: [1, 2, 3, 4, 5, 6, 7, 1e39] }),
      'invalid_vector_component',
      /component 7/,
    );
    await rejects400(
      t.read([q('x', vsearch([1, 0, 0, 0, 0, 0, 0, 0], 1, { tenant_value: s('a') }))], ['x']),
      'invalid_search_tenant',
      /tenant/,
    );
    await rejects400(
      t.write([q('x', { add_n: { label: 'Doc', properties: [['emb', { value: { f32_array: [1, 2] } }]] } })], []),
      'invalid_vector_dimension',
      /Doc\.emb of node \d+/,
    );
    const drop = (await t.write([q('r', { drop_index: { spec: VEC } })], ['r'])).r;
    assert.equal(drop.kind, 'accepted');
    await rejects400(t.read([q('x', vsearch([1, 0, 0, 0, 0, 0, 0, 0], 1))], ['x']), 'index_not_found', /Doc\.emb/);
  } finally {
    await t.close();
  }
});

test('tenant partitions: a search sees only its tenant; a tenant-scoped index needs a tenant value', async () => {
  const t = await openTestDb();
  try {
    await makeIndex(t, { node_vector: { label: 'Doc', property: 'emb', dimension: 8, metric: 'cosine', tenant_property: 'tenant' } });
    const vectors = randomVectors(40, 8, 11);
    const ids = await addDocs(t, vectors, (n) => [['tenant', s(n < 20 ? 'a' : 'b')]]);
    const a = (await t.read([q('x', vsearch(vectors[25]!, 40, { tenant_value: s('a') }))], ['x'])).x.map((r: { $id: number }) => r.$id);
    assert.deepEqual(
      [...a].sort((x: number, y: number) => x - y),
      ids.slice(0, 20),
    );
    assert.deepEqual((await t.read([q('x', vsearch(vectors[0]!, 5, { tenant_value: s('zzz') }))], ['x'])).x, []);
    await rejects400(t.read([q('x', vsearch(vectors[0]!, 5))], ['x']), 'invalid_search_tenant_value', /tenant/);
  } finally {
    await t.close();
  }
});

const TEXT = { node_text: { label: 'Doc', property: 'body' } };
const tsearch = (text: string, k: number) => ({
  text_search_nodes: { label: 'Doc', property: 'body', query_text: { value: { string: text } }, k: { literal: k } },
});

test('text search: BM25 order and ties by id, _within, limits that commit nothing, a blocked build retried', async () => {
  const t = await openTestDb();
  try {
    const docs = ['the quick brown fox', 'the lazy dog', 'quick quick fox', 'unrelated words here', 'the quick brown fox'];
    await t.write(
      docs.map((body, n) => q(`d${n}`, { add_n: { label: 'Doc', properties: [['body', s(body)]] } })),
      [],
    );
    await makeIndex(t, TEXT);
    const rows = (await t.read([q('x', tsearch('Quick FOX', 10))], ['x'])).x;
    assert.deepEqual(
      rows.map((r: { $id: number }) => r.$id),
      [2, 0, 4],
    );
    assert.equal(rows[1].$score, rows[2].$score, 'equal documents tie, ordered by id');
    assert.ok(rows[0].$score > rows[1].$score);
    const within = {
      text_search_nodes_within: {
        input: { nodes: { reference: { ids: [4, 1] } } },
        label: 'Doc',
        property: 'body',
        query_text: { value: { string: 'fox dog' } },
        k: { literal: 5 },
      },
    };
    assert.deepEqual((await t.read([q('x', within)], ['x'])).x.map((r: { $id: number }) => r.$id).sort(), [1, 4]);
    await rejects400(t.read([q('x', tsearch('', 1))], ['x']), 'invalid_search_input', /query_text/);
    // A document with too many unique terms: 400, and the other node of the batch is not kept.
    const huge = Array.from({ length: 17_000 }, (_, n) => `w${n}`).join(' ');
    await rejects400(
      t.write(
        [
          q('ok', { add_n: { label: 'Doc', properties: [['body', s('fine')]] } }),
          q('big', { add_n: { label: 'Doc', properties: [['body', s(huge)]] } }),
        ],
        [],
      ),
      'active_text_mutation_limit_exceeded',
      /exceeds output_operations: observed \d+, limit 16384/,
    );
    assert.deepEqual((await t.read([q('x', tsearch('fine', 5))], ['x'])).x, []);
    // More than 8 MiB of text for one index in one write.
    const chunk = `${'x'.repeat(1000)} `.repeat(3000);
    await rejects400(
      t.write(
        Array.from({ length: 3 }, (_, n) => q(`c${n}`, { add_n: { label: 'Doc', properties: [['body', s(chunk)]] } })),
        [],
      ),
      'index_operation_batch_too_large',
      /8388608/,
    );
    // A build meeting an oversized existing row is blocked naming it; shortened and retried, it succeeds.
    await t.write([q('e', { add_n: { label: 'Note', properties: [['body', s(huge)]] } })], []);
    const receipt = (await t.write([create({ node_text: { label: 'Note', property: 'body' } })], ['r'])).r;
    const blocked = await poll(t, receipt.operation_id, ['blocked']);
    assert.equal(blocked.blocker_code, 'oversized_entity');
    assert.match(blocked.message, /node \d+/);
    await t.write(
      [
        q('e', {
          set_property: {
            input: { nodes_where: { predicate: { eq: { left: { property: '$label' }, right: { constant: { string: 'Note' } } } } } },
            name: 'body',
            value: s('short now'),
          },
        }),
      ],
      [],
    );
    await t.write([q('r', { retry_index_operation: { operation_id: receipt.operation_id } })], ['r']);
    await poll(t, receipt.operation_id);
    const notes = { text_search_nodes: { label: 'Note', property: 'body', query_text: { value: { string: 'short' } }, k: { literal: 1 } } };
    assert.equal((await t.read([q('x', notes)], ['x'])).x.length, 1);
  } finally {
    await t.close();
  }
});

test('text writes are searchable within their own batch, at once after it, and a failed batch leaves none', async () => {
  const t = await openTestDb();
  try {
    await makeIndex(t, TEXT);
    // Enough documents for full posting blocks of "common" (a batch applies its postings once, before it commits).
    const docs = Array.from({ length: 300 }, (_, n) =>
      q(`d${n}`, { add_n: { label: 'Doc', properties: [['body', s(n % 7 === 0 ? 'common rare' : 'common')]] } }),
    );
    const inBatch = (await t.write([...docs, q('x', tsearch('rare', 100))], ['x'])).x;
    assert.equal(inBatch.length, 43);
    assert.equal((await t.read([q('x', tsearch('common rare', 800))], ['x'])).x.length, 300);
    await rejects400(
      t.write(
        [
          q('a', { add_n: { label: 'Doc', properties: [['body', s('unseen words')]] } }),
          q('b', { add_n: { label: 'Doc', properties: [['body', s(Array.from({ length: 17_000 }, (_, n) => `w${n}`).join(' '))]] } }),
        ],
        [],
      ),
      'active_text_mutation_limit_exceeded',
      /output_operations/,
    );
    assert.deepEqual((await t.read([q('x', tsearch('unseen', 5))], ['x'])).x, []);
  } finally {
    await t.close();
  }
});

test('a vector queue at its bound answers 429 index_backpressure and keeps nothing of the write', async () => {
  const dir = tempDir('trellis-vector-queue-');
  const store = await openStore({ path: dir.path, vectorQueueEntries: 3 });
  try {
    const write = (entries: unknown[]) =>
      runWrite(store, preparePlan({ request_type: 'write', query: { write: { entries, returns: [] } } }), { timeoutMs: 10_000 });
    await write([create(VEC)]);
    for (let n = 0; n < 200; n++) {
      let active = false;
      store.read((r) => (active = r.indexCatalog().active('node_vector', 'Doc', 'emb') !== undefined));
      if (active) break;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const add = (v: number[]) => q('d', { add_n: { label: 'Doc', properties: [['emb', { value: { f32_array: v } }]] } });
    const five = randomVectors(5, 8, 5).map(add);
    await assert.rejects(
      write(five),
      (err: unknown) => err instanceof GraphError && err.code === 'index_backpressure' && err.status === 429,
    );
    let docs = -1;
    store.read((r) => (docs = [...r.nodeIdsByLabel('Doc')].length));
    assert.equal(docs, 0);
    await write(randomVectors(3, 8, 6).map(add));
  } finally {
    await store.close();
    dir.remove();
  }
});

test('an index of a label with no element is active at once: the writes after it in its batch are found right after the commit', async () => {
  const t = await openTestDb();
  try {
    const made = await t.write(
      [
        create(VEC),
        q('a', { add_n: { label: 'Doc', properties: [['emb', { value: { f32_array: [1, 0, 0, 0, 0, 0, 0, 0] } }]] } }),
        q('b', { add_n: { label: 'Doc', properties: [['emb', { value: { f32_array: [0, 1, 0, 0, 0, 0, 0, 0] } }]] } }),
      ],
      ['r'],
    );
    assert.equal(made.r.kind, 'accepted');
    const status = (await t.read([q('r', { get_index_operation: { operation_id: made.r.operation_id } })], ['r'])).r;
    assert.equal(status.status, 'succeeded');
    const hits = await t.read([q('r', vsearch([0, 1, 0, 0, 0, 0, 0, 0], 1))], ['r']);
    assert.deepEqual(hits.r, [{ $id: 1, $distance: 0 }]);
    // A label that holds elements is built in the background, as before.
    await t.write([q(null, { add_n: { label: 'Note', properties: [['text', s('hello')]] } })], []);
    const later = await t.write([create({ node_text: { label: 'Note', property: 'text' } })], ['r']);
    const status2 = (await t.read([q('r', { get_index_operation: { operation_id: later.r.operation_id } })], ['r'])).r.status;
    assert.ok(['queued', 'running', 'succeeded'].includes(status2), status2);
    await poll(t, later.r.operation_id);
    const hello = { text_search_nodes: { label: 'Note', property: 'text', query_text: { value: { string: 'hello' } }, k: { literal: 5 } } };
    assert.equal((await t.read([q('r', hello)], ['r'])).r.length, 1);
  } finally {
    await t.close();
  }
});

test('missing_index "empty": a search of an index that does not exist finds nothing; one that is not built yet is still an error', async () => {
  const t = await openTestDb();
  try {
    const empty = { missing_index: 'empty' };
    assert.deepEqual((await t.read([q('r', vsearch([1, 0, 0, 0, 0, 0, 0, 0], 3, empty))], ['r'])).r, []);
    const text = { text_search_nodes: { label: 'Doc', property: 'body', query_text: s('x'), k: { literal: 2 }, ...empty } };
    assert.deepEqual((await t.read([q('r', text)], ['r'])).r, []);
    await rejects400(t.read([q('r', vsearch([1, 0, 0, 0, 0, 0, 0, 0], 3))], ['r']), 'index_not_found', /vector_search_nodes/);
    await rejects400(
      t.read([q('r', vsearch([1, 0, 0, 0, 0, 0, 0, 0], 3, { missing_index: 'skip' }))], ['r']),
      'invalid_query_json',
      /vector_search_nodes\.missing_index/,
    );
    // A build blocked by a vector of the wrong length: the index exists, not active.
    await t.write([q(null, { add_n: { label: 'Doc', properties: [['emb', { value: { f32_array: [1, 0, 0] } }]] } })], []);
    await poll(t, (await t.write([create(VEC)], ['r'])).r.operation_id, ['blocked']);
    await rejects400(t.read([q('r', vsearch([1, 0, 0, 0, 0, 0, 0, 0], 3, empty))], ['r']), 'index_not_found', /vector_search_nodes/);
  } finally {
    await t.close();
  }
});
