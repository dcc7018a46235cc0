/**
 * The change log (src/store/change-log.ts): every committed batch is one entry with the
 * next LSN and a chained hash, written in the batch's own transaction; replaying the
 * entries on an empty replica gives exactly the writer's data, byte for byte.
 */
import { execFileSync } from 'node:child_process';
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { open } from 'lmdb';
import { preparePlan, runRead, runWrite } from '../../src/database.js';
import { chainHash, entryHeader, LogMismatch, openStore, ZERO_HASH, type Store } from '../../src/store/index.js';
import { q } from '../helpers/embedded.js';
import { tempDir } from '../helpers/server.js';
import { folderDigest, indexRequests, mixedWrites, searchRequests } from '../helpers/replication.js';

const exec = { timeoutMs: 30_000 };
const run = (store: Store, body: object) => runWrite(store, preparePlan(body), exec);
const addUser = (name: string) => ({
  request_type: 'write',
  query: { write: { entries: [q(null, { add_n: { label: 'User', properties: [['name', { value: { string: name } }]] } })], returns: [] } },
});

/** Waits until no background index work is queued (its steps are batches too). */
async function idle(store: Store): Promise<void> {
  for (let i = 0; i < 3000; i++) {
    let queued = 0;
    store.read((r) => {
      // A vector graph's reach sweep publishes once more after its queue empties.
      for (const { backlog } of r.vectorBacklogs()) queued += backlog.queued + (backlog.reachChecked ? 0 : 1);
      for (const def of r.indexCatalog().byIdentity.values()) if (def.state !== 'active') queued++;
    });
    const before = store.logPosition().lsn;
    await new Promise((resolve) => setTimeout(resolve, 20));
    if (queued === 0 && store.logPosition().lsn === before) return;
  }
  throw new Error('background index work did not finish');
}

test('LSNs are consecutive from 1, each entry chains the previous hash, and the position follows the newest', async () => {
  const dir = tempDir('trellis-log-');
  const store = await openStore({ path: dir.path, keepLog: true });
  try {
    assert.deepEqual(store.logPosition(), { lsn: 0, hash: ZERO_HASH, epoch: 1, time: 0 });
    const lsns: number[] = [];
    for (let i = 0; i < 5; i++) lsns.push((await store.writeLogged((w) => w.createNode('User', { n: i }))).lsn);
    assert.deepEqual(lsns, [1, 2, 3, 4, 5]);
    // Batches of one event turn share a commit, and still get an entry each.
    const together = await Promise.all([0, 1, 2].map((i) => store.writeLogged((w) => w.createNode('User', { t: i }))));
    assert.deepEqual(
      together.map((c) => c.lsn),
      [6, 7, 8],
    );
    const entries = store.logEntries(1, 100);
    assert.deepEqual(
      entries.map((e) => e.lsn),
      [1, 2, 3, 4, 5, 6, 7, 8],
    );
    let hash = ZERO_HASH;
    for (const e of entries) {
      hash = chainHash(hash, e.entry);
      assert.ok(hash.equals(e.hash), `the hash of entry ${e.lsn} chains`);
      const header = entryHeader(e.entry);
      assert.equal(header.lsn, e.lsn);
      assert.equal(header.epoch, 1);
      assert.ok(header.count >= 2, 'a node creation writes its record and more');
    }
    const position = store.logPosition();
    assert.equal(position.lsn, 8);
    assert.ok(position.hash.equals(hash));
  } finally {
    await store.close();
    dir.remove();
  }
});

test('a batch that rolls back leaves no entry and uses no LSN; one that changes nothing answers the current LSN', async () => {
  const dir = tempDir('trellis-log-');
  const store = await openStore({ path: dir.path, keepLog: true });
  try {
    assert.equal((await store.writeLogged((w) => w.createNode('A', {}))).lsn, 1);
    await assert.rejects(
      store.writeLogged((w) => {
        w.createNode('B', {});
        throw new Error('changed my mind');
      }),
      /changed my mind/,
    );
    assert.equal((await store.writeLogged(() => 'nothing')).lsn, 1);
    assert.equal((await store.writeLogged((w) => w.createNode('C', {}))).lsn, 2);
    assert.deepEqual(
      store.logEntries(1, 10).map((e) => e.lsn),
      [1, 2],
    );
    // The rolled-back node is nowhere: the replayed copy below has exactly A and C.
    assert.equal(
      store.read((r) => r.nodeCount()),
      2,
    );
  } finally {
    await store.close();
    dir.remove();
  }
});

