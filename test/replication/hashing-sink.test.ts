/**
 * SHA-256 of files in a thread (src/replication/hashing-sink.ts): several files hash as
 * their bytes one after another (a vector segment's checksum over its files, checked by a
 * replica off its event loop), one file as itself; a sink writing pieces hashes them after
 * the files before it. Real files in the test's temp folder.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { fileSha256, filesSha256, HashingSink } from '../../src/replication/hashing-sink.js';
import { tempDir } from '../helpers/server.js';

const sha = (...parts: Buffer[]) => parts.reduce((h, p) => h.update(p), createHash('sha256')).digest('hex');

test('files hash as their bytes one after another; one file as itself', async () => {
  const dir = tempDir('trellis-hashing-sink-');
  try {
    const a = randomBytes(5 * 1024 * 1024 + 3);
    const b = randomBytes(1000);
    writeFileSync(join(dir.path, 'a'), a);
    writeFileSync(join(dir.path, 'b'), b);
    writeFileSync(join(dir.path, 'empty'), Buffer.alloc(0));
    const paths = ['a', 'empty', 'b'].map((n) => join(dir.path, n));
    assert.equal(await filesSha256(paths), sha(a, b));
    assert.equal(await filesSha256([paths[2]!, paths[0]!]), sha(b, a));
    assert.equal(await fileSha256(paths[0]!), sha(a));
    await assert.rejects(filesSha256([join(dir.path, 'missing')]), { code: 'ENOENT' });
  } finally {
    dir.remove();
  }
});

test('a sink hashes its pieces after the files before it', async () => {
  const dir = tempDir('trellis-hashing-sink-');
  try {
    const first = randomBytes(3000);
    writeFileSync(join(dir.path, 'first'), first);
    const target = join(dir.path, 'target');
    const before = openSync(join(dir.path, 'first'), 'r');
    const fd = openSync(target, 'w');
    const sink = new HashingSink(fd, 0, target, [{ fd: before, bytes: first.length }]);
    try {
      const piece = randomBytes(9000);
      // The piece's buffer is moved to the thread: a copy of it is kept here.
      const kept = Buffer.from(piece);
      await sink.put(piece, 0);
      assert.equal(await sink.digest(true), sha(first, kept));
      assert.deepEqual(readFileSync(target), kept);
    } finally {
      await sink.close();
      closeSync(fd);
      closeSync(before);
    }
  } finally {
    dir.remove();
  }
});
