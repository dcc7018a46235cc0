/**
 * The server's read workers must not keep a read snapshot while they wait for work: a
 * write-only stream after one read would otherwise pin that snapshot, LMDB could reuse no
 * freed page, and the data file would grow without bound (docs/architecture.md).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { heldReadTxnIds } from '../helpers/lmdb-readers.js';
import { countLabel, post, readRequest, startTestServer, tempDir, writeRequest } from '../helpers/server.js';

test('read workers hold no LMDB snapshot between requests while writes go on', async () => {
  const dir = tempDir();
  const server = await startTestServer(['--data', dir.path, '--workers', '2']);
  try {
    const q = `${server.url}/v2/query`;
    const add = writeRequest([{ query: { root: { add_n: { label: 'Grow', properties: [] } } } }]);
    assert.equal((await post(q, add)).status, 200);
    // Reads on both workers, then only writes.
    const reads = await Promise.all([1, 2, 3, 4].map(() => post(q, readRequest([countLabel('c', 'Grow')], ['c']))));
    for (const r of reads) assert.deepEqual(r.body, { c: [1] });
    for (let i = 0; i < 5; i++) assert.equal((await post(q, add, { 'X-Svc-Await-Durable': 'true' })).status, 200);
    assert.deepEqual(heldReadTxnIds(dir.path), [], 'a read worker still holds a snapshot');
    const after = await post(q, readRequest([countLabel('c', 'Grow')], ['c']));
    assert.deepEqual(after.body, { c: [6] });
  } finally {
    await server.stop();
    dir.remove();
  }
});
