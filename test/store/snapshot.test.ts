/**
 * Read snapshots on a thread that never returns to its event loop, like a pooled worker
 * parked in Atomics.wait: each `read` must see the latest commit, and one `read` must keep
 * its snapshot while another thread commits.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { openStore } from '../../src/store/index.js';
import { tempDir } from '../helpers/server.js';

const dir = tempDir('trellis-store-snap-');
after(() => dir.remove());

// The worker runs everything in one synchronous stretch after opening: no event turns.
const WORKER = `
const { workerData, parentPort } = require('node:worker_threads');
(async () => {
  const { openStore } = await import(workerData.storeUrl);
  const store = await openStore({ path: workerData.path, readOnly: true });
  const flag = new Int32Array(workerData.flag);
  const step = (n) => {
    Atomics.store(flag, 0, n);
    Atomics.notify(flag, 0);
    Atomics.wait(flag, 0, n);
  };
  const out = {};
  out.before = store.read((r) => r.nodeCount());
  step(1); // main commits node 1
  out.fresh = store.read((r) => [...r.nodeIds()]);
  out.within = store.read((r) => {
    const first = [...r.nodeIds()];
    step(3); // main commits node 2 while this read is open
    return { first, second: [...r.nodeIds()], count: r.nodeCount(), node2: r.getNode(2) ?? null };
  });
  out.next = store.read((r) => [...r.nodeIds()]);
  parentPort.postMessage(out);
  await store.close();
})().catch((err) => parentPort.postMessage({ error: String(err && err.stack || err) }));
`;

async function waitFor(flag: Int32Array, value: number): Promise<void> {
  const deadline = Date.now() + 10_000;
  while (Atomics.load(flag, 0) !== value) {
    if (Date.now() > deadline) throw new Error(`worker did not reach step ${value}`);
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
}

test('a blocked reader thread gets a fresh snapshot per read and a stable one within a read', async () => {
  const store = await openStore({ path: dir.path });
  await store.write((w) => w.createNode('N', {}));
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const storeUrl = new URL('../../src/store/index.js', import.meta.url).href;
  const worker = new Worker(WORKER, { eval: true, workerData: { storeUrl, path: dir.path, flag: flag.buffer } });
  const result = new Promise<Record<string, unknown>>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });

  await waitFor(flag, 1);
  await store.write((w) => w.createNode('N', {}));
  Atomics.store(flag, 0, 2);
  Atomics.notify(flag, 0);

  await waitFor(flag, 3);
  await store.write((w) => w.createNode('N', {}));
  Atomics.store(flag, 0, 4);
  Atomics.notify(flag, 0);

  const out = await result;
  assert.equal(out['error'], undefined, String(out['error']));
  assert.deepEqual(out, {
    before: 1,
    fresh: [0, 1],
    within: { first: [0, 1], second: [0, 1], count: 2, node2: null },
    next: [0, 1, 2],
  });
  await new Promise((resolve) => worker.once('exit', resolve));
  await store.close();
});
