/**
 * Backups and point-in-time restores (docs/replication.md, "Backups"), with real parts: a
 * real nats-server, the real server as a writer publishing its log, backups taken from it
 * under writes, restores replayed from the stream to an LSN and to a time, compared key
 * for key with a copy of the database taken at that LSN.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { startTestServer, type TestServer } from '../helpers/server.js';
import { natsSuite } from '../helpers/nats.js';
import { folderDigest, mixedWrites } from '../helpers/replication.js';
import { backupFolder, backupServer, restore, RestoreError } from '../../src/replication/backup.js';
import { backupMain, restoreMain } from '../../src/replication/cli.js';
import { LogStream } from '../../src/replication/nats.js';

const suite = natsSuite('trellis-backup-');
const { skip, folder } = suite;

/** The LSN of the last write that succeeded (a mixed write may refer to an id that is gone: a 4xx). */
let lastLsn = 0;

async function write(server: TestServer, body: object): Promise<number> {
  const res = await fetch(`${server.url}/v2/query`, { method: 'POST', body: JSON.stringify(body) });
  const text = await res.text();
  assert.ok(res.status === 200 || (res.status >= 400 && res.status < 500), `${res.status}: ${text}`);
  if (res.status === 200) lastLsn = Number(res.headers.get('x-trellis-lsn'));
  return lastLsn;
}

const ADD_ONE = {
  request_type: 'write',
  query: { write: { entries: [{ query: { root: { add_n: { label: 'A', properties: [] } } } }], returns: [] } },
};

