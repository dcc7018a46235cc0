/** Graph layout on a real LMDB folder: ids, ordering of scans, cascades, counts, laziness. */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../src/store/index.js';
import type { Adjacent, Store } from '../../src/store/types.js';
import { tempDir } from '../helpers/server.js';

const dirs: { remove(): void }[] = [];
after(() => dirs.forEach((d) => d.remove()));

async function fresh(): Promise<{ store: Store; path: string }> {
  const dir = tempDir('trellis-store-');
  dirs.push(dir);
  return { store: await openStore({ path: dir.path }), path: dir.path };
}

const adj = (edge: number, label: string, other: number): Adjacent => ({ edge, label, other });

test('ids start at 0, are sequential, and continue after close and reopen', async () => {
  const { store, path } = await fresh();
  const ids = await store.write((w) => [w.createNode('A', {}), w.createNode('A', {}), w.createNode('B', {})]);
  assert.deepEqual(ids, [0, 1, 2]);
  assert.equal(await store.write((w) => w.createEdge('E', 0, 1, {})), 0);
  await store.close();
  const again = await openStore({ path });
  assert.deepEqual(await again.write((w) => [w.createNode('A', {}), w.createEdge('E', 1, 2, {})]), [3, 1]);
  assert.equal(
    again.read((r) => r.nodeCount()),
    4,
  );
  assert.equal(
    again.read((r) => r.edgeCount()),
    2,
  );
  await again.close();
});

test('a rolled-back batch may leave a gap but never reuses an id', async () => {
  const { store } = await fresh();
  await store.write((w) => w.createNode('A', {}));
  await assert.rejects(
    store.write((w) => {
      w.createNode('A', {});
      throw new Error('no');
    }),
  );
  const next = await store.write((w) => w.createNode('A', {}));
  assert.ok(next >= 1);
  assert.deepEqual(
    store.read((r) => [...r.nodeIds()]),
    [0, next],
  );
  await store.close();
});

test('node and label scans are ascending by numeric id, and labels that prefix others stay apart', async () => {
  const { store } = await fresh();
  await store.write((w) => {
    for (let i = 0; i <= 1000; i++) w.createNode(i % 3 === 0 ? 'A' : i % 3 === 1 ? 'AB' : '', {});
    for (let i = 0; i < 300; i++) w.createEdge(i % 2 === 0 ? 'A' : 'AB', i, i + 1, {});
  });
  const range = (from: number, to: number, pred: (i: number) => boolean) =>
    Array.from({ length: to - from + 1 }, (_, k) => from + k).filter(pred);
  store.read((r) => {
    assert.deepEqual(
      [...r.nodeIds()],
      range(0, 1000, () => true),
    );
    assert.deepEqual(
      [...r.nodeIdsByLabel('A')],
      range(0, 1000, (i) => i % 3 === 0),
    );
    assert.deepEqual(
      [...r.nodeIdsByLabel('AB')],
      range(0, 1000, (i) => i % 3 === 1),
    );
    assert.deepEqual(
      [...r.nodeIdsByLabel('')],
      range(0, 1000, (i) => i % 3 === 2),
    );
    assert.deepEqual([...r.nodeIdsByLabel('B')], []);
    assert.deepEqual(
      [...r.edgeIds()],
      range(0, 299, () => true),
    );
    assert.deepEqual(
      [...r.edgeIdsByLabel('A')],
      range(0, 299, (i) => i % 2 === 0),
    );
    assert.deepEqual(
      [...r.edgeIdsByLabel('AB')],
      range(0, 299, (i) => i % 2 === 1),
    );
    assert.equal(r.nodeCount(), 1001);
    assert.equal(r.edgeCount(), 300);
  });
  await store.close();
});

