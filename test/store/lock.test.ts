/**
 * The writer lock of a data folder (src/store/lock.ts): exclusive between processes and
 * between writable opens of one process, stale when its process is gone, taken over by
 * exactly one of several starters, released on close.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import fs, { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { syncBuiltinESMExports } from 'node:module';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { open } from '../../src/index.js';
import { acquireWriterLock, LOCK_FILE } from '../../src/store/lock.js';
import { openStore } from '../../src/store/index.js';
import { tempDir } from '../helpers/server.js';

const run = promisify(execFile);
const RACER = new URL('../fixtures/lock-racer.js', import.meta.url).pathname;
const INDEX = new URL('../../src/index.js', import.meta.url).href;
const token = (c: string) => c.repeat(32);
/** This process's start time, field 22 of /proc/self/stat (read here, not through lock.ts). */
const ownStart = () => readFileSync('/proc/self/stat', 'utf8').split(') ')[1]!.split(' ')[19]!;
const lockOf = (dir: string) => JSON.parse(readFileSync(join(dir, LOCK_FILE), 'utf8')) as { pid: number; start: string; token: string };

/** The first line a child prints. */
function firstLine(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += d;
      if (out.includes('\n')) resolve(out.slice(0, out.indexOf('\n')));
    });
    child.once('exit', (code) => reject(new Error(`a racer exited (${code}) before answering: ${out}`)));
  });
}

/** The pid of a process that has exited (and been reaped). */
async function deadPid(): Promise<number> {
  const child = spawn(process.execPath, ['-e', '']);
  await new Promise((resolve) => child.once('exit', resolve));
  return child.pid!;
}

test('the lock file names this process, its start time and a token; release removes it, once', () => {
  const dir = tempDir();
  try {
    const lock = acquireWriterLock(dir.path);
    const held = lockOf(dir.path);
    assert.equal(held.pid, process.pid);
    assert.equal(held.token, lock.token);
    assert.equal(held.start, ownStart());
    assert.throws(() => acquireWriterLock(dir.path), /already open for writing in this process \(pid \d+\)/);
    lock.release();
    assert.equal(existsSync(join(dir.path, LOCK_FILE)), false);
    // A released hold never removes a lock taken after it.
    const next = acquireWriterLock(dir.path);
    lock.release();
    assert.equal(lockOf(dir.path).token, next.token);
    next.release();
    assert.deepEqual(readdirSync(dir.path), [], 'no temporary file is left behind');
  } finally {
    dir.remove();
  }
});

test('a lock of a process that is gone is stale and taken over, as is a takeover marker such a process left', async () => {
  const dir = tempDir();
  try {
    const pid = await deadPid();
    writeFileSync(join(dir.path, LOCK_FILE), JSON.stringify({ pid, start: '1', token: token('a') }));
    const lock = acquireWriterLock(dir.path);
    assert.equal(lockOf(dir.path).token, lock.token);
    lock.release();
    // A starter killed in the middle of a takeover left its marker: stale in turn.
    writeFileSync(join(dir.path, LOCK_FILE), JSON.stringify({ pid, start: '1', token: token('b') }));
    writeFileSync(join(dir.path, `${LOCK_FILE}.takeover-${token('b')}`), JSON.stringify({ pid, start: '1', token: token('c') }));
    const again = acquireWriterLock(dir.path);
    assert.equal(lockOf(dir.path).token, again.token);
    again.release();
    assert.deepEqual(readdirSync(dir.path), []);
  } finally {
    dir.remove();
  }
});

test('a lock file that is not a lock is refused with what to do', () => {
  const dir = tempDir();
  try {
    writeFileSync(join(dir.path, LOCK_FILE), 'garbage');
    assert.throws(
      () => acquireWriterLock(dir.path),
      /writer lock .* is not readable as one; delete that file if no Trellis process uses the folder/,
    );
  } finally {
    dir.remove();
  }
});

test('of several processes finding the same stale lock at the same moment, exactly one takes it', async () => {
  const dir = tempDir();
  try {
    // A takeover that is not safe against a concurrent one fails here in most runs (the
    // racers make the window wide: test/fixtures/lock-racer.ts).
    for (let round = 0; round < 4; round++) {
      writeFileSync(join(dir.path, LOCK_FILE), JSON.stringify({ pid: await deadPid(), start: '1', token: token(String(round)) }));
      const at = Date.now() + 1200;
      const racers = Array.from({ length: 6 }, () =>
        spawn(process.execPath, [RACER, dir.path, String(at)], { stdio: ['pipe', 'pipe', 'inherit'] }),
      );
      const ended = racers.map((r) => new Promise((resolve) => r.once('close', resolve)));
      let outputs: string[];
      try {
        outputs = await Promise.all(racers.map(firstLine));
      } finally {
        for (const r of racers) r.stdin!.end();
        await Promise.all(ended);
      }
      const winners = outputs.filter((o) => o === 'won');
      assert.equal(winners.length, 1, outputs.join('\n'));
      for (const o of outputs.filter((o) => o !== 'won')) assert.match(o, /in use by another writer \(pid \d+\)/);
      assert.equal(existsSync(join(dir.path, LOCK_FILE)), false, 'the winner released it');
      assert.deepEqual(readdirSync(dir.path), [], 'no marker or temporary file is left behind');
    }
  } finally {
    dir.remove();
  }
});

