/**
 * The read pool with its real worker threads (src/pool/read-pool.ts): workers run their
 * timers, a long read moves out of the way of the short ones batched with it, and a worker
 * that dies is replaced while its requests are tried again once.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { optionFlags } from '../../src/core/request-options.js';
import { ReadPool, type ReadPoolOptions } from '../../src/pool/read-pool.js';
import type { AnswerFrame } from '../../src/protocol/frames.js';
import { openStore } from '../../src/store/index.js';
import { tempDir } from '../helpers/server.js';
import { keepLog, type LoggedLine } from '../helpers/log-sink.js';

const WORKER = new URL('../../workers/read-worker-entry.cjs', import.meta.url);
const FLAGS = optionFlags({ warm: false, requireWriter: false, awaitDurable: undefined });
/** Nodes of the dense graph: every node links to every other, so two hops are N^3 rows. */
const N = 250;

const dir = tempDir('trellis-pool-');
after(() => dir.remove());

before(async () => {
  const store = await openStore({ path: dir.path });
  await store.write((w) => {
    for (let i = 0; i < N; i++) w.createNode('Dense', { i: BigInt(i) });
    for (let a = 0; a < N; a++) for (let b = 0; b < N; b++) if (a !== b) w.createEdge('LINK', a, b, {});
  });
  await store.close();
});

const encode = (request: unknown) => new TextEncoder().encode(JSON.stringify(request));
const read = (root: unknown) =>
  encode({ request_type: 'read', query: { read: { entries: [{ query: { name: 'r', root } }], returns: ['r'] } } });
const all = { nodes: { reference: 'all' } };
const pointRead = (id: number) => read({ value_map: { input: { nodes: { reference: { ids: [id] } } } } });
/** Counts two-hop paths: N*(N-1)^2 rows, over a second of work. */
const longCount = read({ count: { input: { out: { input: { out: { input: all } } } } } });
/** Collects the two-hop paths as rows: far more memory than a small worker heap. */
const memoryHog = read({ out: { input: { out: { input: all } } } });

function json(answer: AnswerFrame): unknown {
  assert.equal(answer.kind, 'response');
  return answer.kind === 'response' ? { status: answer.status, body: JSON.parse(Buffer.from(answer.body).toString()) } : null;
}

async function withPool(options: Partial<ReadPoolOptions>, body: (pool: ReadPool, logs: LoggedLine[]) => Promise<void>): Promise<void> {
  const lines: LoggedLine[] = [];
  const pool = new ReadPool(
    WORKER,
    { dataDir: dir.path, mode: 'reader', queryTimeoutMs: 60_000 },
    { workers: 1, longWorkers: 1, sliceMs: 2, workerHeapMb: 0, log: keepLog(lines), ...options },
  );
  try {
    await pool.warm();
    await body(pool, lines);
  } finally {
    await pool.close();
  }
}

test('workers run their timers: thousands of reads leave no timers behind (lmdb-js arms one per snapshot)', async () => {
  await withPool({}, async (pool) => {
    for (let round = 0; round < 30; round++) {
      const answers = await Promise.all(Array.from({ length: 100 }, (_, i) => pool.submit(pointRead(i % N), FLAGS)));
      for (const a of answers) assert.equal((json(a) as { status: number }).status, 200);
    }
    // Let the workers reach their event loop once more before asking.
    await new Promise((resolve) => setTimeout(resolve, 20));
    for (const s of await pool.stats()) assert.ok(s.timers < 20, `a worker holds ${s.timers} timers after 3000 reads`);
  });
});

test('a read that outruns the slice moves to the long lane: the short reads batched with it are answered first', async () => {
  await withPool({}, async (pool) => {
    const done: string[] = [];
    // One event-loop turn: the long read and the short ones leave in one short-lane task,
    // the long one first.
    const long = pool.submit(longCount, FLAGS).then((a) => (done.push('long'), a));
    const shorts = Array.from({ length: 20 }, (_, i) => pool.submit(pointRead(i), FLAGS).then((a) => (done.push('short'), a)));
    assert.deepEqual([pool.counters().short.queued, pool.counters().short.inFlight], [21, 0], 'queued until the turn ends');
    const shortAnswers = await Promise.all(shorts);
    assert.deepEqual(done, Array(20).fill('short'), 'every short read answered while the long one still runs');
    await new Promise((resolve) => setImmediate(resolve));
    assert.deepEqual([pool.counters().long.queued, pool.counters().long.inFlight], [0, 1], 'the long read runs in the long lane');
    shortAnswers.forEach((a, i) => assert.deepEqual(json(a), { status: 200, body: { r: [{ $id: i, $label: 'Dense', i }] } }));
    assert.deepEqual(json(await long), { status: 200, body: { r: [N * (N - 1) * (N - 1)] } }, 'the long read still answers, in full');
    assert.equal(pool.counters().preempted, 1, 'the long read was counted as moved to the long lane');
    assert.deepEqual([pool.counters().short.queued, pool.counters().long.queued], [0, 0]);
  });
});

