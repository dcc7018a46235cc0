/** The fuzz suite's oracle (test/helpers/contract.ts) flags every way an answer can break the contract. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { judge, type Asked } from '../helpers/contract.js';
import type { RawOutcome } from '../helpers/raw-http.js';

const answer = (status: number, body: string | Buffer, contentType = 'application/json'): RawOutcome => ({
  kind: 'response',
  response: { status, headers: new Map([['content-type', contentType]]), body: Buffer.isBuffer(body) ? body : Buffer.from(body) },
  ms: 1,
});

test('answers that keep the contract pass', () => {
  assert.equal(judge(answer(200, '{"n":[0],"m":[]}')), undefined);
  assert.equal(judge(answer(200, '{}')), undefined);
  // Index DDL answers are objects (v2 wire §5.10): a receipt, an operation's status.
  assert.equal(judge(answer(200, '{"r":{"kind":"accepted","operation_id":"x","index_id":"1","generation":"1"}}')), undefined);
  assert.equal(judge(answer(200, '{"op":{"status":"succeeded","operation_id":"x"}}')), undefined);
  assert.equal(judge(answer(400, '{"error":"invalid_query_json","msg":"x"}')), undefined);
  assert.equal(judge(answer(413, '{"msg":"","error":"payload_too_large"}')), undefined);
  assert.equal(judge(answer(405, '{"error":"method_not_allowed","msg":"x"}', 'application/json; charset=utf-8')), undefined);
  assert.equal(judge(answer(200, '{"ready":true,"mode":"writer","index_runtime":"ready"}'), { health: true }), undefined);
  // GET / is the explorer's page (the fuzzer's GET of "/" met it once).
  assert.equal(judge(answer(200, '<!doctype html>', 'text/html; charset=utf-8'), { page: true }), undefined);
});

test('every break of the contract is named', () => {
  const cases: [RawOutcome, RegExp, Asked?][] = [
    [{ kind: 'timeout', detail: 'no answer', received: Buffer.alloc(0), ms: 15_000 }, /no answer \(timeout/],
    [{ kind: 'closed', detail: 'closed', received: Buffer.from('HTTP/1.1 2'), ms: 3 }, /no answer \(closed/],
    [answer(500, '{"error":"internal_error","msg":"x"}'), /status 500/],
    [answer(503, '{"error":"not_ready","msg":"x"}'), /status 503/],
    [answer(400, '{"error":"invalid_query_json","msg":"x"}', 'text/plain'), /content-type/],
    [answer(400, Buffer.from([0x7b, 0xff, 0x7d])), /UTF-8/],
    [answer(400, 'error'), /not JSON/],
    [answer(200, '[]'), /not a JSON object/],
    [answer(200, 'null'), /not a JSON object/],
    [answer(200, '{"n":0}'), /"n" is not an array/],
    [answer(200, '{"r":{"kind":"maybe"}}'), /"r" is not an array/],
    [answer(200, '{"ready":true,"mode":"writer"}'), /"ready" is not an array/],
    [answer(200, '{"ready":"yes","mode":"writer"}'), /health answer/, { health: true }],
    [answer(200, '<!doctype html>', 'text/html'), /content-type text\/html/],
    [answer(200, '{"n":[]}'), /page answer: content-type application\/json/, { page: true }],
    [answer(400, '{"error":"invalid_query_json"}'), /keys/],
    [answer(400, '{"error":"invalid_query_json","msg":"x","stack":"..."}'), /keys/],
    [answer(400, '{"error":1,"msg":"x"}'), /not a string/],
    [answer(400, '{"error":"no_such_code","msg":"x"}'), /unknown error code/],
    [answer(404, '{"error":"invalid_query_json","msg":"x"}'), /status 400 in the registry, answered 404/],
  ];
  for (const [outcome, problem, asked] of cases) assert.match(judge(outcome, asked) ?? 'passed', problem);
});
