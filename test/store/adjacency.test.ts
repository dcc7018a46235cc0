/**
 * Adjacency in node blocks (32 nodes' lists per value) and large lists (their own keys,
 * past 128 pairs): every read agrees with a plain model through appends, moves to the
 * large-list store, removals and node deletions, within a batch and after commits.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { open } from 'lmdb';
import { openStore } from '../../src/store/index.js';
import type { Adjacent, GraphReader, Store } from '../../src/store/types.js';
import { tempDir } from '../helpers/server.js';

const dirs: { remove(): void }[] = [];
after(() => dirs.forEach((d) => d.remove()));

async function fresh(): Promise<{ store: Store; path: string }> {
  const dir = tempDir('trellis-adjacency-');
  dirs.push(dir);
  return { store: await openStore({ path: dir.path }), path: dir.path };
}

/** A small deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 2 ** 32;
  };
}

const LABELS = ['A', 'B', 'C'];

interface ModelEdge {
  readonly id: number;
  readonly label: string;
  readonly from: number;
  readonly to: number;
}

/** What outEdges/inEdges must return: label by label (ids of first use), each in edge id order. */
function expected(edges: Iterable<ModelEdge>, node: number, dir: 'out' | 'in', label?: string): Adjacent[] {
  const out: Adjacent[] = [];
  for (const e of edges) {
    const here = dir === 'out' ? e.from : e.to;
    if (here !== node || (label !== undefined && e.label !== label)) continue;
    out.push({ edge: e.id, label: e.label, other: dir === 'out' ? e.to : e.from });
  }
  return out.sort((a, b) => LABELS.indexOf(a.label) - LABELS.indexOf(b.label) || a.edge - b.edge);
}

function checkNode(r: GraphReader, model: Map<number, ModelEdge>, node: number, where: string): void {
  for (const dir of ['out', 'in'] as const) {
    const read = (label?: string) => [...(dir === 'out' ? r.outEdges(node, label) : r.inEdges(node, label))];
    assert.deepEqual(read(), expected(model.values(), node, dir), `${where}: ${dir} edges of node ${node}`);
    for (const label of LABELS)
      assert.deepEqual(read(label), expected(model.values(), node, dir, label), `${where}: ${dir} ${label} edges of node ${node}`);
  }
}

for (const seed of [1, 2, 3]) {
  test(`random appends, removals and node deletions agree with a model (seed ${seed})`, async () => {
    const { store } = await fresh();
    const rand = random(seed);
    const nodes = 150; // five blocks, the last one partly filled
    // Hubs at slot 0, slot 31 (the mask's top bit) and mid-block gather most edges, so their
    // lists pass 128 (moved to the large-list store) and 1024 (a second chunk there).
    const hubs = [31, 32, 70];
    const model = new Map<number, ModelEdge>();
    const alive = new Set<number>();
    await store.write((w) => {
      for (let i = 0; i < nodes; i++) alive.add(w.createNode('N', {}));
      // Every label once, in LABELS order, so label ids follow it.
      LABELS.forEach((label, i) => model.set(w.createEdge(label, i, i + 1, {}), { id: model.size, label, from: i, to: i + 1 }));
    });
    const pick = (): number => {
      const live = [...alive];
      return rand() < 0.4
        ? (hubs.find((h) => alive.has(h) && rand() < 0.5) ?? live[Math.floor(rand() * live.length)]!)
        : live[Math.floor(rand() * live.length)]!;
    };
    for (let batch = 0; batch < 12; batch++) {
      const rollBack = batch % 5 === 4;
      const draft = new Map(model);
      const draftAlive = new Set(alive);
      const attempt = store.write((w) => {
        const adds = batch === 6 ? 1500 : 200 + Math.floor(rand() * 200);
        for (let k = 0; k < adds; k++) {
          const [from, to] = batch === 6 ? [32, pick()] : [pick(), pick()];
          if (!draftAlive.has(from) || !draftAlive.has(to)) continue;
          const label = LABELS[Math.floor(rand() * LABELS.length)]!;
          const id = w.createEdge(label, from, to, {});
          draft.set(id, { id, label, from, to });
        }
        // Read-your-writes in the middle of the batch, then removals.
        checkNode(w, draft, hubs[batch % hubs.length]!, `batch ${batch}, before removals`);
        const ids = [...draft.keys()];
        for (let k = 0; k < 40; k++) {
          const id = ids[Math.floor(rand() * ids.length)]!;
          assert.equal(w.deleteEdge(id), draft.has(id), `batch ${batch}: deleteEdge(${id})`);
          draft.delete(id);
        }
        if (batch % 3 === 2) {
          const victim = batch === 8 ? 70 : [...draftAlive][Math.floor(rand() * draftAlive.size)]!;
          assert.equal(w.deleteNode(victim), true);
          draftAlive.delete(victim);
          for (const [id, e] of draft) if (e.from === victim || e.to === victim) draft.delete(id);
        }
        checkNode(w, draft, hubs[(batch + 1) % hubs.length]!, `batch ${batch}, after removals`);
        if (rollBack) throw new Error('rolled back on purpose');
      });
      if (rollBack) {
        await assert.rejects(attempt, /on purpose/);
      } else {
        await attempt;
        model.clear();
        for (const [id, e] of draft) model.set(id, e);
        alive.clear();
        for (const n of draftAlive) alive.add(n);
      }
      store.read((r) => {
        for (let n = 0; n < nodes; n++) checkNode(r, model, n, `after batch ${batch}`);
        assert.equal(r.edgeCount(), model.size);
      });
    }
    await store.close();
  });
}

