/**
 * A pooled reader thread parks in Atomics.wait between tasks and never runs lmdb-js's timer
 * that would release its read snapshot. Any snapshot it kept while parked would stop LMDB
 * from reusing pages freed by later commits, and the file would grow with every write (a
 * 10M-edge HTTP load reached 13.9 GB for 1.3 GB of data before this was fixed). These tests
 * park a reader after opening and after a read, commit from another thread, and read
 * LMDB's reader table: no slot may still hold a transaction.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { openStore } from '../../src/store/index.js';
import { heldReadTxnIds } from '../helpers/lmdb-readers.js';
import { tempDir } from '../helpers/server.js';

const dirs: { remove(): void }[] = [];
after(() => dirs.forEach((d) => d.remove()));

// Opens the store read-only, optionally reads once, then parks until told to finish.
const WORKER = `
const { workerData, parentPort } = require('node:worker_threads');
(async () => {
  const { openStore } = await import(workerData.storeUrl);
  const store = await openStore({ path: workerData.path, readOnly: true });
  const flag = new Int32Array(workerData.flag);
  const seen = workerData.read ? store.read((r) => r.nodeCount()) : null;
  Atomics.store(flag, 0, 1);
  Atomics.notify(flag, 0);
  Atomics.wait(flag, 0, 1);
  parentPort.postMessage({ seen });
  await store.close();
})().catch((err) => parentPort.postMessage({ error: String(err && err.stack || err) }));
`;

async function parkedReaderHoldsNothing(readFirst: boolean): Promise<void> {
  const dir = tempDir('trellis-store-readers-');
  dirs.push(dir);
  const store = await openStore({ path: dir.path });
  await store.write((w) => w.createNode('N', {}));
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const storeUrl = new URL('../../src/store/index.js', import.meta.url).href;
  const worker = new Worker(WORKER, { eval: true, workerData: { storeUrl, path: dir.path, flag: flag.buffer, read: readFirst } });
  const result = new Promise<Record<string, unknown>>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  const deadline = Date.now() + 10_000;
  while (Atomics.load(flag, 0) !== 1) {
    if (Date.now() > deadline) throw new Error('reader worker did not park');
    await new Promise((resolve) => setTimeout(resolve, 1));
  }
  for (let n = 0; n < 3; n++) await store.write((w) => w.createNode('N', {}));
  // This thread's own lmdb-js snapshot is released on a timer: wait for it (up to 5 s, on a
  // busy machine), while the reader stays parked. A snapshot the parked thread held would
  // stay in the table however long this waits.
  let held = heldReadTxnIds(dir.path);
  for (const until = Date.now() + 5000; held.length > 0 && Date.now() < until; held = heldReadTxnIds(dir.path)) {
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  Atomics.store(flag, 0, 2);
  Atomics.notify(flag, 0);
  const out = await result;
  await new Promise((resolve) => worker.once('exit', resolve));
  await store.close();
  assert.equal(out['error'], undefined, String(out['error']));
  if (readFirst) assert.equal(out['seen'], 1);
  assert.deepEqual(held, [], 'a parked reader thread still holds a read snapshot');
}

test('a reader thread parked right after opening holds no read snapshot', async () => {
  await parkedReaderHoldsNothing(false);
});

test('a reader thread parked after a read holds no read snapshot', async () => {
  await parkedReaderHoldsNothing(true);
});