/** The position as `meta` records it (its LSN), read from the closed folder; undefined when none is. */
async function recordedLsn(path: string): Promise<number | undefined> {
  const env = open({ path, maxDbs: 128, readOnly: true });
  try {
    const raw = env.openDB('meta', {}).get('log_position') as Uint8Array | undefined;
    return raw === undefined ? undefined : Number(Buffer.from(raw).readBigUInt64LE(0));
  } finally {
    await env.close();
  }
}

test('a writer that keeps its rows holds its position in the newest row: meta is not rewritten per batch, and a trim that takes the newest row records it first', async () => {
  const dir = tempDir('trellis-log-');
  let store = await openStore({ path: dir.path, keepLog: true });
  try {
    for (let i = 0; i < 3; i++) await store.writeLogged((w) => w.createNode('A', { i }));
    const last = store.logEntries(3, 1)[0]!;
    await store.close();
    assert.equal(await recordedLsn(dir.path), undefined, 'no batch wrote the position to meta');
    store = await openStore({ path: dir.path, keepLog: true });
    const reopened = store.logPosition();
    assert.equal(reopened.lsn, 3);
    assert.ok(reopened.hash.equals(last.hash), "the position carries the newest entry's hash");
    assert.equal((await store.writeLogged((w) => w.createNode('A', {}))).lsn, 4);
    assert.equal(await store.trimLog(4), 4);
    assert.equal(store.firstLogged(), null);
    assert.equal(store.logPosition().lsn, 4, 'the trim kept the position');
    await store.close();
    assert.equal(await recordedLsn(dir.path), 4, 'the trim recorded the position in meta');
    store = await openStore({ path: dir.path, keepLog: true });
    assert.equal((await store.writeLogged((w) => w.createNode('A', {}))).lsn, 5);
  } finally {
    await store.close();
    dir.remove();
  }
});

test('without keepLog only the position advances; trimLog drops published rows and is not itself logged', async () => {
  const dir = tempDir('trellis-log-');
  let store = await openStore({ path: dir.path });
  try {
    await store.writeLogged((w) => w.createNode('A', {}));
    assert.equal(store.logPosition().lsn, 1);
    assert.deepEqual(store.logEntries(1, 10), []);
    await store.close();
    store = await openStore({ path: dir.path, keepLog: true });
    for (let i = 0; i < 4; i++) await store.writeLogged((w) => w.createNode('A', {}));
    assert.equal(store.firstLogged(), 2);
    assert.equal(await store.trimLog(3), 2);
    assert.equal(store.firstLogged(), 4);
    assert.equal(store.logPosition().lsn, 5, 'trimming logged nothing');
  } finally {
    await store.close();
    dir.remove();
  }
});

test('without keepLog the position holds the same chained hash as with it (only the hash is copied, not the row)', async () => {
  // Each store in a process of its own, at the same clock: an entry holds its time, and
  // stores of one process share a column version counter, which entries record too.
  const storeModule = new URL('../../src/store/index.js', import.meta.url).href;
  const script = (path: string, keepLog: boolean) =>
    `Date.now = () => 1800000000000; const { openStore } = await import(${JSON.stringify(storeModule)});` +
    `const s = await openStore({ path: ${JSON.stringify(path)}, keepLog: ${keepLog} });` +
    `for (const name of ['ann', 'bob']) await s.writeLogged((w) => w.createNode('User', { name }));` +
    `const p = s.logPosition(); console.log(JSON.stringify({ lsn: p.lsn, hash: p.hash.toString('hex'), kept: s.logEntries(1, 10).length }));` +
    `await s.close();`;
  const dirs = [tempDir('trellis-log-kept-'), tempDir('trellis-log-bare-')];
  try {
    const [withLog, without] = dirs.map((d, i) =>
      JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', script(d.path, i === 0)]).toString()),
    );
    assert.deepEqual(withLog, { ...without, kept: 2 }, 'the same LSN and hash; only the keeping store kept its two entries');
    assert.equal(without.kept, 0);
    assert.notEqual(without.hash, ZERO_HASH.toString('hex'));
  } finally {
    for (const d of dirs) d.remove();
  }
});

