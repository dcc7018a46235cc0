/**
 * Read snapshots on a thread that never returns to its event loop, like a pooled worker
 * parked in Atomics.wait: each `read` must see the latest commit, and one `read` must keep
 * its snapshot while another thread commits.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { openStore } from '../../src/store/index.js';
import { tempDir } from '../helpers/server.js';
import { startSteppedReader } from '../helpers/stepped-reader.js';

const dir = tempDir('trellis-store-snap-');
after(() => dir.remove());

// The reader runs everything in one synchronous stretch after opening: no event turns.
const SCRIPT = `
  out.before = store.read((r) => r.nodeCount());
  step(1); // main commits node 1
  out.fresh = store.read((r) => [...r.nodeIds()]);
  out.within = store.read((r) => {
    const first = [...r.nodeIds()];
    step(3); // main commits node 2 while this read is open
    return { first, second: [...r.nodeIds()], count: r.nodeCount(), node2: r.getNode(2) ?? null };
  });
  out.next = store.read((r) => [...r.nodeIds()]);
`;

test('a blocked reader thread gets a fresh snapshot per read and a stable one within a read', async () => {
  const store = await openStore({ path: dir.path });
  await store.write((w) => w.createNode('N', {}));
  const reader = startSteppedReader(dir.path, SCRIPT);

  await reader.reached(1, 10_000);
  await store.write((w) => w.createNode('N', {}));
  reader.resume(2);

  await reader.reached(3, 10_000);
  await store.write((w) => w.createNode('N', {}));
  reader.resume(4);

  const out = await reader.result;
  assert.equal(out['error'], undefined, String(out['error']));
  assert.deepEqual(out, {
    before: 1,
    fresh: [0, 1],
    within: { first: [0, 1], second: [0, 1], count: 2, node2: null },
    next: [0, 1, 2],
  });
  await reader.exited;
  await store.close();
});
