/**
 * A writer's snapshot (Store.backup) is a file other stores then write into: a replica's
 * first snapshot becomes its data file, and a restore replays the log into its backup
 * (docs/replication.md). Here: a copy of a store with many free pages takes the entries
 * that follow it and ends equal to the writer. (Copies are not compacted: lmdb-js 3.5's
 * compacted copies aborted the process with an LMDB assertion, 'key.mv_size > 0' in
 * mdb_page_alloc, at writes into them; `bench/replication.ts --only snapshot --size medium`
 * showed it. This smaller case does not reach that assertion either way.)
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { mkdirSync, renameSync } from 'node:fs';
import { openStore } from '../../src/store/index.js';
import { tempDir } from '../helpers/server.js';
import { folderDigest } from '../helpers/replication.js';

test('a copy of a store with free pages takes the writes that follow it, and ends equal to the writer', async () => {
  const writerDir = tempDir('trellis-copy-writer-');
  const replicaDir = tempDir('trellis-copy-replica-');
  const writer = await openStore({ path: writerDir.path, keepLog: true });
  try {
    const ids: number[] = [];
    for (let b = 0; b < 20; b++) {
      const made = await writer.writeLogged((w) =>
        Array.from({ length: 1000 }, (_, i) => w.createNode('N', { i: b * 1000 + i, text: `node ${b}-${i} `.repeat(4) })),
      );
      ids.push(...made.value);
    }
    // Free pages: half the nodes deleted, in batches.
    for (let b = 0; b < 10; b++) await writer.writeLogged((w) => ids.slice(b * 2000, b * 2000 + 1000).forEach((id) => w.deleteNode(id)));
    const snapshot = join(replicaDir.path, 'incoming');
    mkdirSync(snapshot);
    await writer.backup(snapshot);
    renameSync(join(snapshot, 'data.mdb'), join(replicaDir.path, 'data.mdb'));
    const from = writer.logPosition().lsn;
    for (let b = 0; b < 40; b++) {
      await writer.writeLogged((w) => {
        ids.slice(1000 + (b % 10) * 2000 + (b >> 3) * 100, 1000 + (b % 10) * 2000 + (b >> 3) * 100 + 100).forEach((id) => w.deleteNode(id));
        for (let i = 0; i < 1500; i++) w.createNode('M', { i, text: `later ${b}-${i} `.repeat(6) });
      });
    }
    const replica = await openStore({ path: replicaDir.path, replica: true });
    try {
      assert.equal(replica.logPosition().lsn, from);
      for (const e of writer.logEntries(from + 1, 1000)) await replica.applyEntries([e]);
      assert.deepEqual(replica.logPosition(), writer.logPosition());
    } finally {
      await replica.close();
    }
    await writer.close();
    assert.deepEqual(folderDigest(replicaDir.path), folderDigest(writerDir.path));
  } finally {
    await writer.close();
    writerDir.remove();
    replicaDir.remove();
  }
});
