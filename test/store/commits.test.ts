/**
 * When write batches are answered (src/store/committer.ts, commit-watch.ts): plain ones
 * when their commit is visible, durable ones after the flush; and what a failed commit
 * (a full disk) does: only the batch that does not fit fails, with a storage_error that
 * says so, and the store carries on.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { GraphError } from '../../src/core/errors.js';
import { openStore } from '../../src/store/index.js';
import { isTmpfs, mountTmpfs } from '../helpers/tmpfs.js';

// Flush timing needs a real disk: dist/ is in the checkout, not in a tmpfs (checked below).
const ROOT = new URL('../../', import.meta.url).pathname;
const dirs: string[] = [];
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

function diskDir(): string {
  const dir = mkdtempSync(join(ROOT, 'commits-test-'));
  dirs.push(dir);
  return dir;
}

test('plain writes are answered when their commit is visible, before its flush; durable ones after it', async (t) => {
  const dir = diskDir();
  if (isTmpfs(dir)) {
    t.skip('the checkout is on a tmpfs, where a flush takes no time: nothing to tell apart');
    return;
  }
  const store = await openStore({ path: dir });
  try {
    for (let i = 0; i < 40; i++) {
      const id = await store.write((w) => w.createNode('Plain', { i: BigInt(i) }));
      // Answered means visible: a fresh snapshot has it.
      assert.deepEqual(
        store.read((r) => r.getNode(id)),
        { id, label: 'Plain', props: { i: BigInt(i) } },
      );
    }
    const plain = store.commitStats();
    assert.ok(plain.answeredAtVisibility >= 30, `most plain writes answered before their flush: ${JSON.stringify(plain)}`);
    for (let i = 0; i < 10; i++) await store.write((w) => w.createNode('Durable', {}), { durable: true });
    const after = store.commitStats();
    assert.equal(after.answeredAtFlush - plain.answeredAtFlush, 10, 'every durable write waited for its flush');
    assert.equal(after.answeredAtVisibility, plain.answeredAtVisibility);
  } finally {
    await store.close();
  }
});

test('a batch that throws is answered at once with its error; the batches of its commit still commit', async () => {
  const store = await openStore({ path: diskDir() });
  try {
    const boom = new GraphError('invalid_query', 'boom');
    const results = await Promise.allSettled([
      store.write((w) => w.createNode('A', {})),
      store.write((w) => {
        w.createNode('Gone', {});
        throw boom;
      }),
      store.write((w) => w.createNode('B', {})),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled'],
    );
    assert.equal((results[1] as PromiseRejectedResult).reason, boom);
    store.read((r) => {
      assert.deepEqual([...r.nodeIdsByLabel('Gone')], []);
      assert.equal(r.nodeCount(), 2);
    });
  } finally {
    await store.close();
  }
});

test('a full disk fails only the batch that does not fit; the store carries on and commits it once there is room', async (t) => {
  const fs = mountTmpfs(8 * 1024 * 1024);
  if (typeof fs === 'string') {
    t.skip(fs);
    return;
  }
  try {
    const path = join(fs.path, 'db');
    let store = await openStore({ path });
    for (let i = 0; i < 3; i++) await store.write((w) => w.createNode('Small', { i: BigInt(i) }));
    const filler = fs.fill(1_500_000);
    const big = 'x'.repeat(3_000_000);
    // One event turn: lmdb-js puts the four batches in one commit, which the big one dooms.
    const results = await Promise.allSettled([
      store.write((w) => w.createNode('Small', { i: 10n })),
      store.write((w) => w.createNode('Big', { text: big })),
      store.write((w) => w.createNode('Small', { i: 11n })),
      store.write((w) => w.createNode('Small', { i: 12n })),
    ]);
    assert.deepEqual(
      results.map((r) => r.status),
      ['fulfilled', 'rejected', 'fulfilled', 'fulfilled'],
    );
    const err = (results[1] as PromiseRejectedResult).reason;
    assert.ok(err instanceof GraphError, String(err));
    assert.equal(err.code, 'storage_error');
    assert.match(err.msg, /the disk holding .* is full .*rolled back/);
    assert.ok(store.commitStats().commitFailures >= 1);
    store.read((r) => {
      assert.deepEqual([...r.nodeIdsByLabel('Big')], []);
      assert.equal([...r.nodeIdsByLabel('Small')].length, 6);
    });
    // The name "Big" and property "text" were created by the failed commit only: they must
    // not linger in a cache as if they were stored.
    rmSync(filler);
    const id = await store.write((w) => w.createNode('Big', { text: big }));
    store.read((r) => assert.equal((r.getNode(id)?.props.text as string).length, big.length));
    await store.close();
    store = await openStore({ path });
    store.read((r) => {
      assert.deepEqual([...r.nodeIdsByLabel('Big')], [id]);
      assert.equal(r.getNode(id)?.label, 'Big');
      assert.equal([...r.nodeIdsByLabel('Small')].length, 6);
      assert.equal(r.nodeCount(), 7);
    });
    await store.close();
  } finally {
    fs.unmount();
  }
});
