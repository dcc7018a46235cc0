/**
 * The writer thread dying (a bug, never a client mistake) fails only the write in flight,
 * with internal_error; a new writer thread takes over and later writes succeed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { WriterClient } from '../../src/pool/writer-client.js';
import { preparePlan } from '../../src/database.js';
import { encodeMessage, toPlanMessage } from '../../src/protocol/codec.js';
import { lockDataFolder, writerLockHolder } from '../../src/store/index.js';
import { tempDir } from '../helpers/server.js';
import { keepLog, type LoggedLine } from '../helpers/log-sink.js';

const DYING = new URL('../fixtures/dying-writer.js', import.meta.url);
/** A write plan as a read worker hands it to the writer. */
const plan = (request: unknown) => encodeMessage(toPlanMessage(preparePlan(JSON.stringify(request))));
const addNode = (label: string) =>
  plan({
    request_type: 'write',
    query: { write: { entries: [{ query: { name: 'n', root: { add_n: { label, properties: [] } } } }], returns: ['n'] } },
  });
const countAll = plan({
  request_type: 'write',
  query: { write: { entries: [{ query: { name: 'c', root: { count: { input: { nodes: { reference: 'all' } } } } } }], returns: ['c'] } },
});

test('a writer thread that dies fails its pending write and is replaced; every batch and the death are reported', async () => {
  const dir = tempDir();
  // As the server does: the main thread holds the writer lock, every writer thread opens under it.
  const lock = lockDataFolder(dir.path);
  const logs: LoggedLine[] = [];
  const batches: { ok: boolean; awaitDurable: boolean; seconds: number | undefined }[] = [];
  const writer = new WriterClient(
    DYING,
    { dataDir: dir.path, mode: 'writer', queryTimeoutMs: 30_000, writerLock: lock.token },
    { log: keepLog(logs), onBatch: (reply, awaitDurable, seconds) => batches.push({ ok: reply.ok, awaitDurable, seconds }) },
  );
  try {
    await writer.ready;
    const lost = await writer.write(addNode('Lost'), false);
    assert.equal(lost.ok, false);
    assert.equal(!lost.ok && lost.error.error, 'internal_error');
    assert.match(!lost.ok ? lost.error.msg : '', /outcome of this write is unknown/);
    const refused = await writer.write(addNode('Early'), false);
    assert.deepEqual(refused.ok ? null : refused.error.error, 'not_ready');
    // The process still holds the folder while the thread is being replaced.
    assert.equal(writerLockHolder(dir.path)?.token, lock.token);
    for (let i = 0; i < 100 && !writer.isAlive; i++) await sleep(50);
    assert.equal(writer.isAlive, true);
    assert.equal(writer.restarts, 1);
    const ok = await writer.write(addNode('Kept'), false);
    // Nothing of the lost batch was committed. Without a publisher the writer records no
    // change-log entries, so its answers carry the unchanged LSN 0 (test/store/change-log.test.ts
    // shows a rolled-back batch uses no LSN when the log is recorded).
    assert.deepEqual(ok, { ok: true, body: '{"n":[{"$id":0}]}', lsn: 0 });
    // The only node is the one written after; a batch that changes nothing answers the current LSN.
    assert.deepEqual(await writer.write(countAll, false), { ok: true, body: '{"c":[1]}', lsn: 0 });
    assert.equal((await writer.write(addNode('Durable'), true)).ok, true);
    // The refused write never reached a thread: it is no batch. The lost one has no time.
    assert.deepEqual(
      batches.map((b) => [b.ok, b.awaitDurable, b.seconds === undefined]),
      [
        [false, false, true],
        [true, false, false],
        [true, false, false],
        [true, true, false],
      ],
    );
    for (const b of batches.slice(1)) assert.ok(b.seconds! > 0 && b.seconds! < 30, `a batch took ${b.seconds} s in the writer thread`);
    assert.deepEqual(
      logs.map((l) => [l.level, l.msg]),
      [
        // The thread reports its own failure, waits for lmdb-js's commit in flight, then exits.
        ['error', 'the writer thread failed: a simulated bug in the writer thread'],
        ['error', 'the writer thread stopped; a new one starts shortly'],
        ['info', 'a replacement writer thread opened the database'],
      ],
    );
    assert.deepEqual(writer.counters(), { queued: 0, alive: true, deaths: 1, restarts: 1 });
  } finally {
    await writer.close();
    lock.release();
    dir.remove();
  }
});

test('a first writer thread that cannot open the database rejects ready with one line naming the folder, and is not replaced', async () => {
  const dir = tempDir();
  // A lock this process does not hold: the thread refuses to open the folder.
  const writer = new WriterClient(new URL('../../workers/writer.js', import.meta.url), {
    dataDir: dir.path,
    mode: 'writer',
    queryTimeoutMs: 30_000,
    writerLock: '0'.repeat(32),
  });
  try {
    await assert.rejects(writer.ready, (err: Error) => {
      assert.match(err.message, /writer lock of the data folder .* is no longer held by this process/);
      assert.ok(err.message.includes(dir.path));
      assert.doesNotMatch(err.message, /\n/);
      return true;
    });
    await sleep(400);
    assert.equal(writer.restarts, 0);
    assert.equal(writer.isAlive, false);
  } finally {
    await writer.close();
    dir.remove();
  }
});

test('replacements that fail to open are retried with a pause that doubles each time, and the writer comes back', async () => {
  const dir = tempDir();
  const lock = lockDataFolder(dir.path);
  const logs: LoggedLine[] = [];
  const writer = new WriterClient(
    new URL('../fixtures/flaky-writer.js', import.meta.url),
    { dataDir: dir.path, mode: 'writer', queryTimeoutMs: 30_000, writerLock: lock.token },
    { log: keepLog(logs) },
  );
  try {
    await writer.ready;
    assert.equal((await writer.write(addNode('Lost'), false)).ok, false);
    for (let i = 0; i < 200 && !writer.isAlive; i++) await sleep(50);
    assert.equal(writer.isAlive, true, 'a replacement opened in the end');
    assert.equal(writer.restarts, 4);
    const starts = readFileSync(join(dir.path, 'starts'), 'utf8').trim().split('\n').map(Number);
    assert.equal(starts.length, 5);
    // After the death, 200 ms; after each failed replacement, twice the pause before.
    const gaps = starts.slice(2).map((t, i) => t - starts[i + 1]!);
    [400, 800, 1600].forEach((least, i) => assert.ok(gaps[i]! >= least - 20, `pause ${i + 1}: ${gaps[i]} ms, at least ${least}`));
    assert.equal(logs.filter((l) => l.level === 'error' && /replacement writer thread failed to start/.test(l.msg)).length, 3);
    assert.equal(
      logs.filter((l) => /the writer thread stopped; a new one starts shortly/.test(l.msg)).length,
      4,
      'the death and 3 failed opens',
    );
    assert.deepEqual(await writer.write(addNode('Kept'), false), { ok: true, body: '{"n":[{"$id":0}]}', lsn: 0 });
    assert.deepEqual(writer.counters(), { queued: 0, alive: true, deaths: 4, restarts: 4 });
  } finally {
    await writer.close();
    lock.release();
    dir.remove();
  }
});