test('replaying every entry on an empty replica gives the writer data byte for byte, indexes and searches included', async () => {
  const writerDir = tempDir('trellis-log-writer-');
  const replicaDir = tempDir('trellis-log-replica-');
  const writer = await openStore({ path: writerDir.path, keepLog: true, indexStepMs: 1 });
  const replica = await openStore({ path: replicaDir.path, replica: true });
  try {
    for (const body of indexRequests()) await run(writer, body);
    for (const body of mixedWrites(11, 300)) await run(writer, body).catch(() => undefined);
    // A bulk batch of many changes in one entry.
    await run(writer, {
      request_type: 'write',
      query: { write: { entries: Array.from({ length: 200 }, (_, i) => addUser(`bulk${i}`).query.write.entries[0]), returns: [] } },
    });
    await idle(writer);
    const entries = writer.logEntries(1, 1_000_000);
    assert.equal(entries.length, writer.logPosition().lsn);
    // Applied as a replica gets them: alone, and in groups of several per transaction.
    for (let at = 0, size = 1; at < entries.length; at += size, size = (size * 3) % 17 || 1) {
      await replica.applyEntries(entries.slice(at, at + size));
    }
    assert.deepEqual(replica.logPosition(), writer.logPosition());
    const reads = searchRequests();
    const answers = (store: Store) => reads.map((body) => runRead(store, preparePlan(body), exec));
    assert.deepEqual(answers(replica), answers(writer));
    assert.ok(answers(writer)[1]!.includes('$id'), 'the vector search found documents');
    await writer.close();
    await replica.close();
    assert.deepEqual(folderDigest(replicaDir.path), folderDigest(writerDir.path));
  } finally {
    await writer.close();
    await replica.close();
    writerDir.remove();
    replicaDir.remove();
  }
});

test('a batch that rewrites a few bytes of stored chunks logs deltas, not the chunks', async () => {
  const dir = tempDir('trellis-log-');
  const store = await openStore({ path: dir.path, keepLog: true });
  const replicaDir = tempDir('trellis-log-replica-');
  const replica = await openStore({ path: replicaDir.path, replica: true });
  try {
    for (let i = 0; i < 200; i++) await store.writeLogged((w) => w.createNode('A', { i, name: `n${i}` }));
    // Each batch rewrote a label chunk (4 KiB) and two property chunks (kilobytes each).
    const late = store.logEntries(150, 50);
    assert.equal(late.length, 50);
    for (const e of late) assert.ok(e.entry.length < 1024, `entry ${e.lsn} takes ${e.entry.length} bytes`);
    await replica.applyEntries(store.logEntries(1, 1000));
    assert.equal(
      replica.read((r) => r.nodeCount()),
      200,
    );
    await replica.close();
    await store.close();
    assert.deepEqual(folderDigest(replicaDir.path), folderDigest(dir.path));
  } finally {
    await replica.close();
    await store.close();
    dir.remove();
    replicaDir.remove();
  }
});

test("the publisher's read gives the logged rows: from memory for what this writer appended lately, else from the log", async () => {
  const dir = tempDir('trellis-log-');
  let store = await openStore({ path: dir.path, keepLog: true });
  try {
    await Promise.all(Array.from({ length: 30 }, (_, i) => store.writeLogged((w) => w.createNode('A', { i }))));
    const logged = (from: number, upTo: number, limit: number) => store.logEntries(from, limit).filter((e) => e.lsn <= upTo);
    assert.deepEqual(store.committedEntries(1, 30, 10), logged(1, 30, 10));
    assert.deepEqual(store.committedEntries(11, 25, 100), logged(11, 25, 100), 'only up to the committed LSN asked');
    assert.deepEqual(store.committedEntries(3, 30, 5), logged(3, 30, 5), 'an earlier start (published again) reads the log');
    await store.close();
    store = await openStore({ path: dir.path, keepLog: true });
    assert.deepEqual(store.committedEntries(26, 30, 100), logged(26, 30, 100), 'after a restart, from the log');
    await store.writeLogged((w) => w.createNode('A', {}));
    assert.deepEqual(store.committedEntries(26, 31, 100), logged(26, 31, 100));
  } finally {
    await store.close();
    dir.remove();
  }
});