/** Keys of one sub-database of a closed store. */
function keyCount(path: string, name: string): number {
  const env = open({ path, maxDbs: 128, readOnly: true });
  try {
    return env.openDB(name, { keyEncoding: 'binary', encoding: 'binary' }).getKeysCount();
  } finally {
    void env.close();
  }
}

test('a list moves to its own keys past 128 pairs, and leaves them when its node is deleted', async () => {
  const { store, path } = await fresh();
  await store.write((w) => {
    for (let i = 0; i < 200; i++) w.createNode('N', {});
    for (let i = 1; i <= 128; i++) w.createEdge('E', 0, i, {});
  });
  await store.close();
  // Node 0's out-list (128 pairs) is inline; 128 in-lists of one pair each share blocks.
  assert.equal(keyCount(path, 'adjacency_lists'), 0);
  assert.equal(keyCount(path, 'adjacency'), 1 + 5); // out: block 0; in: blocks 0-4 (nodes 1-128)

  const again = await openStore({ path });
  await again.write((w) => w.createEdge('E', 0, 129, {}));
  await again.close();
  assert.equal(keyCount(path, 'adjacency_lists'), 1);

  const third = await openStore({ path });
  third.read((r) =>
    assert.deepEqual(
      r.neighbourIds(0, 'out'),
      Array.from({ length: 129 }, (_, i) => i + 1),
    ),
  );
  await third.write((w) => assert.equal(w.deleteNode(0), true));
  third.read((r) => {
    assert.deepEqual(r.neighbourIds(0, 'out'), []);
    assert.deepEqual(r.neighbourIds(129, 'in'), []);
  });
  await third.close();
  // No list and no block is left: every list the node touched is gone, and emptied blocks too.
  assert.equal(keyCount(path, 'adjacency_lists'), 0);
  assert.equal(keyCount(path, 'adjacency'), 0);
});

test('a folder of the previous format (per-list adjacency, format 2) is refused, naming both versions', async () => {
  const { store, path } = await fresh();
  await store.write((w) => w.createNode('N', {}));
  await store.close();
  const env = open({ path, maxDbs: 128 });
  await env.openDB('meta', {}).put('format_version', 2);
  await env.close();
  await assert.rejects(openStore({ path }), /format version 2, this build reads version 4/);
  await assert.rejects(openStore({ path, readOnly: true }), /format version 2, this build reads version 4/);
});

test('node ids stop below 2^52 (adjacency sorts keys of twice the id as exact doubles)', async () => {
  const { store, path } = await fresh();
  await store.close();
  const env = open({ path, maxDbs: 128 });
  await env.openDB('meta', {}).put('next_node', 2 ** 52 - 1);
  await env.close();
  const again = await openStore({ path });
  const last = await again.write((w) => {
    const a = w.createNode('N', {});
    w.createEdge('E', a, a, {});
    return a;
  });
  assert.equal(last, 2 ** 52 - 1);
  again.read((r) => assert.deepEqual(r.neighbourIds(last, 'out'), [last]));
  await assert.rejects(
    again.write((w) => w.createNode('N', {})),
    /node ids are exhausted/,
  );
  await again.close();
});