/** Waits until the stream holds entry `lsn` (published after its flush). */
async function published(stream: string, lsn: number): Promise<void> {
  const log = await LogStream.connect(suite.nats.url, stream);
  try {
    const deadline = Date.now() + 60_000;
    while (Date.now() < deadline) {
      const state = await log.state();
      const last = state.lastSeq === 0 ? null : await log.at(state.lastSeq);
      if (last !== null && last.lsn >= lsn) return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    throw new Error(`the stream ${stream} did not reach LSN ${lsn}`);
  } finally {
    await log.close();
  }
}

const log = () => undefined;

test('a backup under writes, restored and replayed to an LSN or a time, is exactly the database at that point', { skip }, async () => {
  const stream = 'backups';
  const writerDir = folder();
  const files = folder();
  const writer = await startTestServer(['--data', writerDir, '--nats', suite.nats.url, '--stream', stream]);
  try {
    // No index here: every entry is a client batch, so the LSN after a write is the database's.
    const writes = mixedWrites(11, 600);
    lastLsn = 0;
    let before = 0;
    for (const body of writes.slice(0, 100)) before = await write(writer, body);
    // A backup while writes go on.
    const underLoad = (async () => {
      for (const body of writes.slice(100, 300)) await write(writer, body);
    })();
    await new Promise((resolve) => setTimeout(resolve, 20));
    const early = await backupServer(writer.url, join(files, 'early.trellis'));
    await underLoad;
    assert.ok(early.lsn >= before && early.lsn <= lastLsn, `the backup is at LSN ${early.lsn}, between ${before} and ${lastLsn}`);
    // The reference: a copy of the folder at LSN `point`, taken read-only beside the writer.
    let point = 0;
    for (const body of writes.slice(300, 450)) point = await write(writer, body);
    const reference = await backupFolder(writerDir, join(files, 'reference.trellis'));
    assert.equal(reference.lsn, point);
    await new Promise((resolve) => setTimeout(resolve, 5)); // later batches commit after its time
    let end = point;
    for (const body of writes.slice(450)) end = await write(writer, body);
    await published(stream, end);

    const referenceDir = join(folder(), 'db');
    assert.equal((await restore({ from: reference.file, dataDir: referenceDir, stream, log })).lsn, point);
    const want = folderDigest(referenceDir);

    const byLsn = join(folder(), 'db');
    const atLsn = await restore({ from: early.file, dataDir: byLsn, nats: suite.nats.url, stream, untilLsn: point, log });
    assert.equal(atLsn.lsn, point);
    assert.deepEqual(atLsn.hash.toString('hex'), reference.hash, 'the replayed history chains to the same hash');
    assert.deepEqual(folderDigest(byLsn), want, 'replayed to the LSN: exactly the data at that LSN');

    const byTime = join(folder(), 'db');
    const atTime = await restore({
      from: early.file,
      dataDir: byTime,
      nats: suite.nats.url,
      stream,
      untilTime: Date.parse(reference.time!),
      log,
    });
    assert.equal(atTime.lsn, point, 'replayed to the time of the reference: the same LSN');
    assert.deepEqual(folderDigest(byTime), want);

    // To the stream's end: the writer's data.
    const toEnd = join(folder(), 'db');
    assert.equal((await restore({ from: early.file, dataDir: toEnd, nats: suite.nats.url, stream, log })).lsn, end);
    await writer.stop();
    assert.deepEqual(folderDigest(toEnd), folderDigest(writerDir));
  } finally {
    await writer.stop();
  }
});

test('restores that cannot reach the point say why and leave no database', { skip }, async () => {
  const stream = 'restore-errors';
  const files = folder();
  const writer = await startTestServer(['--data', folder(), '--nats', suite.nats.url, '--stream', stream]);
  try {
    lastLsn = 0;
    for (const body of mixedWrites(3, 20)) await write(writer, body);
    const backup = await backupServer(writer.url, join(files, 'b.trellis'));
    let end = backup.lsn;
    for (const body of mixedWrites(4, 20, 20)) end = await write(writer, body);
    await published(stream, end);

    const busy = folder();
    writeFileSync(join(busy, 'x'), '');
    await assert.rejects(restore({ from: backup.file, dataDir: busy, stream, log }), /is not empty/);
    await assert.rejects(
      restore({ from: backup.file, dataDir: join(folder(), 'db'), nats: suite.nats.url, stream, untilLsn: backup.lsn - 1, log }),
      new RegExp(`is at LSN ${backup.lsn}, after the asked LSN ${backup.lsn - 1}: restore an older backup`),
    );
    await assert.rejects(
      restore({ from: backup.file, dataDir: join(folder(), 'db'), nats: suite.nats.url, stream, untilLsn: end + 5, log }),
      new RegExp(`ends at LSN ${end}, before the asked LSN ${end + 5}`),
    );
    await assert.rejects(
      restore({ from: backup.file, dataDir: join(folder(), 'db'), stream, untilLsn: end, log }),
      /needs the stream \(--nats URL\)/,
    );
    // The stream trimmed past the backup: the retention was too short for this restore.
    const s = await LogStream.connect(suite.nats.url, stream);
    try {
      const at = await s.seqAfter(backup.lsn + 3);
      assert.equal(typeof at, 'number');
      await s.purgeBefore(at as number);
    } finally {
      await s.close();
    }
    const gone = join(folder(), 'db');
    await assert.rejects(
      restore({ from: backup.file, dataDir: gone, nats: suite.nats.url, stream, log }),
      (err: Error) => err instanceof RestoreError && new RegExp(`no longer holds entry ${backup.lsn + 1}`).test(err.message),
    );
    assert.deepEqual(readdirSync(gone), [], 'a failed restore leaves nothing behind');
  } finally {
    await writer.stop();
  }
});

test('trellis backup and trellis restore: one line each, usage errors exit 2', { skip }, async () => {
  const files = folder();
  const writerDir = folder();
  const writer = await startTestServer(['--data', writerDir, '--nats', suite.nats.url, '--stream', 'cli']);
  const lines: string[] = [];
  const original = { log: console.log, error: console.error };
  console.log = (line: string) => void lines.push(line);
  console.error = (line: string) => void lines.push(line);
  try {
    await write(writer, ADD_ONE);
    const file = join(files, 'cli.trellis');
    assert.equal(await backupMain(['--data', writerDir, '--to', file]), 0);
    assert.match(
      lines.pop()!,
      new RegExp(
        `^trellis backup: wrote ${file} \\(\\d+ bytes, sha256 [0-9a-f]{64}\\) at LSN 1 \\(hash [0-9a-f]{64}, epoch 1, last batch `,
      ),
    );
    assert.equal(await backupMain(['--url', writer.url, '--to', join(files, 'url.trellis')]), 0);
    assert.match(lines.pop()!, /at LSN 1 /);
    assert.equal(await backupMain(['--to', file]), 2);
    assert.match(lines.pop()!, /give one of --data DIR and --url URL/);
    const target = join(folder(), 'db');
    assert.equal(await restoreMain(['--from', file, '--data', target]), 0);
    assert.match(lines.pop()!, new RegExp(`^trellis restore: ${target} holds the database at LSN 1 `));
    assert.equal(await restoreMain(['--from', file, '--data', target]), 1);
    assert.match(lines.pop()!, /^trellis restore: .* is not empty/);
    assert.equal(await restoreMain(['--from', file, '--data', target, '--until-time', 'soon']), 2);
    assert.match(lines.pop()!, /--until-time must be an ISO 8601 time/);
    // The restored folder serves.
    const restored = await startTestServer(['--data', target]);
    try {
      const res = await fetch(`${restored.url}/v2/query`, {
        method: 'POST',
        body: JSON.stringify({
          request_type: 'read',
          query: {
            read: { entries: [{ query: { name: 'c', root: { count: { input: { nodes: { reference: 'all' } } } } } }], returns: ['c'] },
          },
        }),
      });
      assert.equal(await res.text(), '{"c":[1]}');
    } finally {
      await restored.stop();
    }
  } finally {
    console.log = original.log;
    console.error = original.error;
    await writer.stop();
  }
});
