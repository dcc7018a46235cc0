/**
 * Prepared requests (src/prepared-plans.ts): a request sent with the offset of its
 * parameters keeps its plan per thread, and every later call with other parameters
 * answers exactly what the plain request answers: results, parameter errors and
 * validation that depends on parameter values alike. Calls after the first take the
 * cached path, so each case below calls the same request text several times.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { answerQuery, runRead } from '../../src/database.js';
import { openPathGraph, prop, q, type TestDb } from '../helpers/embedded.js';

let t: TestDb;

// Nodes 0 a, 1 b, 2 c (label P); edges e0 0->1 K, e1 1->2 K.
before(async () => {
  t = await openPathGraph();
});
after(() => t.close());

/** A read request with its parameters last, and where they start. */
function prepared(entries: unknown[], returns: string[], parameters: string, types?: Record<string, string>) {
  const head = Buffer.from(
    `${JSON.stringify({ request_type: 'read', query_name: null, query: { read: { entries, returns } } }).slice(0, -1)}` +
      `${types ? `,"parameter_types":${JSON.stringify(types)}` : ''},"parameters":`,
  );
  return { body: Buffer.concat([head, Buffer.from(parameters), Buffer.from('}')]), paramsAt: head.byteLength };
}

const run = (body: Buffer, paramsAt: number) =>
  answerQuery(
    body,
    { warm: false, requireWriter: false, awaitDurable: false },
    false,
    (plan) => runRead(t.db.store, plan, { timeoutMs: 30_000 }),
    paramsAt,
  );

/** The prepared call and the plain call of the same request give the same answer. */
function same(entries: unknown[], returns: string[], parameters: string, types?: Record<string, string>) {
  const { body, paramsAt } = prepared(entries, returns, parameters, types);
  const plain = run(body, 0);
  const fast = run(body, paramsAt);
  assert.deepEqual(fast, plain, `prepared and plain answers differ for ${parameters}`);
  return fast;
}

const byParam = [q('r', { id: { input: { nodes: { reference: { param: 'id' } } } } })];

test('later calls with other parameters answer with their own parameters, typed and untyped', () => {
  for (const types of [undefined, { id: 'i64' }]) {
    for (const id of [0, 2, 1, 2, 99, 0]) {
      const answer = same(byParam, ['r'], `{"id":${id}}`, types);
      assert.deepEqual(answer, { kind: 'done', status: 200, body: JSON.stringify({ r: id < 3 ? [id] : [] }) });
    }
  }
});

test('a parameter of the wrong type is the same 400 on a cached plan as on the first call', () => {
  same(byParam, ['r'], '{"id":1}', { id: 'i64' });
  const answer = same(byParam, ['r'], '{"id":"one"}', { id: 'i64' });
  assert.equal(answer.kind === 'done' && answer.status, 400);
  assert.match(answer.kind === 'done' ? answer.body : '', /"parameters\.id/);
});

test('validation that depends on parameter values runs on every call, typed or not', () => {
  const older = [
    q('r', {
      id: { input: { where: { input: { nodes: { reference: 'all' } }, predicate: { gt: { left: prop('n'), right: { param: 'p' } } } } } },
    }),
  ];
  for (const types of [undefined, { p: 'value' }]) {
    same(older, ['r'], '{"p":1}', types);
    // A boolean has no order: the same plan with this value is rejected before it runs.
    const answer = same(older, ['r'], '{"p":true}', types);
    assert.equal(answer.kind === 'done' && answer.status, 400);
    assert.match(answer.kind === 'done' ? answer.body : '', /incompatible_comparison/);
    assert.deepEqual(same(older, ['r'], '{"p":2}', types), { kind: 'done', status: 200, body: '{"r":[]}' });
  }
});

test('requests that differ before their parameters keep plans of their own', () => {
  const count = (label: string) => [
    q('m', { count: { input: { has_label: { input: { nodes: { reference: { param: 'ids' } } }, label } } } }),
  ];
  for (let round = 0; round < 3; round++) {
    const p = same(count('P'), ['m'], '{"ids":[0,1,2]}');
    const other = same(count('Q'), ['m'], '{"ids":[0,1,2]}');
    assert.deepEqual([p.kind === 'done' && p.body, other.kind === 'done' && other.body], ['{"m":[3]}', '{"m":[0]}']);
  }
});
