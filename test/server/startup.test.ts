/**
 * Start-up failures of the real server: each ends the process with a non-zero status and
 * exactly one line on stderr that names the path, and no stack trace.
 */
import { test, type TestContext } from 'node:test';
import assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { open } from 'lmdb';
import { openStore } from '../../src/store/index.js';
import { failedStart, startTestServer, tempDir, type FailedStart } from '../helpers/server.js';

const NOBODY = 65534;

/** Exit status non-zero, one line on stderr naming `path` (and matching `pattern`), no stack. */
function assertOneLine(result: FailedStart, path: string, pattern: RegExp): void {
  const context = `exit ${result.code}\nstderr:\n${result.stderr}\nstdout:\n${result.stdout}`;
  assert.notEqual(result.code, 0, context);
  assert.notEqual(result.code, null, context);
  const lines = result.stderr.split('\n').filter((line) => line !== '');
  assert.equal(lines.length, 1, context);
  assert.match(lines[0]!, /^trellis: /, context);
  assert.ok(lines[0]!.includes(path), `the line names ${path}\n${context}`);
  assert.match(lines[0]!, pattern, context);
  assert.doesNotMatch(result.stderr + result.stdout, /^ {4}at /m, context);
}

function withDir(t: TestContext): string {
  const dir = tempDir('trellis-startup-');
  t.after(() => dir.remove());
  return dir.path;
}

test('a regular file as the data folder: writer and reader', async (t) => {
  const file = join(withDir(t), 'data');
  writeFileSync(file, 'not a folder');
  assertOneLine(await failedStart(['--data', file]), file, /is a file, not a folder/);
  assertOneLine(await failedStart(['--mode', 'reader', '--data', file]), file, /is a file, not a folder/);
});

test('a data folder under a regular file (ENOTDIR) cannot be created', async (t) => {
  const file = join(withDir(t), 'data');
  writeFileSync(file, '');
  const path = join(file, 'sub');
  assertOneLine(await failedStart(['--data', path]), path, /a part of the path is a file, not a folder/);
});

test('a reader on an empty or a missing folder: no database there', async (t) => {
  const dir = withDir(t);
  assertOneLine(await failedStart(['--mode', 'reader', '--data', dir]), dir, /holds no Trellis database.*start a writer on it first/);
  const missing = join(dir, 'missing');
  assertOneLine(await failedStart(['--mode', 'reader', '--data', missing]), missing, /does not exist/);
});

test('a folder that is not a Trellis database: a data.mdb that is not LMDB, an LMDB of other data', async (t) => {
  const garbage = join(withDir(t), 'garbage');
  mkdirSync(garbage);
  // lmdb-js would crash the process with a segmentation fault on this file.
  writeFileSync(join(garbage, 'data.mdb'), Buffer.alloc(40_000, 7));
  assertOneLine(await failedStart(['--data', garbage]), garbage, /is not a Trellis database: .*data\.mdb is not an LMDB file/);
  assertOneLine(await failedStart(['--mode', 'reader', '--data', garbage]), garbage, /is not an LMDB file/);

  const foreign = join(withDir(t), 'foreign');
  const env = open({ path: foreign, maxDbs: 8 });
  await env.put('hello', 'world');
  await env.openDB('users', {}).put('alice', 1);
  await env.close();
  assertOneLine(await failedStart(['--data', foreign]), foreign, /is not a Trellis database: its LMDB file holds other data/);
  assertOneLine(await failedStart(['--mode', 'reader', '--data', foreign]), foreign, /is not a Trellis database/);
});

test('a folder of another format version: writer (refused by the writer thread) and reader', async (t) => {
  const path = withDir(t);
  const store = await openStore({ path });
  await store.close();
  const env = open({ path, maxDbs: 128 });
  await env.openDB('meta', {}).put('format_version', 2);
  await env.close();
  const writer = await failedStart(['--data', path]);
  assertOneLine(writer, path, /format version 2, this build reads version 4; .*reload the data into a new folder/);
  assert.match(writer.stdout, /listening/, 'the writer listens first and opens the database afterwards');
  assertOneLine(await failedStart(['--mode', 'reader', '--data', path]), path, /format version 2, this build reads version 4/);
});

test('the port in use', async (t) => {
  const path = withDir(t);
  const first = await startTestServer(['--data', join(path, 'a')]);
  t.after(() => first.stop());
  const result = await failedStart(['--data', join(path, 'b'), '--port', String(first.port)]);
  assertOneLine(
    result,
    `127.0.0.1:${first.port}`,
    /cannot listen on .*in use or not available; stop the process using it, or choose another port/,
  );
  // The failed start released the writer lock it had taken on its folder.
  const again = await startTestServer(['--data', join(path, 'b')]);
  await again.stop();
});

/** Permissions bite only when the server does not run as root: run it as `nobody`. */
function asNobody(t: TestContext): boolean {
  if (process.getuid?.() !== 0) {
    t.skip('needs root to run the server as the unprivileged user nobody (root ignores file permissions)');
    return false;
  }
  return true;
}

test('a folder the user cannot write, and an unwritable parent (the server runs as nobody)', async (t) => {
  if (!asNobody(t)) return;
  const root = withDir(t);
  chmodSync(root, 0o755); // nobody may look inside, not write
  const readOnly = join(root, 'read-only');
  mkdirSync(readOnly, { mode: 0o755 });
  const as = { uid: NOBODY, gid: NOBODY, cwd: root };
  assertOneLine(await failedStart(['--data', readOnly], as), readOnly, /cannot write the data folder .*permission denied/);
  const child = join(readOnly, 'data');
  assertOneLine(await failedStart(['--data', child], as), child, /cannot create the data folder .*permission denied/);
  // A database of another user: a writer is refused before LMDB reports "Permission denied".
  const db = join(root, 'db');
  const store = await openStore({ path: db });
  await store.close();
  chmodSync(db, 0o755);
  assertOneLine(await failedStart(['--data', db], as), db, /cannot write the data folder .*permission denied/);
});

test('a read worker or the writer thread failing as it starts, after the checks passed: one line, exit 1', async (t) => {
  const path = withDir(t);
  const store = await openStore({ path });
  await store.close();
  const nodeArgs = ['--import', new URL('../fixtures/failing-threads.js', import.meta.url).href];
  // Reader mode: the read workers fail (Piscina also reports it as an unhandled error event).
  const reader = await failedStart(['--mode', 'reader', '--data', path, '--workers', '4'], { nodeArgs });
  assertOneLine(reader, path, /cannot read the data folder .*: an input\/output error/);
  assert.match(reader.stdout, /listening/);
  const writer = await failedStart(['--data', path], { nodeArgs });
  assertOneLine(writer, path, /cannot write the data folder .*: an input\/output error/);
  assert.equal(existsSync(join(path, 'writer.lock')), false, 'the failed writer released the lock');
  // An error that does not name the folder gets it.
  const crash = await failedStart(['--data', path], { nodeArgs, env: { TRELLIS_TEST_THREAD_FAILURE: 'crash' } });
  assertOneLine(crash, path, /^trellis: cannot open the database in .*: injected crash of a thread at start-up$/);
});

test('--help prints the settings and exits 0; a bad setting names it and exits 2', async () => {
  const help = await failedStart(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /--data/);
  const bad = await failedStart(['--port', 'nope']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^trellis: .*port/);
  assert.doesNotMatch(bad.stderr, /^ {4}at /m);
});
