/**
 * What the gateway sends to database servers and what it does with their failures
 * (src/gateway/backends.ts), against scripted servers that record every request and fail
 * on demand: the headers that go out, a read refused with not_ready tried on another
 * server, a write whose connection dropped after it was sent answered "outcome unknown"
 * and never resent, a server's Retry-After passed on, and warming that answers 204 while
 * one server fails. The gateway runs with `"rate_limit": false`, so no Redis is needed,
 * and `"metrics": false`.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { call, startTestGateway, testKey } from '../helpers/gateway.js';
import { OK, startScriptedBackend, type ScriptedBackend } from '../helpers/scripted-backend.js';
import { readRequest, writeRequest, type TestServer } from '../helpers/server.js';

const DATABASES = ['headers', 'retry', 'drop', 'busy', 'warm'] as const;
type Db = (typeof DATABASES)[number];
const key = testKey('app', Object.fromEntries(DATABASES.map((db) => [db, ['read', 'write']])));
const READ = readRequest([]);
const WRITE = writeRequest([]);

describe('gateway forwarding to scripted servers', () => {
  const writers = {} as Record<Db, ScriptedBackend>;
  const readers = {} as Record<Db, ScriptedBackend>;
  let gateway: TestServer;

  before(async () => {
    for (const db of DATABASES) {
      writers[db] = await startScriptedBackend();
      readers[db] = await startScriptedBackend();
    }
    gateway = await startTestGateway({
      mode: 'shared',
      // Never connected: rate limiting is off.
      redis: { url: 'redis://127.0.0.1:1' },
      rate_limit: false,
      metrics: false,
      databases: Object.fromEntries(DATABASES.map((db) => [db, { writer: writers[db].url, readers: [readers[db].url] }])),
      keys: [key],
    });
  });
  after(async () => {
    await gateway?.stop();
    for (const b of [...Object.values(writers), ...Object.values(readers)]) await b.close();
  });

  const send = (database: Db, body: unknown, headers: Record<string, string> = {}) =>
    call(gateway.url, '/v2/query', body, { key: key.key, database, headers });

  test('a write goes out with the option headers spelled the canonical way, the request id, and no API key', async () => {
    const reply = await send('headers', WRITE, { 'X-Helix-Await-Durable': 'true', 'x-request-id': 'fwd-1' });
    assert.equal(reply.status, 200, reply.text);
    assert.equal(readers.headers.requests.length, 0, 'a write reaches the writer alone');
    const [sent] = writers.headers.requests;
    assert.equal(sent!.path, '/v2/query');
    assert.equal(sent!.headers['x-svc-await-durable'], 'true');
    assert.equal(sent!.headers['x-helix-await-durable'], undefined);
    assert.equal(sent!.headers['x-request-id'], 'fwd-1');
    assert.equal(sent!.headers.authorization, undefined, 'the API key stays at the gateway');
    assert.equal(sent!.headers['x-svc-database-id'], undefined);
    assert.deepEqual(JSON.parse(sent!.body), WRITE);
  });

  test('a read refused with 503 not_ready is answered by another server', async () => {
    // Until the gateway's first /readyz poll of a reader is answered (every 200 ms from its
    // start), it counts the reader as a replica of unknown position (Backend.replica): wait
    // for a second poll, so the first one's answer is in.
    while (readers.retry.polls() < 2) await new Promise((resolve) => setTimeout(resolve, 20));
    readers.retry.behave({ kind: 'answer', status: 503, body: '{"error":"not_ready","msg":"starting"}' });
    // Reads are spread over both servers: send until the refusing one got one.
    for (let i = 0; i < 4 && readers.retry.requests.length === 0; i++) {
      const reply = await send('retry', READ);
      assert.equal(reply.status, 200, reply.text);
    }
    assert.equal(readers.retry.requests.length, 1, 'the reader was tried');
    assert.ok(writers.retry.requests.length >= 1, 'and the writer answered');
  });

  test('a write whose connection is lost after it was sent is 503 "outcome unknown", and is not sent again', async () => {
    writers.drop.behave({ kind: 'drop' });
    const reply = await send('drop', WRITE);
    assert.equal(reply.status, 503);
    assert.equal(reply.body.error, 'backend_unavailable');
    assert.match(reply.body.msg, /outcome is unknown/);
    assert.equal(writers.drop.requests.length, 1, 'sent once');
  });

  test("a server's answer is relayed with its status, body and Retry-After", async () => {
    const body = '{"error":"resource_limit","msg":"narrow it"}';
    writers.busy.behave({ kind: 'answer', status: 429, body, headers: { 'retry-after': '3' } });
    const reply = await send('busy', WRITE);
    assert.equal(reply.status, 429);
    assert.equal(reply.text, body);
    assert.equal(reply.headers.get('retry-after'), '3');
    writers.busy.behave(OK);
  });

  test('a warming read reaches every server and is 204 while one of them fails', async () => {
    readers.warm.behave({ kind: 'drop' });
    const reply = await send('warm', READ, { 'x-svc-warm': 'true' });
    assert.equal(reply.status, 204);
    assert.equal(reply.text, '');
    assert.deepEqual([writers.warm.requests.length, readers.warm.requests.length], [1, 1]);
    assert.equal(writers.warm.requests[0]!.headers['x-svc-warm'], 'true');
  });

  test('with "metrics": false, GET /metrics is 404 even for a key, and requests still pass', async () => {
    const res = await fetch(`${gateway.url}/metrics`, { headers: { authorization: `Bearer ${key.key}` } });
    assert.equal(res.status, 404);
    assert.equal(((await res.json()) as { error: string }).error, 'not_found');
    assert.equal((await fetch(`${gateway.url}/readyz`)).status, 200, 'ready without Redis: nothing to rate limit');
  });
});