test('a replica refuses an entry that skips an LSN or does not chain, and keeps its position (a group all or none)', async () => {
  const writerDir = tempDir('trellis-log-writer-');
  const replicaDir = tempDir('trellis-log-replica-');
  const writer = await openStore({ path: writerDir.path, keepLog: true });
  const replica = await openStore({ path: replicaDir.path, replica: true });
  try {
    for (let i = 0; i < 4; i++) await writer.writeLogged((w) => w.createNode('A', { i }));
    const [one, two, three, four] = writer.logEntries(1, 4);
    await assert.rejects(
      replica.applyEntries([two!]),
      (err: unknown) => err instanceof LogMismatch && /does not follow the applied LSN 0/.test(err.message),
    );
    await replica.applyEntries([one!]);
    await assert.rejects(
      replica.applyEntries([{ ...two!, hash: three!.hash }]),
      (err: unknown) => err instanceof LogMismatch && /entry 2 does not chain/.test(err.message),
    );
    // The group's third entry does not chain: its first two are not applied either.
    await assert.rejects(
      replica.applyEntries([two!, three!, { ...four!, hash: two!.hash }]),
      (err: unknown) => err instanceof LogMismatch && /entry 4 does not chain/.test(err.message),
    );
    assert.equal(replica.logPosition().lsn, 1);
    assert.equal(
      replica.read((r) => r.nodeCount()),
      1,
    );
    await assert.rejects(
      replica.writeLogged((w) => w.createNode('B', {})),
      /is a replica/,
    );
  } finally {
    await writer.close();
    await replica.close();
    writerDir.remove();
    replicaDir.remove();
  }
});

test('a format 3 database opens as it is, and a writer stamps it 4', async () => {
  const dir = tempDir('trellis-log-format-');
  const store = await openStore({ path: dir.path });
  await store.writeLogged((w) => w.createNode('A', {}));
  await store.close();
  const env = open({ path: dir.path, maxDbs: 128 });
  const meta = env.openDB('meta', {});
  await meta.put('format_version', 3);
  await env.close();
  const reader = await openStore({ path: dir.path, readOnly: true });
  assert.equal(
    reader.read((r) => r.nodeCount()),
    1,
  );
  await reader.close();
  const again = await openStore({ path: dir.path });
  assert.equal((await again.writeLogged((w) => w.createNode('B', {}))).lsn, 2);
  await again.close();
  const check = open({ path: dir.path, maxDbs: 128, readOnly: true });
  assert.equal(check.openDB('meta', {}).get('format_version'), 4);
  await check.close();
  dir.remove();
});

test('a writer that logs nothing only marks the history; the next logging open continues it with one reset entry', async () => {
  const dir = tempDir();
  try {
    const logged = await openStore({ path: dir.path });
    await logged.write((w) => void w.createNode('A', {}));
    const before = logged.logPosition();
    await logged.close();
    assert.equal(before.lsn, 1);
    const quiet = await openStore({ path: dir.path, unlogged: true });
    for (let i = 0; i < 3; i++) {
      const done = await quiet.writeLogged((w) => w.createNode('B', {}));
      assert.equal(done.lsn, 1, 'an unlogged batch answers the current LSN');
    }
    assert.deepEqual(quiet.logPosition(), before, 'the position stays');
    assert.deepEqual(quiet.logEntries(1, 10), [], 'no entry is recorded');
    await quiet.close();
    const again = await openStore({ path: dir.path });
    try {
      const position = again.logPosition();
      assert.equal(position.lsn, 2, 'one reset entry for the skipped batches');
      const [reset] = again.logEntries(2, 10);
      assert.equal(entryHeader(reset!.entry).count, 0);
      assert.deepEqual(reset!.hash, chainHash(before.hash, reset!.entry));
      assert.equal((await again.writeLogged((w) => w.createNode('C', {}))).lsn, 3);
    } finally {
      await again.close();
    }
    // The mark is gone: opening again writes no second reset.
    const third = await openStore({ path: dir.path });
    assert.equal(third.logPosition().lsn, 3);
    await third.close();
  } finally {
    dir.remove();
  }
});