test('adjacency: one label in edge id order, all labels label by label; neighbours ascending and distinct', async () => {
  const { store } = await fresh();
  await store.write((w) => {
    for (let i = 0; i < 20; i++) w.createNode('N', {});
    // Labels first used in the order AB, A, B.
    w.createEdge('AB', 9, 12, {}); // 0
    w.createEdge('A', 9, 11, {}); // 1
    w.createEdge('A', 9, 2, {}); // 2
    w.createEdge('A', 9, 11, {}); // 3 (parallel edge)
    w.createEdge('B', 9, 9, {}); // 4 (self-loop)
    w.createEdge('A', 8, 9, {}); // 5
    w.createEdge('A', 10, 9, {}); // 6
    w.createEdge('A', 2, 9, {}); // 7
    w.createEdge('A', 1, 10, {}); // 8
  });
  store.read((r) => {
    assert.deepEqual([...r.outEdges(9, 'A')], [adj(1, 'A', 11), adj(2, 'A', 2), adj(3, 'A', 11)]);
    assert.deepEqual([...r.outEdges(9, 'AB')], [adj(0, 'AB', 12)]);
    assert.deepEqual([...r.outEdges(9, 'C')], []);
    assert.deepEqual([...r.outEdges(9)], [adj(0, 'AB', 12), adj(1, 'A', 11), adj(2, 'A', 2), adj(3, 'A', 11), adj(4, 'B', 9)]);
    assert.deepEqual([...r.inEdges(9)], [adj(5, 'A', 8), adj(6, 'A', 10), adj(7, 'A', 2), adj(4, 'B', 9)]);
    assert.deepEqual([...r.inEdges(9, 'A')], [adj(5, 'A', 8), adj(6, 'A', 10), adj(7, 'A', 2)]);
    assert.deepEqual([...r.outEdges(1)], [adj(8, 'A', 10)]);
    assert.deepEqual([...r.outEdges(0)], []);
    assert.deepEqual(r.neighbourIds(9, 'out'), [2, 9, 11, 12]);
    assert.deepEqual(r.neighbourIds(9, 'out', 'A'), [2, 11]);
    assert.deepEqual(r.neighbourIds(9, 'in'), [2, 8, 9, 10]);
    assert.deepEqual(r.neighbourIds(9, 'in', 'Nope'), []);
    assert.deepEqual(r.incidentEdgeIds(9, 'out'), [0, 1, 2, 3, 4]);
    assert.deepEqual(r.incidentEdgeIds(9, 'in', 'A'), [5, 6, 7]);
    assert.deepEqual(r.getEdge(4), { id: 4, label: 'B', from: 9, to: 9, props: {} });
  });
  await store.close();
});

test('a list longer than one chunk reads whole, in order, and loses single edges cleanly', async () => {
  const { store } = await fresh();
  const n = 2500; // three chunks of up to 1024
  await store.write((w) => {
    for (let i = 0; i <= n; i++) w.createNode('N', {});
    for (let i = 1; i <= 1500; i++) w.createEdge('E', 0, i, {});
  });
  // A later batch appends to the last chunk, another removes edges from the first and the middle.
  await store.write((w) => {
    for (let i = 1501; i <= n; i++) w.createEdge('E', 0, i, {});
  });
  await store.write((w) => {
    assert.equal(w.deleteEdge(0), true);
    assert.equal(w.deleteEdge(1500), true);
  });
  store.read((r) => {
    const expected = Array.from({ length: n }, (_, k) => k + 1).filter((i) => i !== 1 && i !== 1501);
    assert.deepEqual(r.neighbourIds(0, 'out', 'E'), expected);
    assert.deepEqual(
      r.incidentEdgeIds(0, 'out'),
      expected.map((i) => i - 1),
    );
    assert.deepEqual(r.neighbourIds(1501, 'in'), []);
    assert.deepEqual(r.neighbourIds(2, 'in'), [0]);
    assert.equal(r.edgeCount(), n - 2);
  });
  await store.close();
});

