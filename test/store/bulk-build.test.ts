/**
 * The bulk build (src/store/bulk-build.ts) writes what write batches write: the same graph
 * built both ways reads back the same through every reader path (records, columns,
 * adjacency in both directions and per label, hubs whose lists live on their own), and
 * the property maps it writes from columns decode to the values the store's codec gives.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { chainHash, entryHeader, openStore } from '../../src/store/index.js';
import { BulkBuild, type BulkColumn } from '../../src/store/bulk-build.js';
import { PropertyMapWriter } from '../../src/store/bulk-columns.js';
import { storePackr } from '../../src/store/codec.js';
import { chunkValue } from '../../src/store/columns.js';
import { DateTime, type Value, type ValueObject } from '../../src/core/value.js';
import type { SnapshotReader } from '../../src/store/types.js';
import { tempDir } from '../helpers/server.js';

/** Rows of a column as values (undefined: missing). */
function cells(column: BulkColumn, count: number): (Value | undefined)[] {
  return Array.from({ length: count }, (_, i) => {
    if (column.kind === 'value') return column.values[i];
    if (column.present !== null && column.present[i] === 0) return undefined;
    return column.kind === 'i64' ? BigInt(column.values[i]!) : column.values[i]!;
  });
}

function rowProps(columns: readonly BulkColumn[], count: number): ValueObject[] {
  const rows: ValueObject[] = Array.from({ length: count }, () => ({}));
  for (const c of columns) cells(c, count).forEach((v, i) => v !== undefined && (rows[i]![c.name] = v));
  return rows;
}

/** Everything a reader sees of a graph, ids included. */
function everything(r: SnapshotReader, nodes: number): unknown {
  const columns: unknown[] = [];
  for (const block of r.nodeColumns(['n', 'f', 's', 'x'])) {
    columns.push([
      block.base,
      Array.from(block.labels),
      block.columns.map((c) => (c === null ? null : Array.from({ length: 1024 }, (_, i) => chunkValue(c, i)))),
    ]);
  }
  const adjacency: unknown[] = [];
  for (let v = 0; v < nodes; v++) {
    adjacency.push([
      r.neighbourIds(v, 'out'),
      r.neighbourIds(v, 'in'),
      r.incidentEdgeIds(v, 'out', 'E'),
      r.incidentEdgeIds(v, 'in', 'F'),
      [...r.outEdges(v)].map((a) => [a.edge, a.label, a.other]),
    ]);
  }
  return {
    nodes: [...r.nodeRecords()],
    edges: [...r.edgeRecords()],
    counts: [r.nodeCount(), r.edgeCount()],
    byLabel: [[...r.nodeIdsByLabel('A')].length, [...r.nodeIdsByLabel('B')].length, [...r.edgeIdsByLabel('F')].length],
    columns,
    adjacency,
  };
}

test('a bulk build reads back exactly as the same graph written in batches', async () => {
  const dir = tempDir();
  try {
    // 1500 A nodes then 700 B nodes: chunks of 1024 that the two labels share, missing values.
    const a = 1500;
    const b = 700;
    const present = new Uint8Array(a).map((_, i) => (i % 3 === 0 ? 0 : 1));
    const aColumns: BulkColumn[] = [
      { name: 'n', kind: 'i64', values: Float64Array.from({ length: a }, (_, i) => i - 700), present },
      { name: 'f', kind: 'f64', values: Float64Array.from({ length: a }, (_, i) => (i === 5 ? -0 : i === 6 ? NaN : i / 7)), present: null },
      {
        name: 's',
        kind: 'value',
        values: Array.from({ length: a }, (_, i) => (i % 5 === 0 ? undefined : i % 2 ? `s${i % 4}` : `text ${i} 😀`)),
      },
    ];
    const bColumns: BulkColumn[] = [
      {
        name: 'x',
        kind: 'value',
        values: Array.from(
          { length: b },
          (_, i): Value =>
            [9007199254740993n, null, true, new DateTime(i), Float32Array.from([i, 0.5]), { k: [i] }, 'x'.repeat(300)][i % 7]!,
        ),
      },
      { name: 'n', kind: 'i64', values: Float64Array.from({ length: b }, (_, i) => i), present: null },
    ];
    // Edges: a hub (node 3) with 2000 in-edges of E, a few of F, edges without properties.
    const from: number[] = [];
    const to: number[] = [];
    for (let i = 0; i < 2000; i++) {
      from.push((i * 7) % (a + b));
      to.push(3);
    }
    for (let i = 0; i < 300; i++) {
      from.push(3);
      to.push((i * 13) % (a + b));
    }
    const eColumns: BulkColumn[] = [
      { name: 'w', kind: 'i64', values: Float64Array.from(from, (_, i) => i), present: new Uint8Array(from.length).map((_, i) => i % 2) },
    ];
    const fFrom = [1600, 10, 10];
    const fTo = [10, 1600, 10];

    const built = join(dir.path, 'built');
    const build = await BulkBuild.open({ target: built });
    assert.equal(build.addNodes('A', a, aColumns), 0);
    assert.equal(build.addNodes('B', b, bColumns), a);
    assert.equal(build.addEdges('E', Float64Array.from(from), Float64Array.from(to), from.length, eColumns), 0);
    assert.equal(build.addEdges('F', Float64Array.from(fFrom), Float64Array.from(fTo), 3, []), from.length);
    assert.deepEqual(build.nextIds, { node: a + b, edge: from.length + 3 });
    await build.finish();

    const batched = await openStore({ path: join(dir.path, 'batched') });
    await batched.write((w) => {
      for (const p of rowProps(aColumns, a)) w.createNode('A', p);
      for (const p of rowProps(bColumns, b)) w.createNode('B', p);
      rowProps(eColumns, from.length).forEach((p, i) => w.createEdge('E', from[i]!, to[i]!, p));
      fFrom.forEach((x, i) => w.createEdge('F', x, fTo[i]!, {}));
    });
    const want = batched.read((r) => everything(r, a + b));
    await batched.close();
    const got = await openStore({ path: built, readOnly: true });
    try {
      assert.deepStrictEqual(
        got.read((r) => everything(r, a + b)),
        want,
      );
    } finally {
      await got.close();
    }
  } finally {
    dir.remove();
  }
});

