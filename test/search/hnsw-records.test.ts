/**
 * HNSW records in LMDB (src/store/hnsw-records.ts) on a real environment: records and
 * entry points round-trip, indexes sharing the sub-database stay apart and drop alone,
 * and HNSW built and changed inside write transactions keeps its invariant and recall when
 * read back from read transactions.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { open, type RootDatabase } from 'lmdb';
import { hnswConfig, insert, markDeleted, remove, search, type HnswRecord } from '../../src/search/hnsw.js';
import { hnswProblems } from '../../src/search/hnsw-check.js';
import { HNSW_DB_OPTIONS, HnswRecords } from '../../src/store/hnsw-records.js';
import type { HnswDb } from '../../src/store/layout.js';
import { Rng } from '../helpers/prng.js';
import { tempDir } from '../helpers/server.js';
import { bruteForce, randomVectors, recall } from './vectors.js';

const dir = tempDir('trellis-hnsw-');
let env: RootDatabase;
let db: HnswDb;

before(() => {
  env = open({ path: dir.path, maxDbs: 4 });
  db = env.openDB<Buffer, Buffer>('hnsw', HNSW_DB_OPTIONS);
});
after(async () => {
  await env.close();
  dir.remove();
});

const plain = (r: HnswRecord) => ({
  level: r.level,
  vector: Array.from(r.vector),
  neighbours: r.neighbours,
  inbound: r.inbound,
  deleted: r.deleted,
});

test('a record round-trips: odd dimensions, several levels, ids up to 2^53 - 1, the tombstone flag', () => {
  const records = new HnswRecords(db, 1);
  const record: HnswRecord = {
    level: 2,
    vector: new Float32Array([0.5, -1.25, 3, 1e-30, 7]),
    neighbours: [[1, 2, 2 ** 53 - 1], [4], []],
    inbound: [[9], [], [2 ** 40]],
    deleted: false,
  };
  env.transactionSync(() => records.put(7, record));
  assert.deepEqual(plain(records.get(7)!), plain(record));
  assert.equal(records.get(8), undefined);

  // A tombstone of an unread record rewrites the stored bytes with one bit changed.
  env.transactionSync(() => markDeleted(records, 7));
  assert.deepEqual(plain(records.get(7)!), { ...plain(record), deleted: true });

  // Lists read, changed and written back.
  env.transactionSync(() => {
    const r = records.get(7)!;
    r.neighbours[1]!.push(5);
    r.inbound = [[], [3], [2 ** 40]];
    r.deleted = false;
    records.put(7, r);
  });
  assert.deepEqual(plain(records.get(7)!), {
    ...plain(record),
    neighbours: [[1, 2, 2 ** 53 - 1], [4, 5], []],
    inbound: [[], [3], [2 ** 40]],
  });
  env.transactionSync(() => records.remove(7));
  assert.equal(records.get(7), undefined);
});

test('indexes sharing the sub-database keep their own records and entry points, and drop alone', () => {
  const a = new HnswRecords(db, 20);
  const b = new HnswRecords(db, 21);
  const last = new HnswRecords(db, 0xffffffff);
  const rec = (x: number): HnswRecord => ({ level: 0, vector: new Float32Array([x]), neighbours: [[]], inbound: [[]], deleted: false });
  env.transactionSync(() => {
    for (const id of [0, 5, 2 ** 32, 2 ** 53 - 1]) a.put(id, rec(id));
    b.put(5, rec(-5));
    last.put(3, rec(3));
    a.setEntry({ id: 2 ** 32, level: 3 });
    b.setEntry({ id: 5, level: 0 });
    last.setEntry({ id: 3, level: 0 });
  });
  assert.deepEqual([...a.ids()], [0, 5, 2 ** 32, 2 ** 53 - 1]);
  assert.deepEqual([...b.ids()], [5]);
  assert.deepEqual([...last.ids()], [3]);
  assert.deepEqual(a.entry(), { id: 2 ** 32, level: 3 });
  assert.equal(b.get(5)!.vector[0], -5);
  assert.equal(
    env.transactionSync(() => HnswRecords.drop(db, 20)),
    5,
    'four records and the entry point',
  );
  assert.deepEqual([...a.ids()], []);
  assert.equal(a.entry(), undefined);
  assert.deepEqual([...b.ids()], [5]);
  assert.deepEqual(b.entry(), { id: 5, level: 0 });
  env.transactionSync(() => b.setEntry(undefined));
  assert.equal(b.entry(), undefined);
  assert.equal(
    env.transactionSync(() => HnswRecords.drop(db, 0xffffffff)),
    2,
  );
  assert.equal(
    env.transactionSync(() => HnswRecords.drop(db, 21)),
    1,
  );
});

test('built and changed in write transactions, read back in read transactions: sound, with recall', () => {
  const rng = new Rng(31);
  const records = new HnswRecords(db, 40);
  const config = hnswConfig('cosine', { random: () => rng.float() });
  const vectors = randomVectors(rng, 2000, 32);
  for (let start = 0; start < vectors.length; start += 250) {
    env.transactionSync(() => {
      for (let id = start; id < start + 250; id++) insert(records, config, id, vectors[id]!);
    });
  }
  assert.deepEqual(hnswProblems(records, config).slice(0, 5), []);
  const removed = new Set<number>();
  const dead = new Set<number>();
  env.transactionSync(() => {
    for (let i = 0; i < 300; i++) {
      const id = rng.int(vectors.length);
      if (removed.has(id)) continue;
      if (i % 3 === 0) {
        markDeleted(records, id);
        dead.add(id);
      } else {
        remove(records, config, id);
        removed.add(id);
        dead.delete(id);
      }
    }
    // The entry point too, inside the same transaction.
    const entry = records.entry()!;
    remove(records, config, entry.id);
    removed.add(entry.id);
    dead.delete(entry.id);
  });
  assert.deepEqual(hnswProblems(records, config).slice(0, 5), []);
  const alive: [number, Float32Array][] = vectors.flatMap((v, id): [number, Float32Array][] =>
    removed.has(id) || dead.has(id) ? [] : [[id, v]],
  );
  let total = 0;
  for (const q of randomVectors(rng, 50, 32)) {
    const found = search(records, config, q, 10);
    for (const n of found) assert.ok(!removed.has(n.id) && !dead.has(n.id));
    total += recall(found, bruteForce('cosine', q, alive, 10));
  }
  assert.ok(total / 50 >= 0.95, `recall ${total / 50}`);
});

test('a read snapshot taken before a commit does not see its records; the next one does', async () => {
  const rng = new Rng(32);
  const records = new HnswRecords(db, 50);
  const config = hnswConfig('euclidean', { random: () => rng.float() });
  const vectors = randomVectors(rng, 200, 8);
  env.transactionSync(() => vectors.slice(0, 100).forEach((v, id) => insert(records, config, id, v)));
  env.resetReadTxn();
  const committed = env.transaction(() => {
    vectors.slice(100).forEach((v, i) => insert(records, config, 100 + i, v));
    for (let id = 0; id < 50; id++) remove(records, config, id);
  });
  // Still the old snapshot: the asynchronous transaction has not run, or not committed.
  const before = search(records, config, vectors[150]!, 5);
  assert.ok(before.every((n) => n.id < 100));
  assert.deepEqual(hnswProblems(records, config), []);
  await committed;
  env.resetReadTxn();
  assert.equal(search(records, config, vectors[150]!, 1)[0]?.id, 150);
  assert.ok(search(records, config, vectors[10]!, 10).every((n) => n.id >= 50));
  assert.deepEqual(hnswProblems(records, config), []);
  env.transactionSync(() => {
    for (const id of [...records.ids()]) remove(records, config, id);
  });
  assert.deepEqual([...records.ids()], []);
  assert.equal(records.entry(), undefined);
});
