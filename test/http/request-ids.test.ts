/**
 * Request ids on the real server: every answer carries `x-request-id`, the caller's when
 * it is a plausible id, else a new UUID, the transport's own answers included. The server
 * here runs with `--metrics false`: /metrics is then a 404 like any unknown path.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { countAllRequest, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { headerOf, rawExchange, statusOf } from '../helpers/raw.js';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;
const READ = JSON.stringify(countAllRequest);

const dir = tempDir();
let server: TestServer;
before(async () => {
  server = await startTestServer(['--data', dir.path, '--metrics', 'false']);
});
after(async () => {
  await server.stop();
  dir.remove();
});

async function idOf(path: string, init: RequestInit = {}): Promise<{ status: number; id: string | null }> {
  const res = await fetch(`${server.url}${path}`, init);
  await res.arrayBuffer();
  return { status: res.status, id: res.headers.get('x-request-id') };
}

test('an x-request-id that looks like an id comes back as it was sent', async () => {
  for (const id of ['gw-7f3a9c', 'a', '0123456789abcdef0123456789abcdef', 'svc.host:1/req+42=@_-', 'x'.repeat(128)]) {
    const res = await idOf('/v2/query', { method: 'POST', body: READ, headers: { 'x-request-id': id } });
    assert.deepEqual(res, { status: 200, id });
  }
});

test('without one, every answer gets a new UUID, a different one each time', async () => {
  const ids = new Set<string>();
  for (const [path, init] of [
    ['/v2/query', { method: 'POST', body: READ }],
    ['/v2/query', { method: 'POST', body: READ }],
    ['/healthz', {}],
    ['/readyz', {}],
    ['/nope', {}],
  ] as const) {
    const { id } = await idOf(path, init);
    assert.match(id ?? '', UUID, `${path}: ${id}`);
    ids.add(id!);
  }
  assert.equal(ids.size, 5, 'five answers, five ids');
});

test('an id that does not look like one (a space, a quote, a semicolon, over 128 characters, not ASCII, empty) is replaced by a UUID', async () => {
  // Not ASCII in the middle: uWS drops such bytes at the start of a value before we see it.
  for (const bad of ['has space', 'quote"d', 'semi;colon', 'x'.repeat(129), 'aüb']) {
    const res = await rawExchange(server.port, [`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id: ${bad}\r\nConnection: close\r\n\r\n`]);
    assert.equal(statusOf(res.out), 200);
    assert.match(headerOf(res.out, 'x-request-id') ?? '', UUID, JSON.stringify(bad));
  }
  const empty = await rawExchange(server.port, ['GET /healthz HTTP/1.1\r\nHost: x\r\nX-Request-Id:\r\nConnection: close\r\n\r\n']);
  assert.match(headerOf(empty.out, 'x-request-id') ?? '', UUID, 'an empty id');
});

test("the transport's own answers carry the id too: 413 before the body, 400 for an ambiguous framing", async () => {
  const tooLarge = await rawExchange(server.port, [
    'POST /v2/query HTTP/1.1\r\nHost: x\r\nX-Request-Id: big-1\r\nContent-Length: 100000000\r\n\r\n',
  ]);
  assert.equal(statusOf(tooLarge.out), 413);
  assert.equal(headerOf(tooLarge.out, 'x-request-id'), 'big-1');
  const framing = await rawExchange(server.port, [
    'POST /v2/query HTTP/1.1\r\nHost: x\r\nX-Request-Id: framing-1\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\n{}',
  ]);
  assert.equal(statusOf(framing.out), 400);
  assert.equal(headerOf(framing.out, 'x-request-id'), 'framing-1');
});

test('HEAD answers carry the id as GET does', async () => {
  assert.deepEqual(await idOf('/healthz', { method: 'HEAD', headers: { 'x-request-id': 'head-1' } }), { status: 200, id: 'head-1' });
});

test('--metrics false: GET /metrics is 404 not_found, like any unknown path', async () => {
  const res = await fetch(`${server.url}/metrics`, { headers: { 'x-request-id': 'metrics-off' } });
  assert.equal(res.status, 404);
  assert.deepEqual(await res.json(), { error: 'not_found', msg: 'no route for GET /metrics' });
  assert.equal(res.headers.get('x-request-id'), 'metrics-off');
});
