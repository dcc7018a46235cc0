/**
 * Request handling without a transport: readiness rules of handle.ts and the pipeline's
 * mode rules (database.ts answerQuery), driven by an in-process QueryService whose state
 * the test controls (the real one becomes ready too fast to observe its starting state
 * over HTTP).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createHandler } from '../../src/server/handle.js';
import type { HttpRequest, HttpResponse } from '../../src/server/http-types.js';
import type { HealthResponse, QueryService } from '../../src/server/service.js';
import { answerQuery } from '../../src/database.js';

/** Runs the real pipeline; reads answer `{"r":[]}` and writes are recorded, not run. */
function service(health: HealthResponse): QueryService & { calls: string[] } {
  const calls: string[] = [];
  return {
    calls,
    mode: health.mode,
    health: () => health,
    async query(body, options) {
      const answer = answerQuery(body, options, health.mode === 'reader', () => (calls.push('read'), '{"r":[]}'));
      if (answer.kind === 'done') return { status: answer.status, body: answer.body };
      assert.equal(answer.kind, 'write', 'reads without a slice are never preempted');
      if (answer.kind !== 'write') return { status: 500, body: '{}' };
      calls.push(`write durable=${answer.awaitDurable}`);
      return { status: 200, body: '{}' };
    },
  };
}

const request = (method: string, path: string, body = '', headers: Record<string, string> = {}): HttpRequest => ({
  method,
  path,
  headers: new Map(Object.entries(headers)),
  body: Buffer.from(body),
});
const readBody = JSON.stringify({
  request_type: 'read',
  query: { read: { entries: [{ query: { name: 'r', root: { nodes: { reference: 'all' } } } }], returns: ['r'] } },
});
const writeBody = JSON.stringify({
  request_type: 'write',
  query: { write: { entries: [{ query: { root: { add_n: { label: 'X', properties: [] } } } }] } },
});

async function call(svc: QueryService, req: HttpRequest): Promise<HttpResponse & { json: any }> {
  const res = await createHandler(svc)(req);
  return { ...res, json: res.body ? JSON.parse(String(res.body)) : undefined };
}

test('while starting: healthz 200, readyz 503, both with the same HealthResponse; queries 503 not_ready', async () => {
  const svc = service({ ready: false, mode: 'writer', index_runtime: 'starting' });
  const health = await call(svc, request('GET', '/healthz'));
  assert.equal(health.status, 200);
  assert.deepEqual(health.json, { ready: false, mode: 'writer', index_runtime: 'starting' });
  const ready = await call(svc, request('GET', '/readyz'));
  assert.equal(ready.status, 503);
  assert.deepEqual(ready.json, health.json);
  const q = await call(svc, request('POST', '/v2/query', readBody));
  assert.equal(q.status, 503);
  assert.equal(q.json.error, 'not_ready');
  assert.deepEqual(svc.calls, []);
});

test('a failed start keeps readyz at 503 with index_runtime "failed"', async () => {
  const svc = service({ ready: false, mode: 'writer', index_runtime: 'failed' });
  const ready = await call(svc, request('GET', '/readyz'));
  assert.equal(ready.status, 503);
  assert.equal(ready.json.index_runtime, 'failed');
});

test('ready: reads and writes reach the service, await-durable is passed through', async () => {
  const svc = service({ ready: true, mode: 'writer', index_runtime: 'ready' });
  assert.equal((await call(svc, request('POST', '/v2/query', readBody))).status, 200);
  assert.equal((await call(svc, request('POST', '/v2/query', writeBody, { 'x-svc-await-durable': 'true' }))).status, 200);
  assert.equal((await call(svc, request('POST', '/v2/query', writeBody))).status, 200);
  assert.deepEqual(svc.calls, ['read', 'write durable=true', 'write durable=false']);
});

test('reader mode: writes and require-writer are 503 writer_mode_required before any read or write runs', async () => {
  const svc = service({ ready: true, mode: 'reader', index_runtime: 'ready' });
  const w = await call(svc, request('POST', '/v2/query', writeBody));
  assert.equal(w.status, 503);
  assert.equal(w.json.error, 'writer_mode_required');
  const r = await call(svc, request('POST', '/v2/query', readBody, { 'x-svc-require-writer': '1' }));
  assert.equal(r.status, 503);
  assert.equal(r.json.error, 'writer_mode_required');
  assert.deepEqual(svc.calls, []);
});

test('header errors come before body errors (reference order of checks)', async () => {
  const svc = service({ ready: true, mode: 'writer', index_runtime: 'ready' });
  const res = await call(svc, request('POST', '/v2/query', '{bad json', { 'x-svc-warm': 'maybe' }));
  assert.equal(res.status, 400);
  assert.equal(res.json.error, 'invalid_request_option');
});

test('repeated option headers reach the header rules: 400 before the service is asked', async () => {
  const svc = service({ ready: true, mode: 'writer', index_runtime: 'ready' });
  const req = {
    ...request('POST', '/v2/query', readBody, { 'x-svc-warm': 'true' }),
    repeated: new Map([['x-svc-warm', ['true', 'false']]]),
  };
  const res = await call(svc, req);
  assert.equal(res.status, 400);
  assert.deepEqual(res.json, {
    error: 'invalid_request_option',
    msg: 'x-svc-warm is sent 2 times with different values ("true" and "false"); send it once',
  });
  assert.deepEqual(svc.calls, []);
});