test('the embedded API: a second writable open is refused naming the folder and pid, in this process and another; read-only opens are not', async () => {
  const dir = tempDir();
  try {
    const db = await open(dir.path);
    await db.query({
      request_type: 'write',
      query: { write: { entries: [{ query: { root: { add_n: { label: 'N', properties: [] } } } }], returns: [] } },
    });
    await assert.rejects(open(dir.path), (err: Error) => {
      assert.equal(err.name, 'DataFolderError');
      assert.ok(err.message.includes(dir.path));
      assert.match(err.message, new RegExp(`already open for writing in this process \\(pid ${process.pid}\\)`));
      return true;
    });
    const script = `import { open } from ${JSON.stringify(INDEX)};
      try { await open(${JSON.stringify(dir.path)}); console.log('opened'); } catch (err) { console.log(err.message); }`;
    const other = await run(process.execPath, ['--input-type=module', '-e', script]);
    assert.match(
      other.stdout,
      new RegExp(`${dir.path.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} is in use by another writer \\(pid ${process.pid}\\)`),
    );
    const reader = await open(dir.path, { readOnly: true });
    const read = {
      request_type: 'read',
      query: { read: { entries: [{ query: { name: 'c', root: { count: { input: { nodes: { reference: 'all' } } } } } }], returns: ['c'] } },
    };
    assert.deepEqual(await reader.query(read), { c: [1] });
    await reader.close();
    await db.close();
    assert.equal(existsSync(join(dir.path, LOCK_FILE)), false, 'close releases the lock');
    const next = await open(dir.path);
    await next.close();
  } finally {
    dir.remove();
  }
});

test('a store that fails to open releases the lock it took', async () => {
  const dir = tempDir();
  try {
    writeFileSync(join(dir.path, 'data.mdb'), Buffer.alloc(40_000));
    await assert.rejects(openStore({ path: dir.path }), /is not an LMDB file/);
    assert.equal(existsSync(join(dir.path, LOCK_FILE)), false);
  } finally {
    dir.remove();
  }
});

test('a stale lock that a live process is taking over is left to it; a chain of dead takeover markers ends with what to do', async () => {
  const dir = tempDir();
  try {
    const file = join(dir.path, LOCK_FILE);
    const pid = await deadPid();
    writeFileSync(file, JSON.stringify({ pid, start: '1', token: token('a') }));
    // This process, as it runs, holds the marker: another starter is mid-takeover.
    const start = ownStart();
    writeFileSync(join(dir.path, `${LOCK_FILE}.takeover-${token('a')}`), JSON.stringify({ pid: process.pid, start, token: token('b') }));
    assert.throws(() => acquireWriterLock(dir.path), /other processes keep taking it over; stop them and try again/);
    // Markers of markers, all of dead processes, deeper than a takeover ever leaves them.
    const chain = ['a', 'b', 'c', 'd', 'e', 'f'];
    for (let i = 0; i + 1 < chain.length; i++) {
      writeFileSync(
        join(dir.path, `${LOCK_FILE}.takeover-${token(chain[i]!)}`),
        JSON.stringify({ pid, start: '1', token: token(chain[i + 1]!) }),
      );
    }
    assert.throws(() => acquireWriterLock(dir.path), /cannot take over the stale writer lock .*: remove the files writer\.lock\* in it/);
  } finally {
    dir.remove();
  }
});

test('a lock that cannot be read or created says which and why', () => {
  const dir = tempDir();
  try {
    mkdirSync(join(dir.path, LOCK_FILE));
    assert.throws(() => acquireWriterLock(dir.path), /cannot read the writer lock .*writer\.lock: /);
    assert.throws(
      () => acquireWriterLock(join(dir.path, 'missing')),
      /cannot create the writer lock in the data folder .*missing: it does not exist; check the path/,
    );
  } finally {
    dir.remove();
  }
});

test('on a file system without hard links the lock file is created exclusively in place', () => {
  const dir = tempDir();
  const linkSync = fs.linkSync;
  const failLinks = (code: string) => {
    fs.linkSync = () => {
      throw Object.assign(new Error(`${code}: link`), { code });
    };
    syncBuiltinESMExports();
  };
  try {
    failLinks('EPERM');
    const lock = acquireWriterLock(dir.path);
    assert.equal(lockOf(dir.path).token, lock.token);
    assert.throws(() => acquireWriterLock(dir.path), /already open for writing in this process/);
    lock.release();
    assert.deepEqual(readdirSync(dir.path), []);
    failLinks('EIO');
    assert.throws(() => acquireWriterLock(dir.path), /cannot create the writer lock in the data folder .*: an input\/output error/);
    assert.deepEqual(readdirSync(dir.path), [], 'the temporary file is removed');
  } finally {
    fs.linkSync = linkSync;
    syncBuiltinESMExports();
    dir.remove();
  }
});
