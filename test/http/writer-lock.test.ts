/**
 * One writer per data folder, between real server processes: a second writer is refused
 * with the holder's pid, readers run next to a writer, a writer killed with kill -9 does
 * not block the next one, and a clean stop removes the lock file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { countLabel, failedStart, post, readRequest, startTestServer, tempDir, writeRequest } from '../helpers/server.js';

const addNode = (label: string) => writeRequest([{ query: { name: 'n', root: { add_n: { label, properties: [] } } } }], ['n']);
const count = (label: string) => readRequest([countLabel('c', label)], ['c']);
const lockFile = (dir: string) => join(dir, 'writer.lock');
const holderPid = (dir: string) => (JSON.parse(readFileSync(lockFile(dir), 'utf8')) as { pid: number }).pid;

test('a second writer on a folder exits with one line naming the folder and the first one’s pid; the first keeps serving', async () => {
  const dir = tempDir();
  const first = await startTestServer(['--data', dir.path]);
  try {
    assert.equal((await post(`${first.url}/v2/query`, addNode('Before'))).status, 200);
    assert.equal(holderPid(dir.path), first.proc.pid);
    const second = await failedStart(['--data', dir.path]);
    assert.notEqual(second.code, 0);
    const lines = second.stderr.trim().split('\n');
    assert.equal(lines.length, 1, second.stderr);
    assert.match(lines[0]!, new RegExp(`in use by another writer \\(pid ${first.proc.pid}\\)`));
    assert.ok(lines[0]!.includes(dir.path));
    assert.doesNotMatch(second.stderr, /^ {4}at /m);
    assert.doesNotMatch(second.stdout, /listening/, 'refused before listening');
    assert.equal((await post(`${first.url}/v2/query`, addNode('After'))).status, 200);
    assert.deepEqual((await post(`${first.url}/v2/query`, count('After'))).body, { c: [1] });
    assert.equal(holderPid(dir.path), first.proc.pid, 'the refused writer left the lock alone');
  } finally {
    await first.stop();
    dir.remove();
  }
});

test('a reader process runs next to a writer and sees its writes', async () => {
  const dir = tempDir();
  const writer = await startTestServer(['--data', dir.path]);
  try {
    assert.equal((await post(`${writer.url}/v2/query`, addNode('Shared'))).status, 200);
    const reader = await startTestServer(['--data', dir.path, '--mode', 'reader']);
    try {
      assert.deepEqual((await post(`${reader.url}/v2/query`, count('Shared'))).body, { c: [1] });
      assert.equal((await post(`${writer.url}/v2/query`, addNode('Shared'))).status, 200);
      assert.deepEqual((await post(`${reader.url}/v2/query`, count('Shared'))).body, { c: [2] });
      assert.equal((await post(`${reader.url}/v2/query`, addNode('Shared'))).status, 503);
    } finally {
      await reader.stop();
    }
    assert.equal(holderPid(dir.path), writer.proc.pid, 'a reader takes no lock and removes none');
  } finally {
    await writer.stop();
    dir.remove();
  }
});

test('a writer killed with kill -9 leaves a stale lock that the next writer takes over; a clean stop removes it', async () => {
  const dir = tempDir();
  try {
    let server = await startTestServer(['--data', dir.path]);
    for (let round = 0; round < 3; round++) {
      assert.equal((await post(`${server.url}/v2/query`, addNode('Crash'))).status, 200);
      const killed = server.proc.pid;
      await server.kill9();
      assert.equal(holderPid(dir.path), killed, 'kill -9 leaves the lock behind');
      server = await startTestServer(['--data', dir.path]);
      assert.equal(holderPid(dir.path), server.proc.pid);
    }
    assert.deepEqual((await post(`${server.url}/v2/query`, count('Crash'))).body, { c: [3] });
    await server.stop();
    assert.equal(existsSync(lockFile(dir.path)), false, 'a clean stop removes the lock file');
  } finally {
    dir.remove();
  }
});

test('a lock whose pid is alive but started at another time (a reused pid) is stale', async () => {
  const dir = tempDir();
  try {
    // This test process is alive, but it is not the process that wrote this lock.
    const token = 'ab'.repeat(16);
    writeFileSync(lockFile(dir.path), JSON.stringify({ pid: process.pid, start: '1', token }));
    const server = await startTestServer(['--data', dir.path]);
    assert.equal(holderPid(dir.path), server.proc.pid);
    await server.stop();
    // The same pid with its true start time is a live holder: refused.
    const start = readFileSync(`/proc/${process.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[19]!;
    writeFileSync(lockFile(dir.path), JSON.stringify({ pid: process.pid, start, token }));
    const refused = await failedStart(['--data', dir.path]);
    assert.notEqual(refused.code, 0);
    assert.match(refused.stderr, new RegExp(`in use by another writer \\(pid ${process.pid}\\)`));
  } finally {
    dir.remove();
  }
});

test('a data folder whose name has a dot serves writes and reads', async () => {
  const dir = tempDir();
  const path = join(dir.path, 'graph.db');
  const server = await startTestServer(['--data', path]);
  try {
    assert.equal((await post(`${server.url}/v2/query`, addNode('Dotted'))).status, 200);
    assert.deepEqual((await post(`${server.url}/v2/query`, count('Dotted'))).body, { c: [1] });
  } finally {
    await server.stop();
    dir.remove();
  }
});
