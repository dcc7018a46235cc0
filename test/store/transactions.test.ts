/** Write batches (child transactions, rollback, read-your-writes), read-only mode, flushes. */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { openStore } from '../../src/store/index.js';
import { tempDir } from '../helpers/server.js';

const dirs: { path: string; remove(): void }[] = [];
after(() => dirs.forEach((d) => d.remove()));

function newDir(): string {
  const dir = tempDir('trellis-store-txn-');
  dirs.push(dir);
  return dir.path;
}

test('a write that throws leaves nothing behind and rejects with the thrown error', async () => {
  const store = await openStore({ path: newDir() });
  await store.write((w) => w.createNode('Keep', {}));
  const boom = new Error('boom');
  await assert.rejects(
    store.write((w) => {
      const a = w.createNode('Gone', { x: 1n });
      const b = w.createNode('Gone', {});
      w.createEdge('E', a, b, {});
      w.putNode({ id: 0, label: 'Changed', props: { y: 2 } });
      w.deleteNode(0);
      throw boom;
    }),
    (err) => err === boom,
  );
  store.read((r) => {
    assert.deepEqual([...r.nodeIds()], [0]);
    assert.deepEqual(r.getNode(0), { id: 0, label: 'Keep', props: {} });
    assert.deepEqual([...r.nodeIdsByLabel('Gone')], []);
    assert.deepEqual([...r.nodeIdsByLabel('Changed')], []);
    assert.deepEqual([...r.edgeIds()], []);
    assert.equal(r.nodeCount(), 1);
    assert.equal(r.edgeCount(), 0);
  });
  await store.close();
});

test('concurrent writes in one event turn: the failing one rolls back, the others commit', async () => {
  const store = await openStore({ path: newDir() });
  const first = store.write((w) => w.createNode('A', { n: 1n }));
  const failing = store.write((w) => {
    w.createNode('B', {});
    throw new Error('second fails');
  });
  const third = store.write((w) => {
    // Sees the first batch (same LMDB transaction, committed child) but not the failed one.
    assert.deepEqual([...w.nodeIdsByLabel('B')], []);
    return [w.nodeCount(), w.createNode('C', {})];
  });
  const [a, b, c] = await Promise.allSettled([first, failing, third]);
  assert.deepEqual(a, { status: 'fulfilled', value: 0 });
  assert.equal(b.status, 'rejected');
  assert.equal(c.status, 'fulfilled');
  const [countSeen, cId] = c.value as number[];
  assert.equal(countSeen, 1);
  store.read((r) => {
    assert.deepEqual([...r.nodeIds()], [0, cId]);
    assert.deepEqual(r.getNode(0)?.props, { n: 1n });
    assert.equal(r.getNode(cId!)?.label, 'C');
    assert.equal(r.nodeCount(), 2);
  });
  await store.close();
});

test("inside a write, reads see the batch's own writes", async () => {
  const store = await openStore({ path: newDir() });
  await store.write((w) => {
    const a = w.createNode('P', { name: 'a' });
    const b = w.createNode('P', { name: 'b' });
    const e = w.createEdge('KNOWS', a, b, { since: 2020n });
    assert.deepEqual(w.getNode(a), { id: a, label: 'P', props: { name: 'a' } });
    assert.equal(w.hasEdge(e), true);
    assert.deepEqual([...w.nodeIdsByLabel('P')], [a, b]);
    assert.deepEqual([...w.outEdges(a)], [{ edge: e, label: 'KNOWS', other: b }]);
    assert.deepEqual([...w.inEdges(b, 'KNOWS')], [{ edge: e, label: 'KNOWS', other: a }]);
    w.putNode({ id: b, label: 'Q', props: {} });
    assert.deepEqual([...w.nodeIdsByLabel('Q')], [b]);
  });
  await store.close();
});

test('a read handle sees a commit made through another handle on the same folder', async () => {
  const path = newDir();
  const writer = await openStore({ path });
  const reader = await openStore({ path, readOnly: true });
  assert.equal(
    reader.read((r) => r.nodeCount()),
    0,
  );
  const id = await writer.write((w) => w.createNode('N', { v: 1n }));
  assert.deepEqual(
    reader.read((r) => r.getNode(id)),
    { id, label: 'N', props: { v: 1n } },
  );
  await reader.close();
  // Closing one handle leaves the other usable.
  assert.equal(
    writer.read((r) => r.nodeCount()),
    1,
  );
  await writer.close();
});

test('read-only: reads work, writes reject clearly, a missing folder fails to open', async () => {
  const path = newDir();
  const writer = await openStore({ path });
  await writer.write((w) => w.createNode('N', {}));
  await writer.close();
  const ro = await openStore({ path, readOnly: true });
  assert.equal(ro.readOnly, true);
  assert.equal(
    ro.read((r) => r.nodeCount()),
    1,
  );
  await assert.rejects(
    ro.write((w) => w.createNode('N', {})),
    /read-only/,
  );
  await ro.close();
  const missing = join(path, 'nope');
  await assert.rejects(openStore({ path: missing, readOnly: true }), /does not exist/);
  assert.equal(existsSync(missing), false);
  await assert.rejects(openStore({ path: newDir(), readOnly: true }), /holds no Trellis database/);
});

test('flushed resolves once the writes so far are on disk; close waits for pending writes', async () => {
  const path = newDir();
  const store = await openStore({ path });
  const pending = store.write((w) => w.createNode('N', {}));
  await store.flushed();
  assert.equal(await pending, 0);
  const late = store.write((w) => w.createNode('N', {}));
  await store.close();
  assert.equal(await late, 1);
  const again = await openStore({ path });
  assert.equal(
    again.read((r) => r.nodeCount()),
    2,
  );
  await again.close();
});

test('a closed store refuses work', async () => {
  const store = await openStore({ path: newDir() });
  await store.close();
  assert.throws(() => store.read((r) => r.nodeCount()), /closed/);
  await assert.rejects(
    store.write((w) => w.createNode('N', {})),
    /closed/,
  );
});

test('an async write function is refused and rolled back', async () => {
  const store = await openStore({ path: newDir() });
  await assert.rejects(
    store.write(async (w) => w.createNode('N', {})),
    /synchronous/,
  );
  assert.equal(
    store.read((r) => r.nodeCount()),
    0,
  );
  await store.close();
});

test('a data folder whose name has a dot (graph.db, mktemp -d names) opens as a folder', async () => {
  const path = join(newDir(), 'graph.db');
  const store = await openStore({ path });
  await store.write((w) => w.createNode('N', {}));
  await store.close();
  assert.equal(existsSync(join(path, 'data.mdb')), true);
  const ro = await openStore({ path, readOnly: true });
  ro.read((r) => assert.equal(r.nodeCount(), 1));
  await ro.close();
});
