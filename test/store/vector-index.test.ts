/**
 * The vector index's background work (src/store/vector-index.ts, index-work.ts): a build
 * over vectors already stored queues their links, and the background steps apply them all,
 * however the steps' time runs out; how much is queued and applied is visible in the index
 * operation's `backlog`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { preparePlan, runRead, runWrite } from '../../src/database.js';
import { openStore, type Store } from '../../src/store/index.js';
import { q } from '../helpers/embedded.js';
import { Rng } from '../helpers/prng.js';
import { tempDir } from '../helpers/server.js';
import { parseJson, stringifyJson } from '../../src/core/json.js';

const exec = { timeoutMs: 10_000 };
const write = (store: Store, entries: unknown[], returns: string[] = []) =>
  runWrite(store, preparePlan({ request_type: 'write', query: { write: { entries, returns } } }), exec);
const read = (store: Store, entries: unknown[], returns: string[]) =>
  parseJson(runRead(store, preparePlan({ request_type: 'read', query: { read: { entries, returns } } }), exec)) as Record<
    string,
    unknown[]
  >;

interface OperationStatus {
  status: string;
  backlog: { queued: string; applied: string; applied_per_s: number; reach_checked: boolean };
}

async function operation(store: Store, id: string): Promise<OperationStatus> {
  const res = read(store, [q('op', { get_index_operation: { operation_id: id } })], ['op']);
  return res['op'] as unknown as OperationStatus;
}

test('a build over stored vectors links every one, even when every background step runs out of time', async () => {
  const dir = tempDir('trellis-vector-build-');
  // Steps of 50 µs: a build step indexes 64 elements (it looks at the clock every 64), so
  // every step ends past its deadline, the one that finishes the build included. That step
  // used to skip the queue and report no work left: the links then waited for the next
  // write to the label, which may never come.
  const store = await openStore({ path: dir.path, indexStepMs: 0.05 });
  try {
    const rng = new Rng(7);
    const n = 64 * 3 + 63;
    const docs = Array.from({ length: n }, () =>
      q(null, { add_n: { label: 'Doc', properties: [['emb', { value: { f32_array: Array.from({ length: 8 }, () => rng.float()) } }]] } }),
    );
    await write(store, docs);
    const spec = { node_vector: { label: 'Doc', property: 'emb', dimension: 8, metric: 'euclidean' } };
    const receipt = (await write(store, [q('r', { create_index: { spec } })], ['r']).then(parseJson)) as { r: { operation_id: string } };
    const id = receipt.r.operation_id;
    let last: OperationStatus | undefined;
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      last = await operation(store, id);
      if (last.status === 'succeeded' && last.backlog.queued === '0') break;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(last?.status, 'succeeded');
    assert.equal(last?.backlog.queued, '0', `links left queued: ${stringifyJson(last)}`);
    // The build's scan queues a link per element (and an unlink first, in case it was indexed).
    assert.ok(Number(last?.backlog.applied) >= n, `at least a link per element applied: ${last?.backlog.applied}`);
    assert.ok(last!.backlog.applied_per_s > 0, 'the steps measured their rate');
    // A write to another label afterwards changes nothing of it.
    await write(store, [q(null, { add_n: { label: 'Other', properties: [] } })]);
    assert.deepEqual((await operation(store, id)).backlog.queued, '0');
  } finally {
    await store.close();
    dir.remove();
  }
});

test('the backlog counts what is queued until the steps apply it', async () => {
  const dir = tempDir('trellis-vector-backlog-');
  const store = await openStore({ path: dir.path });
  try {
    const spec = { node_vector: { label: 'Doc', property: 'emb', dimension: 4, metric: 'cosine' } };
    const receipt = (await write(store, [q('r', { create_index: { spec } })], ['r']).then(parseJson)) as { r: { operation_id: string } };
    const id = receipt.r.operation_id;
    assert.equal((await operation(store, id)).backlog.reach_checked, true, 'an empty index has nothing to check');
    const rng = new Rng(3);
    const add = () =>
      q(null, { add_n: { label: 'Doc', properties: [['emb', { value: { f32_array: [1, rng.float(), rng.float(), rng.float()] } }]] } });
    const batches = 20;
    for (let b = 0; b < batches; b++) await write(store, Array.from({ length: 50 }, add));
    const seen = new Set<string>();
    let status = await operation(store, id);
    const deadline = Date.now() + 30_000;
    while (status.backlog.queued !== '0' && Date.now() < deadline) {
      seen.add(status.backlog.queued);
      await new Promise((resolve) => setTimeout(resolve, 5));
      status = await operation(store, id);
    }
    assert.equal(status.backlog.queued, '0');
    assert.equal(status.backlog.applied, String(batches * 50));
    for (const queued of seen) assert.ok(Number(queued) <= batches * 50, `queued ${queued} is at most what was written`);
    // The builder's reach sweep ends its pass after the last add and publishes it.
    while (!status.backlog.reach_checked && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
      status = await operation(store, id);
    }
    assert.equal(status.backlog.reach_checked, true, 'a pass checked every element after the last add');

    // Manhattan indexes (the older engine) have no sweep: always checked.
    const manhattan = { node_vector: { label: 'M', property: 'emb', dimension: 4, metric: 'manhattan' } };
    const made = (await write(store, [q('r', { create_index: { spec: manhattan } })], ['r']).then(parseJson)) as {
      r: { operation_id: string };
    };
    await write(
      store,
      Array.from({ length: 10 }, () =>
        q(null, { add_n: { label: 'M', properties: [['emb', { value: { f32_array: [1, 2, 3, rng.float()] } }]] } }),
      ),
    );
    assert.equal((await operation(store, made.r.operation_id)).backlog.reach_checked, true);
  } finally {
    await store.close();
    dir.remove();
  }
});