test('deleteNode removes the node, its label entry and every incident edge everywhere', async () => {
  const { store } = await fresh();
  await store.write((w) => {
    for (let i = 0; i < 4; i++) w.createNode(i === 1 ? 'Hub' : 'N', {});
    w.createEdge('E', 1, 0, {}); // 0
    w.createEdge('F', 2, 1, {}); // 1
    w.createEdge('E', 1, 1, {}); // 2 self-loop
    w.createEdge('E', 2, 3, {}); // 3 untouched
  });
  assert.equal(await store.write((w) => w.deleteNode(1)), true);
  assert.equal(await store.write((w) => w.deleteNode(1)), false);
  store.read((r) => {
    assert.equal(r.getNode(1), undefined);
    assert.equal(r.hasNode(1), false);
    assert.deepEqual([...r.nodeIdsByLabel('Hub')], []);
    assert.deepEqual([...r.nodeIds()], [0, 2, 3]);
    assert.deepEqual([...r.edgeIds()], [3]);
    assert.deepEqual([...r.edgeIdsByLabel('E')], [3]);
    assert.deepEqual([...r.edgeIdsByLabel('F')], []);
    for (const id of [0, 1, 2]) assert.equal(r.hasEdge(id), false);
    assert.deepEqual([...r.inEdges(0)], []);
    assert.deepEqual([...r.outEdges(2)], [adj(3, 'E', 3)]);
    assert.deepEqual([...r.inEdges(1)], []);
    assert.deepEqual([...r.outEdges(1)], []);
    assert.equal(r.nodeCount(), 3);
    assert.equal(r.edgeCount(), 1);
  });
  assert.equal(await store.write((w) => w.deleteEdge(3)), true);
  assert.equal(await store.write((w) => w.deleteEdge(3)), false);
  store.read((r) => {
    assert.deepEqual([...r.outEdges(2)], []);
    assert.deepEqual([...r.inEdges(3)], []);
    assert.equal(r.edgeCount(), 0);
  });
  await store.close();
});

test('putNode moves the label entry; putEdgeProps keeps label and endpoints', async () => {
  const { store } = await fresh();
  await store.write((w) => {
    w.createNode('Old', { a: 1n });
    w.createNode('Old', {});
    w.createEdge('E', 0, 1, { w: 1 });
  });
  await store.write((w) => {
    w.putNode({ id: 0, label: 'New', props: { a: 2n } });
    w.putEdgeProps(0, { w: 2 });
  });
  store.read((r) => {
    assert.deepEqual(r.getNode(0), { id: 0, label: 'New', props: { a: 2n } });
    assert.deepEqual([...r.nodeIdsByLabel('Old')], [1]);
    assert.deepEqual([...r.nodeIdsByLabel('New')], [0]);
    assert.deepEqual(r.getEdge(0), { id: 0, label: 'E', from: 0, to: 1, props: { w: 2 } });
    assert.equal(r.nodeCount(), 2);
  });
  await assert.rejects(
    store.write((w) => w.putNode({ id: 7, label: 'X', props: {} })),
    /does not exist/,
  );
  await store.close();
});

test('edge blocks keep every edge property when edits within a batch reorder them', async () => {
  const { store } = await fresh();
  // 600 edges over three blocks of 256, written in id order; then, in the same batch, new
  // properties for some (their bytes move to the end of the block's arena) and a removal.
  const expected = new Map<number, Record<string, unknown>>();
  await store.write((w) => {
    w.createNode('N', {});
    w.createNode('N', {});
    for (let i = 0; i < 600; i++)
      expected.set(w.createEdge('E', i % 2, 1 - (i % 2), i % 7 === 0 ? {} : { i: BigInt(i), s: 'x'.repeat(i % 40) }), {});
    for (const [id] of expected) expected.set(id, id % 7 === 0 ? {} : { i: BigInt(id), s: 'x'.repeat(id % 40) });
    for (const id of [3, 300, 599]) {
      w.putEdgeProps(id, { moved: BigInt(id) });
      expected.set(id, { moved: BigInt(id) });
    }
    w.deleteEdge(10);
    expected.delete(10);
  });
  // A later batch edits a stored block: decoded, changed in the middle, written again.
  await store.write((w) => {
    w.putEdgeProps(100, { later: 'yes' });
    expected.set(100, { later: 'yes' });
  });
  store.read((r) => {
    for (let id = 0; id < 600; id++) {
      const edge = r.getEdge(id);
      if (!expected.has(id)) {
        assert.equal(edge, undefined, `edge ${id} was removed`);
        continue;
      }
      assert.deepEqual(edge, { id, label: 'E', from: id % 2, to: 1 - (id % 2), props: expected.get(id) }, `edge ${id}`);
    }
    assert.equal(r.edgeCount(), 599);
  });
  await store.close();
});

