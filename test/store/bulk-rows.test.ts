/**
 * Rows stored from columns (GraphWriter.createNodes / createEdges, the path of a for_each
 * over a row table, which is what /v2/import runs): the same elements as createNode and
 * createEdge of each row, logged so that a replica that applies the log equals the
 * writer, and seen by the indexes of their label.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { DateTime, type Value } from '../../src/core/value.js';
import { openStore, type BulkColumn, type Store } from '../../src/store/index.js';
import { cellsOf } from '../../src/store/bulk-columns.js';
import { tempDir } from '../helpers/server.js';
import { q } from '../helpers/embedded.js';
import { preparePlan, runWrite } from '../../src/database.js';
import { tableArray } from '../../src/core/row-table.js';
import { GraphError } from '../../src/core/errors.js';
import { LIMITS } from '../../src/plan/limits.js';
import { folderDigest } from '../helpers/replication.js';

const dirs: { remove(): void }[] = [];
after(() => dirs.forEach((d) => d.remove()));

const N = 40;

/** Columns of every kind, with absent cells, -0.0, NaN, the infinities and i64 beyond 2^53. */
function columns(): BulkColumn[] {
  const ints = new Float64Array(N);
  const present = new Uint8Array(N);
  const floats = new Float64Array(N);
  const values: (Value | undefined)[] = [];
  const specials = [-0, Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 1e308, 2.5];
  const others: (i: number) => Value | undefined = (i) =>
    [
      `text ${i}, "quoted" 😀`,
      null,
      true,
      2n ** 60n + BigInt(i),
      [1n, 'two', 3.5],
      new Float32Array([i, 0.5, -1]),
      new DateTime(1_700_000_000_000 + i),
      { nested: { k: BigInt(i) } },
      undefined,
    ][i % 9];
  for (let i = 0; i < N; i++) {
    ints[i] = i * 1000 - 7;
    present[i] = i % 4 === 3 ? 0 : 1;
    floats[i] = specials[i % specials.length]!;
    values.push(others(i));
  }
  return [
    { name: 'n', kind: 'i64', values: ints, present },
    { name: 'x', kind: 'f64', values: floats, present: null },
    { name: 'v', kind: 'value', values },
  ];
}

async function fresh(name: string, options: { keepLog?: boolean; replica?: boolean } = {}): Promise<{ store: Store; path: string }> {
  const dir = tempDir(`trellis-${name}-`);
  dirs.push(dir);
  return { store: await openStore({ path: dir.path, ...options }), path: dir.path };
}