test('a Cypher read that outruns the slice moves to the long lane too, and answers in full', async () => {
  await withPool({}, async (pool) => {
    const statement = encode({ query: 'MATCH (a:Dense)-->(b)-->(c) WHERE a.i < 2 RETURN count(*) AS n' });
    const long = pool.submit(statement, FLAGS, 0, 'cypher');
    const short = pool.submit(pointRead(3), FLAGS);
    assert.deepEqual(json(await short), { status: 200, body: { r: [{ $id: 3, $label: 'Dense', i: 3 }] } });
    // Trails from two start nodes: (N - 1) first hops, each with N - 1 second hops.
    assert.deepEqual(json(await long), { status: 200, body: { columns: ['n'], rows: [[2 * (N - 1) * (N - 1)]] } });
    assert.equal(pool.counters().preempted, 1, 'the statement moved to the long lane');
  });
});

test('a worker that dies is logged and replaced; its requests are tried once more, and one that kills two workers gets an error', async () => {
  // No slice: the memory hog dies in the short lane, with the point reads of its task.
  await withPool({ sliceMs: 0, workerHeapMb: 32 }, async (pool, logs) => {
    const hog = pool.submit(memoryHog, FLAGS);
    const shorts = Array.from({ length: 5 }, (_, i) => pool.submit(pointRead(i), FLAGS));
    (await Promise.all(shorts)).forEach((a, i) =>
      assert.deepEqual(json(a), { status: 200, body: { r: [{ $id: i, $label: 'Dense', i }] } }),
    );
    const answer = json(await hog) as { status: number; body: { error: string; msg: string } };
    assert.equal(answer.status, 400);
    assert.equal(answer.body.error, 'limit_exceeded');
    assert.match(answer.body.msg, /more memory than a read worker has/);
    const shown = logs.map((l) => `${l.level} ${l.msg} ${JSON.stringify(l.fields)}`).join('\n');
    assert.ok(
      logs.some(
        (l) =>
          l.level === 'error' &&
          /read worker of the short lane died \(ERR_WORKER_OUT_OF_MEMORY/.test(l.msg) &&
          /6 of its 6 requests are tried again/.test(l.msg),
      ),
      shown,
    );
    assert.ok(
      logs.some((l) => /read worker of the long lane died/.test(l.msg)),
      shown,
    );
    // Both lanes have a working worker again.
    assert.deepEqual(json(await pool.submit(pointRead(7), FLAGS)), { status: 200, body: { r: [{ $id: 7, $label: 'Dense', i: 7 }] } });
    // The metrics' counts: one death per lane, each replaced (a replacement counts once it
    // is ready, which the read above waited for in the short lane), six requests retried.
    const counters = pool.counters();
    assert.deepEqual([counters.short.deaths, counters.long.deaths, counters.retried], [1, 1, 6]);
    assert.equal(counters.short.replacements, 1);
    assert.equal(counters.preempted, 0, 'no slice: nothing was preempted');
    assert.deepEqual(json(await pool.submitLong(pointRead(8), FLAGS, 0)), {
      status: 200,
      body: { r: [{ $id: 8, $label: 'Dense', i: 8 }] },
    });
  });
});

test('a pool on a folder without a database or with a foreign data.mdb fails to warm with the folder error, and closes', async () => {
  const bad = tempDir('trellis-pool-bad-');
  try {
    const start = async (path: string) => {
      const pool = new ReadPool(
        WORKER,
        { dataDir: path, mode: 'reader', queryTimeoutMs: 60_000 },
        { workers: 1, longWorkers: 1, sliceMs: 2, workerHeapMb: 0, log: keepLog([]) },
      );
      try {
        await pool.warm();
        return null;
      } catch (err) {
        return (err as Error).message;
      } finally {
        await pool.close();
      }
    };
    assert.match((await start(join(bad.path, 'missing'))) ?? 'started', /the data folder .*missing does not exist/);
    // (Which check names it, the worker entry's before lmdb loads or openStore's after, is
    // not visible from here: both give this message.)
    writeFileSync(join(bad.path, 'data.mdb'), Buffer.alloc(64 * 1024, 7));
    assert.match((await start(bad.path)) ?? 'started', /data\.mdb is not an LMDB file/);
  } finally {
    bad.remove();
  }
});
