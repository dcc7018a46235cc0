/**
 * The data folder's checks (src/store/folder.ts) through openStore: a file, a folder that
 * is not a database, LMDB files lmdb-js would crash on, a later Trellis's extra
 * sub-databases; and how file-system errors read.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
import { openStore } from '../../src/store/index.js';
import { describeFsError, fsFailure } from '../../src/store/folder.js';
import { tempDir } from '../helpers/server.js';

async function withDir(fn: (path: string) => Promise<void>): Promise<void> {
  const dir = tempDir('trellis-folder-');
  try {
    await fn(dir.path);
  } finally {
    dir.remove();
  }
}

async function database(path: string): Promise<void> {
  const store = await openStore({ path });
  await store.write((w) => w.createNode('N', {}));
  await store.close();
}

test('file-system error codes read as sentences, with advice that fits the cause', () => {
  const fail = (code: string) => fsFailure('cannot use /x', Object.assign(new Error(`${code}: raw`), { code }), 'fix permissions').message;
  assert.match(fail('EACCES'), /^cannot use \/x: permission denied.*; fix permissions$/);
  assert.match(fail('EPERM'), /permission denied.*; fix permissions$/);
  assert.match(fail('EROFS'), /the file system is read-only; use a folder on a writable file system, or open this one read-only$/);
  assert.match(fail('ENOSPC'), /no space left on the device; free some space/);
  assert.match(fail('EDQUOT'), /the disk quota is exhausted; free some space/);
  assert.match(fail('ENOTDIR'), /a part of the path is a file, not a folder; check the path$/);
  assert.match(fail('EEXIST'), /a file of that name is in the way; check the path$/);
  assert.match(fail('ENOENT'), /it does not exist; check the path$/);
  assert.match(fail('ELOOP'), /too many symbolic links; check the path$/);
  assert.match(fail('ENAMETOOLONG'), /the path is too long; check the path$/);
  assert.match(fail('EIO'), /an input\/output error \(a failing disk\?\); check the disk and the folder$/);
  assert.match(fail('EWHATEVER'), /EWHATEVER: raw; check the disk and the folder$/);
  assert.equal(describeFsError('a\nstring'), 'a string');
});

test('a data.mdb or lock.mdb that is a folder, a truncated LMDB file, another LMDB data version: refused before lmdb-js (which crashes on them)', async () => {
  await withDir(async (root) => {
    const dataDir = join(root, 'data-folder');
    mkdirSync(join(dataDir, 'data.mdb'), { recursive: true });
    await assert.rejects(openStore({ path: dataDir }), /is not a Trellis database: .*data\.mdb is not a regular file/);

    const lockFile = join(root, 'lock-file');
    await database(lockFile);
    writeFileSync(join(lockFile, 'lock.mdb'), ''); // LMDB rebuilds a lock.mdb of any content
    await (await openStore({ path: lockFile, readOnly: true })).close();
    const lockAsFolder = join(root, 'lock-as-folder');
    await database(lockAsFolder);
    rmSync(join(lockAsFolder, 'lock.mdb'));
    mkdirSync(join(lockAsFolder, 'lock.mdb'));
    await assert.rejects(openStore({ path: lockAsFolder, readOnly: true }), /lock\.mdb is not a regular file/);
    await assert.rejects(openStore({ path: lockAsFolder }), /lock\.mdb is not a regular file/);

    const real = join(root, 'real');
    await database(real);
    const bytes = readFileSync(join(real, 'data.mdb'));
    const truncated = join(root, 'truncated');
    mkdirSync(truncated);
    writeFileSync(join(truncated, 'data.mdb'), bytes.subarray(0, 4096));
    await assert.rejects(openStore({ path: truncated, readOnly: true }), /data\.mdb is a damaged or truncated LMDB file/);
    const versioned = join(root, 'versioned');
    mkdirSync(versioned);
    const copy = Buffer.from(bytes);
    copy.writeUInt32LE(7, 28);
    writeFileSync(join(versioned, 'data.mdb'), copy);
    await assert.rejects(openStore({ path: versioned }), /data\.mdb is an LMDB file of data version 7, not 2/);
  });
});

test('an empty data.mdb: a writer initialises it, a reader finds no database', async () => {
  await withDir(async (path) => {
    writeFileSync(join(path, 'data.mdb'), '');
    await assert.rejects(openStore({ path, readOnly: true }), /holds no Trellis database/);
    await database(path);
    const ro = await openStore({ path, readOnly: true });
    ro.read((r) => assert.equal(r.nodeCount(), 1));
    await ro.close();
  });
});

test('a Trellis database with sub-databases a later build added opens; an LMDB with a meta but no version is not ours', async () => {
  await withDir(async (root) => {
    const later = join(root, 'later');
    await database(later);
    const env = open({ path: later, maxDbs: 128 });
    await env.openDB('index_by_name', {}).put('k', 1);
    await env.close();
    const store = await openStore({ path: later });
    store.read((r) => assert.equal(r.nodeCount(), 1));
    await store.close();

    const foreign = join(root, 'foreign');
    const other = open({ path: foreign, maxDbs: 8 });
    await other.openDB('meta', {}).put('owner', 'someone else');
    await other.openDB('things', {}).put('a', 1);
    await other.close();
    await assert.rejects(
      openStore({ path: foreign }),
      /is not a Trellis database: its LMDB file holds other data and no Trellis format version/,
    );
  });
});
