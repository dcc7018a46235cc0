/**
 * A snapshot's pieces written around the page cache (src/replication/direct-writes.ts):
 * whole 4 KiB blocks through an O_DIRECT descriptor, the head and tail of each piece
 * through the buffered one; the file holds exactly the bytes given, wherever the pieces
 * start (a resumed download starts at any byte). Real files in the test's temp folder.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, openSync, readFileSync, writeFileSync } from 'node:fs';
import { randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { copyFileToDisk, DirectWriter, openDirect } from '../../src/replication/direct-writes.js';
import { tempDir } from '../helpers/server.js';

/** Writes `source` from byte `from` on, by pieces of `piece` bytes; returns the bytes each piece sent through the page cache. */
function writeByPieces(
  path: string,
  source: Buffer,
  from: number,
  piece: number,
  useDirect: boolean,
): { buffered: number[]; direct: boolean } {
  const fd = openSync(path, 'r+');
  const direct = useDirect ? openDirect(path) : null;
  const writer = new DirectWriter(fd, direct);
  const buffered: number[] = [];
  try {
    for (let at = from; at < source.length; at += piece) {
      // A buffer of its own per piece, as the download's pieces are.
      buffered.push(writer.write(Buffer.from(source.subarray(at, Math.min(source.length, at + piece))), at));
    }
    writer.sync();
    return { buffered, direct: writer.isDirect };
  } finally {
    if (direct !== null) closeSync(direct);
    closeSync(fd);
  }
}

/** Runs `fn` on a new empty file in a temp folder of its own, removed after. */
function withEmptyFile(fn: (path: string, dir: string) => void): void {
  const dir = tempDir('trellis-direct-writes-');
  try {
    const path = join(dir.path, 'file');
    closeSync(openSync(path, 'w'));
    fn(path, dir.path);
  } finally {
    dir.remove();
  }
}

test('pieces at any offset land byte for byte, their whole blocks written directly', (t) =>
  withEmptyFile((path) => {
    const source = randomBytes(200_000 + 123);
    // A resumed download: the first 1,000 bytes are there already, the pieces start at an
    // unaligned byte, and the last one is short.
    writeByPieces(path, source.subarray(0, 1000), 0, 1000, false);
    if (openDirect(path) === null) return void t.skip('this filesystem has no O_DIRECT');
    const { buffered, direct } = writeByPieces(path, source, 1000, 20_000, true);
    assert.equal(direct, true);
    assert.deepEqual(readFileSync(path), source);
    // Each piece sends only what does not fill a block through the page cache: less than
    // two blocks; a piece inside one block (none here) would send all of it.
    assert.equal(buffered.length, 10);
    for (const n of buffered) assert.ok(n < 2 * 4096, `${n} bytes through the page cache`);
    assert.ok(buffered.reduce((a, b) => a + b, 0) < 20 * 4096);
  }));

test('aligned pieces go through the page cache not at all; a piece within one block, wholly', (t) =>
  withEmptyFile((path) => {
    if (openDirect(path) === null) return void t.skip('this filesystem has no O_DIRECT');
    const source = randomBytes(8 * 4096 + 100);
    const { buffered } = writeByPieces(path, source, 0, 4 * 4096, true);
    assert.deepEqual(buffered, [0, 0, 100]);
    assert.deepEqual(readFileSync(path), source);
  }));

test('without a direct descriptor every byte goes through the page cache, as before', () =>
  withEmptyFile((path) => {
    const source = randomBytes(50_000);
    const { buffered, direct } = writeByPieces(path, source, 0, 16_384, false);
    assert.equal(direct, false);
    assert.deepEqual(buffered, [16_384, 16_384, 16_384, 50_000 - 3 * 16_384]);
    assert.deepEqual(readFileSync(path), source);
  }));

test('a restore copies its backup file byte for byte, into a new file only', () =>
  withEmptyFile((_, dir) => {
    const from = join(dir, 'backup.mdb');
    const to = join(dir, 'data.mdb');
    // Larger than one read of the copy (8 MiB) and not a whole number of blocks.
    const source = randomBytes(9 * 1024 * 1024 + 777);
    writeFileSync(from, source);
    copyFileToDisk(from, to);
    assert.deepEqual(readFileSync(to), source);
    assert.throws(() => copyFileToDisk(from, to), { code: 'EEXIST' });
    assert.deepEqual(readFileSync(to), source);
  }));
