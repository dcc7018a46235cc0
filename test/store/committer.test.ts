/**
 * The committer (src/store/committer.ts) against a stand-in for lmdb-js's environment, for
 * failures a real disk does not produce on demand: a failed commit whose cause lmdb-js
 * never names, and a batch whose transaction cannot even start.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Database, RootDatabase } from 'lmdb';
import { GraphError } from '../../src/core/errors.js';
import { Committer } from '../../src/store/committer.js';

/** What lmdb-js's childTransaction does on each call, in turn: its callback runs first unless it throws. */
type Step = 'commit' | 'fail' | 'fail-silently' | 'throw';

/** The committer, and what it told its owner: caches dropped, lines logged. */
function committer(steps: Step[]): { c: Committer; dropped: () => number; logged: string[] } {
  let dropped = 0;
  const logged: string[] = [];
  const env = {
    childTransaction(callback: () => unknown): Promise<unknown> {
      const step = steps.shift() ?? 'commit';
      if (step === 'throw') throw new Error('the transaction cannot start');
      callback();
      if (step === 'commit') return Promise.resolve(true);
      // lmdb-js rejects every batch of a failed commit with one error whose cause is a promise.
      const commitError = step === 'fail' ? Promise.resolve() : new Promise<never>(() => {});
      return Promise.reject(Object.assign(new Error('the commit failed'), { commitError }));
    },
  } as unknown as RootDatabase;
  const meta = { get: () => undefined, putSync: () => undefined } as unknown as Database<number, string>;
  const c = new Committer(
    env,
    meta,
    '/nowhere',
    () => dropped++,
    (line) => logged.push(line),
  );
  return { c, dropped: () => dropped, logged };
}

const batch = (value: number) => () => ({ value, onCommit: () => undefined });

test('a failed commit whose cause lmdb-js never names is still answered with storage_error', { timeout: 10_000 }, async () => {
  const { c, dropped } = committer(['fail-silently', 'fail-silently']);
  await assert.rejects(c.submit(batch(1), false), (err: unknown) => err instanceof GraphError && err.code === 'storage_error');
  // Both tries failed (together, then alone): each dropped what the writer had cached.
  assert.equal(c.stats.commitFailures, 2);
  assert.equal(dropped(), 2);
  c.close();
});

test('batches committing one at a time after a failure carry on past one whose transaction cannot start', async () => {
  // The commit fails, the batch is tried alone and cannot start; the next batch, queued
  // behind it, still commits.
  const { c, dropped, logged } = committer(['fail', 'throw', 'commit']);
  await assert.rejects(c.submit(batch(1), false), /the transaction cannot start/);
  assert.equal((await c.submit(batch(2), false)).value, 2);
  assert.equal(c.stats.commitFailures, 1);
  assert.equal(dropped(), 1);
  assert.deepEqual(logged, [], 'nothing was visible before the failure: nothing to warn operators about');
  c.close();
});