test('edgePropsReader gives what getEdge gives, over several blocks, and a batch sees its own edits', async () => {
  const { store } = await fresh();
  await store.write((w) => {
    w.createNode('N', {});
    w.createNode('N', {});
    for (let i = 0; i < 700; i++) w.createEdge('E', i % 2, 1 - (i % 2), i % 5 === 0 ? {} : { w: i / 8, s: 'x'.repeat(i % 30) });
    w.deleteEdge(300);
  });
  // Out of id order, twice, ids past the last block included; once keeping every block, once
  // keeping none (the reader drops its blocks past its bound and reads them again).
  const ids = Array.from({ length: 760 }, (_, i) => (i * 389) % 760);
  store.read((r) => {
    const edges = (r as unknown as { edgeReader: { propsReader(bytes?: number): (id: number) => unknown } }).edgeReader;
    for (const read of [r.edgePropsReader(), edges.propsReader(1)]) {
      for (const id of [...ids, ...ids]) assert.deepEqual(read(id), r.getEdge(id)?.props, `edge ${id}`);
    }
    assert.equal(r.edgePropsReader()(300), undefined);
  });
  await store.write((w) => {
    const read = w.edgePropsReader();
    assert.deepEqual(read(1), { w: 1 / 8, s: 'x' });
    w.putEdgeProps(1, { w: 2 });
    const added = w.createEdge('E', 0, 1, { w: 3 });
    w.deleteEdge(2);
    assert.deepEqual(read(1), { w: 2 });
    assert.deepEqual(w.edgePropsReader()(added), { w: 3 });
    assert.equal(w.edgePropsReader()(2), undefined);
  });
  await store.close();
});

test('a later batch appends to stored lists, the greatest node with a list included', async () => {
  const { store } = await fresh();
  await store.write((w) => {
    for (let i = 0; i < 3; i++) w.createNode('N', {});
    w.createEdge('E', 0, 1, {});
  });
  // Node 1 is the greatest node with a stored list (its in-list); node 2 has none yet.
  await store.write((w) => {
    w.createEdge('E', 0, 1, {});
    w.createEdge('E', 2, 1, {});
    w.createEdge('E', 1, 2, {});
  });
  store.read((r) => {
    assert.deepEqual([...r.inEdges(1)], [adj(0, 'E', 0), adj(1, 'E', 0), adj(2, 'E', 2)]);
    assert.deepEqual([...r.outEdges(0)], [adj(0, 'E', 1), adj(1, 'E', 1)]);
    assert.deepEqual([...r.outEdges(1)], [adj(3, 'E', 2)]);
    assert.deepEqual([...r.inEdges(2)], [adj(3, 'E', 1)]);
  });
  await store.close();
});

test('counts are correct inside a write transaction', async () => {
  const { store } = await fresh();
  const seen = await store.write((w) => {
    const a = w.createNode('A', {});
    const b = w.createNode('A', {});
    w.createEdge('E', a, b, {});
    const afterCreate = [w.nodeCount(), w.edgeCount()];
    w.deleteNode(a);
    return [...afterCreate, w.nodeCount(), w.edgeCount()];
  });
  assert.deepEqual(seen, [2, 1, 1, 0]);
  assert.deepEqual(
    store.read((r) => [r.nodeCount(), r.edgeCount()]),
    [1, 0],
  );
  await store.close();
});

test("scans in a write see the batch's earlier nodes and edges; scans are lazy iterators", async () => {
  const { store } = await fresh();
  const seen = await store.write((w) => {
    for (let i = 0; i < 2050; i++) w.createNode(i % 2 ? 'A' : 'B', {});
    w.createEdge('E', 0, 1, {});
    const ids = w.nodeIdsByLabel('A');
    assert.ok(!Array.isArray(ids), 'a generator, not an array');
    const firstFive: number[] = [];
    for (const id of ids) if (firstFive.push(id) === 5) break;
    return { firstFive, count: [...w.nodeIds()].length, edges: [...w.edgeIds()], out: w.neighbourIds(0, 'out') };
  });
  assert.deepEqual(seen, { firstFive: [1, 3, 5, 7, 9], count: 2050, edges: [0], out: [1] });
  await store.close();
});
