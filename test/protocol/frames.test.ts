/** Read-pool frames and option flags survive the trip between threads exactly. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { decodeAnswers, decodeTask, encodeAnswers, encodeTask } from '../../src/protocol/frames.js';
import { fromOptionFlags, optionFlags } from '../../src/core/request-options.js';

test('tasks: the slice, and flags, spent time, named query numbers and bodies of the requests, empty ones included, in order', () => {
  const bodies = ['{"a":1}', '', 'é'.repeat(1000)].map((s) => new TextEncoder().encode(s));
  const requests = bodies.map((body, i) => ({ flags: i * 3, spentMs: i * 1000 + 7, queryId: 70_000 + i, route: 'query' as const, body }));
  const decoded = decodeTask(encodeTask({ sliceMs: 5, requests }));
  assert.equal(decoded.sliceMs, 5);
  assert.deepEqual(
    decoded.requests.map((f) => [f.flags, f.spentMs, f.queryId, Buffer.from(f.body).toString()]),
    requests.map((f) => [f.flags, f.spentMs, f.queryId, Buffer.from(f.body).toString()]),
  );
  assert.deepEqual(decodeTask(encodeTask({ sliceMs: 0, requests: [] })), { sliceMs: 0, requests: [] });
});

test('answers: responses with their status, text and snapshot LSN, write plans with await-durable, preempted reads with their time', () => {
  const plan = new Uint8Array([1, 2, 3]);
  const withLsn = (lsn: number) => {
    const [answer] = decodeAnswers(encodeAnswers([{ kind: 'response', status: 200, text: '1', lsn }]));
    return answer?.kind === 'response' ? answer.lsn : null;
  };
  for (const lsn of [0, 1, 2 ** 32 - 2, 2 ** 32 - 1, 2 ** 32, 2 ** 45 + 7]) assert.equal(withLsn(lsn), lsn, `LSN ${lsn}`);
  const bytes = encodeAnswers([
    { kind: 'response', status: 200, text: '{"r":["é"]}' },
    { kind: 'write', awaitDurable: true, plan },
    { kind: 'response', status: 408, body: new TextEncoder().encode('{}') },
    { kind: 'write', awaitDurable: false, plan: new Uint8Array(0) },
    { kind: 'preempted', spentMs: 12.4 },
  ]);
  const [a, b, c, d, e] = decodeAnswers(bytes);
  assert.deepEqual(e, { kind: 'preempted', spentMs: 12 });
  assert.deepEqual(a?.kind === 'response' && [a.status, Buffer.from(a.body).toString(), a.lsn], [200, '{"r":["é"]}', undefined]);
  assert.deepEqual(b?.kind === 'write' && [b.awaitDurable, [...b.plan]], [true, [1, 2, 3]]);
  assert.deepEqual(c?.kind === 'response' && [c.status, Buffer.from(c.body).toString()], [408, '{}']);
  assert.deepEqual(d?.kind === 'write' && [d.awaitDurable, d.plan.length], [false, 0]);
});

test('option flags keep every combination, await-durable tri-state included', () => {
  for (const warm of [false, true]) {
    for (const requireWriter of [false, true]) {
      for (const awaitDurable of [undefined, false, true]) {
        const o = { warm, requireWriter, awaitDurable };
        assert.deepEqual(fromOptionFlags(optionFlags(o)), o);
      }
    }
  }
});