test('property maps written from columns decode to the values, every kind and size of header', () => {
  const long = 'é'.repeat(40_000);
  const columns: BulkColumn[] = [
    { name: 'i', kind: 'i64', values: Float64Array.from([-(2 ** 53) + 1, 0, 5]), present: null },
    { name: 'f', kind: 'f64', values: Float64Array.from([-0, NaN, 1e308]), present: Uint8Array.from([1, 1, 0]) },
    { name: 'v', kind: 'value', values: ['short', 'x'.repeat(200), long] },
    { name: 'o', kind: 'value', values: [{ nested: [1n, null] }, false, undefined] },
    ...Array.from({ length: 16 }, (_, k): BulkColumn => ({ name: `p${k}`, kind: 'value', values: [k, null, true] })),
  ];
  const writer = new PropertyMapWriter(columns);
  const decoded = [0, 1, 2].map((i) => storePackr.unpack(writer.nodeRecord([5, 200, 70_000][i]!, i)) as [number, ValueObject]);
  assert.deepStrictEqual(
    decoded.map((d) => d[0]),
    [5, 200, 70_000],
  );
  const extras = (row: number) => Object.fromEntries(Array.from({ length: 16 }, (_, k) => [`p${k}`, [k, null, true][row]!]));
  assert.deepStrictEqual(decoded[0]![1], { i: -(2n ** 53n) + 1n, f: -0, v: 'short', o: { nested: [1n, null] }, ...extras(0) });
  assert.deepStrictEqual(decoded[1]![1], { i: 0n, f: NaN, v: 'x'.repeat(200), o: false, ...extras(1) });
  assert.deepStrictEqual(decoded[2]![1], { i: 5n, v: long, ...extras(2) });
  writer.reset();
  writer.uint(300);
  assert.equal(storePackr.unpack(writer.bytes()), 300);
  // A string of 16-bit length (str16), the one header size the rows above leave out.
  writer.reset();
  writer.value('z'.repeat(1000));
  assert.equal(writer.bytes()[0], 0xda);
  assert.equal(storePackr.unpack(writer.bytes()), 'z'.repeat(1000));
});

test('a bulk build refuses a target with data, and names it', async () => {
  const dir = tempDir();
  try {
    const store = await openStore({ path: dir.path });
    await store.write((w) => void w.createNode('A', {}));
    await store.close();
    await assert.rejects(BulkBuild.open({ target: dir.path }), /is not empty \(1 nodes, 0 edges\)/);
    const empty = join(dir.path, 'other');
    const build = await BulkBuild.open({ target: empty });
    assert.throws(() => build.addNodes('', 1, []), /a label name is empty/);
    await build.abort();
    await build.abort();
    assert.throws(() => build.addNodes('A', 1, []), /the bulk build is closed/);
  } finally {
    dir.remove();
  }
});

test('a bulk build continues the target history with a reset entry, chained, that replicas and replays recognise', async () => {
  const dir = tempDir();
  try {
    const store = await openStore({ path: dir.path });
    const id = await store.write((w) => w.createNode('A', {}));
    await store.write((w) => void w.deleteNode(id));
    const before = store.logPosition();
    await store.close();
    assert.equal(before.lsn, 2);
    const build = await BulkBuild.open({ target: dir.path });
    build.addNodes('B', 3, []);
    await build.finish();
    const after = await openStore({ path: dir.path });
    try {
      const position = after.logPosition();
      assert.equal(position.lsn, 3, 'the import is one entry after the history it replaced');
      const [reset] = after.logEntries(3, 10);
      assert.ok(reset !== undefined, 'the reset entry is kept for a publisher');
      const header = entryHeader(reset.entry);
      assert.deepEqual([header.lsn, header.count, header.epoch], [3, 0, before.epoch]);
      assert.deepEqual(reset.hash, chainHash(before.hash, reset.entry), 'it chains to the replaced history');
      assert.deepEqual(position.hash, reset.hash);
      assert.equal(
        after.read((r) => r.nodeCount()),
        3,
      );
      // The next batch follows it.
      assert.equal((await after.writeLogged((w) => w.createNode('C', {}))).lsn, 4);
    } finally {
      await after.close();
    }
    // A replica that followed the old history meets the reset and needs a snapshot.
    const replicaDir = join(dir.path, 'replica');
    const source = await openStore({ path: dir.path });
    const [resetRow] = source.logEntries(3, 1);
    await source.close();
    const replica = await openStore({ path: replicaDir, replica: true });
    try {
      await replica.setLogPosition(before);
      await assert.rejects(replica.applyEntries([resetRow!]), (err: Error) => {
        assert.equal(err.name, 'LogMismatch');
        assert.match(err.message, /entry 3 replaced the writer's data outside the log \(an offline import\): a new snapshot is needed/);
        return true;
      });
    } finally {
      await replica.close();
    }
  } finally {
    dir.remove();
  }
});
