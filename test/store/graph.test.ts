/** Graph layout on a real LMDB folder: ids, ordering of scans, cascades, counts, laziness. */
import { after, before, test } from 'node:test';
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
  assert.equal(again.read((r) => r.nodeCount()), 4);
  assert.equal(again.read((r) => r.edgeCount()), 2);
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
  assert.deepEqual(store.read((r) => [...r.nodeIds()]), [0, next]);
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
    assert.deepEqual([...r.nodeIds()], range(0, 1000, () => true));
    assert.deepEqual([...r.nodeIdsByLabel('A')], range(0, 1000, (i) => i % 3 === 0));
    assert.deepEqual([...r.nodeIdsByLabel('AB')], range(0, 1000, (i) => i % 3 === 1));
    assert.deepEqual([...r.nodeIdsByLabel('')], range(0, 1000, (i) => i % 3 === 2));
    assert.deepEqual([...r.nodeIdsByLabel('B')], []);
    assert.deepEqual([...r.edgeIds()], range(0, 299, () => true));
    assert.deepEqual([...r.edgeIdsByLabel('A')], range(0, 299, (i) => i % 2 === 0));
    assert.deepEqual([...r.edgeIdsByLabel('AB')], range(0, 299, (i) => i % 2 === 1));
    assert.equal(r.nodeCount(), 1001);
    assert.equal(r.edgeCount(), 300);
  });
  await store.close();
});

test('adjacency: with a label by (other, edge); without by (label, other, edge); neighbours never leak', async () => {
  const { store } = await fresh();
  await store.write((w) => {
    for (let i = 0; i < 20; i++) w.createNode('N', {});
    // Created out of order so the key order, not insertion order, shows.
    w.createEdge('AB', 9, 12, {}); // 0
    w.createEdge('A', 9, 11, {}); // 1
    w.createEdge('A', 9, 2, {}); // 2
    w.createEdge('A', 9, 11, {}); // 3 (parallel edge)
    w.createEdge('B', 9, 9, {}); // 4 (self-loop)
    w.createEdge('A', 8, 9, {}); // 5
    w.createEdge('A', 10, 9, {}); // 6
    w.createEdge('A', 2, 9, {}); // 7
    w.createEdge('A', 1, 10, {}); // 8: node 1 sits right before 10 in ordered-binary's byte order too
  });
  store.read((r) => {
    assert.deepEqual([...r.outEdges(9, 'A')], [adj(2, 'A', 2), adj(1, 'A', 11), adj(3, 'A', 11)]);
    assert.deepEqual([...r.outEdges(9, 'AB')], [adj(0, 'AB', 12)]);
    assert.deepEqual([...r.outEdges(9, 'C')], []);
    assert.deepEqual([...r.outEdges(9)], [adj(2, 'A', 2), adj(1, 'A', 11), adj(3, 'A', 11), adj(0, 'AB', 12), adj(4, 'B', 9)]);
    assert.deepEqual([...r.inEdges(9)], [adj(7, 'A', 2), adj(5, 'A', 8), adj(6, 'A', 10), adj(4, 'B', 9)]);
    assert.deepEqual([...r.inEdges(9, 'A')], [adj(7, 'A', 2), adj(5, 'A', 8), adj(6, 'A', 10)]);
    assert.deepEqual([...r.outEdges(1)], [adj(8, 'A', 10)]);
    assert.deepEqual([...r.outEdges(0)], []);
    assert.deepEqual(r.getEdge(4), { id: 4, label: 'B', from: 9, to: 9, props: {} });
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
  await assert.rejects(store.write((w) => w.putNode({ id: 7, label: 'X', props: {} })), /does not exist/);
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
  assert.deepEqual(store.read((r) => [r.nodeCount(), r.edgeCount()]), [1, 0]);
  await store.close();
});

test('scans are lazy: a cursor opened in a write sees nodes created after it started', async () => {
  const { store } = await fresh();
  const seen = await store.write((w) => {
    for (let i = 0; i < 10; i++) w.createNode('A', {});
    const it = w.nodeIds()[Symbol.iterator]();
    const first = it.next().value;
    w.createNode('A', {});
    const rest: number[] = [];
    for (let n = it.next(); !n.done; n = it.next()) rest.push(n.value);
    return [first, ...rest];
  });
  assert.deepEqual(seen, [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
  await store.close();
});

test('taking 5 of many ids reads only a few entries', async () => {
  const { store } = await fresh();
  await store.write((w) => {
    for (let i = 0; i < 50_000; i++) w.createNode('A', {});
    for (let i = 0; i < 50_000; i++) w.createEdge('E', 0, i, {});
  });
  const time = (f: () => void) => {
    const t = process.hrtime.bigint();
    f();
    return Number(process.hrtime.bigint() - t);
  };
  const take5 = (it: Iterable<unknown>) => {
    let n = 0;
    for (const _ of it) if (++n === 5) break;
  };
  store.read((r) => {
    const full = time(() => [...r.outEdges(0, 'E')]);
    const few = time(() => take5(r.outEdges(0, 'E')));
    // Reading everything takes milliseconds; five entries take microseconds.
    assert.ok(few * 20 < full, `take 5: ${few} ns, all: ${full} ns`);
    take5(r.nodeIdsByLabel('A'));
  });
  await store.close();
});