test('nodes and edges stored from columns read back as row by row, and a replica of the log equals the writer', async () => {
  const writer = await fresh('bulk-rows', { keepLog: true });
  const replica = await fresh('bulk-rows-replica', { replica: true });
  const cols = columns();
  const { value: firsts } = await writer.store.writeLogged((w) => {
    const columnsFirst = w.createNodes('C', cols, 0, N);
    const rowsFirst = w.createNode('R', cellsOf(cols, 0));
    for (let i = 1; i < N; i++) w.createNode('R', cellsOf(cols, i));
    // Edges between the column-made nodes, one set from columns, one row by row.
    const from = Float64Array.from({ length: N }, (_, i) => columnsFirst + i);
    const to = Float64Array.from({ length: N }, (_, i) => columnsFirst + ((i * 7) % N));
    const edgesFirst = w.createEdges('CE', from, to, cols, 0, N);
    const rowEdgesFirst = w.createEdge('RE', from[0]!, to[0]!, cellsOf(cols, 0));
    for (let i = 1; i < N; i++) w.createEdge('RE', from[i]!, to[i]!, cellsOf(cols, i));
    return { columnsFirst, rowsFirst, edgesFirst, rowEdgesFirst };
  });
  // Rows [start, end) of the columns: the middle of a table, as a chunk of a large one.
  const { value: middle } = await writer.store.writeLogged((w) => w.createNodes('M', cols, 10, 25));
  writer.store.read((r) => {
    for (let i = 0; i < N; i++) {
      const made = r.getNode(firsts.columnsFirst + i)!;
      const rowMade = r.getNode(firsts.rowsFirst + i)!;
      assert.equal(made.label, 'C');
      assert.deepEqual(made.props, rowMade.props, `node row ${i}`);
      assert.deepEqual(made.props, cellsOf(cols, i));
      const edge = r.getEdge(firsts.edgesFirst + i)!;
      const rowEdge = r.getEdge(firsts.rowEdgesFirst + i)!;
      assert.deepEqual([edge.label, edge.from, edge.to], ['CE', rowEdge.from, rowEdge.to]);
      assert.deepEqual(edge.props, rowEdge.props, `edge row ${i}`);
    }
    for (let i = 10; i < 25; i++) assert.deepEqual(r.getNode(middle + i - 10)!.props, cellsOf(cols, i));
    assert.equal(r.getNode(middle + 15), undefined);
    // Adjacency both ways, in edge id order.
    const out = [...r.outEdges(firsts.columnsFirst + 1, 'CE')].map((a) => a.other);
    assert.deepEqual(out, [firsts.columnsFirst + 7]);
    const into = [...r.inEdges(firsts.columnsFirst, 'CE')].map((a) => a.edge);
    assert.deepEqual(into, [firsts.edgesFirst]);
    // Column reads (label scans and property filters) see them as the row-made nodes.
    assert.equal(r.nodeCount(), 2 * N + 15);
  });
  await replica.store.applyEntries(writer.store.logEntries(1, 1000));
  await replica.store.close();
  await writer.store.close();
  assert.deepEqual(folderDigest(replica.path), folderDigest(writer.path));
});

test('rows of a label an index watches go one by one, so the index has them', async () => {
  const { store } = await fresh('bulk-rows-index');
  try {
    await store.write((w) => w.createIndex({ kind: 'node_equality', label: 'C', property: 'n', unique: false } as never, false));
    for (let i = 0; i < 200 && store.read((r) => [...r.indexCatalog().byIdentity.values()].some((d) => d.state !== 'active')); i++) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    const cols = columns();
    const first = await store.write((w) => w.createNodes('C', cols, 0, N));
    store.read((r) => {
      const def = [...r.indexCatalog().byIdentity.values()][0]!;
      assert.equal(def.state, 'active');
      assert.deepEqual(r.secondaryEqual(def.id, 4993n, 10), [first + 5]);
    });
  } finally {
    await store.close();
  }
});

test('rows stored many at a time still count toward the for_each limit: past it the request fails and keeps nothing', async () => {
  const { store } = await fresh('bulk-rows-limit');
  try {
    const loop = { for_each: { param: 'rows', body: [q(null, { add_n: { label: 'L', properties: [['k', { expr: { param: 'k' } }]] } })] } };
    const body = (rows: unknown[]) => ({ request_type: 'write', query: { write: { entries: [loop], returns: [] } }, parameters: { rows } });
    const run = (n: number) => {
      const plan = preparePlan(body(Array.from({ length: 64 }, (_, k) => ({ k }))));
      // A table of n rows made directly (its k column typed), as the request parser makes one.
      const rows = tableArray({ length: n, keys: ['k'], columns: [{ kind: 'int', values: new Float64Array(n) }] });
      return runWrite(store, { ...plan, params: new Map([['rows', rows]]) }, { timeoutMs: 60_000 });
    };
    await assert.rejects(run(LIMITS.maxLoopIterations + 1), (err: unknown) => {
      assert.ok(err instanceof GraphError && err.code === 'limit_exceeded', String(err));
      assert.match(err.msg, /for_each loops may run at most 1000000 iterations per request/);
      return true;
    });
    assert.equal(
      store.read((r) => r.nodeCount()),
      0,
    );
    await run(LIMITS.maxLoopIterations);
    assert.equal(
      store.read((r) => r.nodeCount()),
      LIMITS.maxLoopIterations,
    );
  } finally {
    await store.close();
  }
});
