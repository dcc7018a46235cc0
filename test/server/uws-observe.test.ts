/**
 * The transport's observability hooks (src/server/uws.ts): `requestId` names each request
 * and the name goes back in `x-request-id` on every answer; `onAnswer` hears of every
 * answer written, the transport's own included, and not of a request whose client left.
 */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { requestIdOf } from '../../src/observe/log.js';
import type { Handler, HttpRequest } from '../../src/server/http-types.js';
import { startHttpServer, type HttpServer } from '../../src/server/uws.js';
import { chunk, headerOf, raw, rawExchange, statusOf } from '../helpers/raw.js';

interface Heard {
  method: string;
  path: string;
  id: string | undefined;
  status: number;
  body: string;
  seconds: number;
}

describe('uWS transport with request ids and an answer listener', () => {
  let server: HttpServer;
  let base: string;
  const heard: Heard[] = [];
  const errors: { err: unknown; id: string | undefined }[] = [];
  const seen: HttpRequest[] = [];
  let release: (() => void) | undefined;

  const handler: Handler = (req) => {
    seen.push(req);
    switch (req.path) {
      case '/throw':
        throw new Error('boom');
      case '/slow':
        return new Promise((resolve) => setTimeout(() => resolve({ status: 200, body: '{}' }), 60));
      case '/hold':
        return new Promise((resolve) => (release = () => resolve({ status: 200, body: '{}' })));
      case '/own-id':
        return { status: 200, headers: { 'X-Request-Id': 'from-a-backend' }, body: '{}' };
      default:
        return { status: 200, body: JSON.stringify({ id: req.id }) };
    }
  };

  before(async () => {
    server = await startHttpServer({
      host: '127.0.0.1',
      port: 0,
      maxBodyBytes: 100,
      handler,
      requestId: requestIdOf,
      onAnswer: (method, path, id, status, body, seconds) =>
        heard.push({ method, path, id, status, body: typeof body === 'string' ? body : Buffer.from(body).toString(), seconds }),
      onError: (err, id) => errors.push({ err, id }),
    });
    base = `http://127.0.0.1:${server.port}`;
  });
  after(() => server.close());

  test('the handler sees the id the answer carries, and the listener hears it, on GET and POST', async () => {
    for (const [method, body] of [
      ['GET', null],
      ['POST', 'abc'],
    ] as const) {
      const from = heard.length;
      const res = await fetch(`${base}/echo`, { method, body, headers: { 'x-request-id': `sent-${method}` } });
      assert.deepEqual(await res.json(), { id: `sent-${method}` });
      assert.equal(res.headers.get('x-request-id'), `sent-${method}`);
      assert.equal(seen.at(-1)!.id, `sent-${method}`);
      assert.deepEqual(
        heard.slice(from).map((h) => [h.method, h.path, h.id, h.status]),
        [[method, '/echo', `sent-${method}`, 200]],
      );
    }
  });

  test('seconds run from the complete request to the answer', async () => {
    const from = heard.length;
    assert.equal((await fetch(`${base}/slow`, { method: 'POST', body: 'x' })).status, 200);
    const [slow] = heard.slice(from);
    assert.ok(slow!.seconds >= 0.05 && slow!.seconds < 5, `${slow!.seconds} s`);
  });

  test('the time a body takes to arrive is not counted', async () => {
    const from = heard.length;
    const head = 'POST /echo HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n';
    // The last of the body comes 1.6 s after the head; the handler answers at once. The
    // bound leaves a loaded test machine most of a second of stalls before it misjudges.
    const out = await raw(server.port, [head, chunk('a'), chunk('b'), chunk('c'), '0\r\n\r\n'], { gapMs: 400, waitMs: 8000 });
    assert.equal(statusOf(out), 200);
    const [streamed] = heard.slice(from);
    assert.ok(streamed!.seconds < 1, `${streamed!.seconds} s, as if from the head`);
  });

  test("a handler's own x-request-id is not sent beside the transport's", async () => {
    const out = await raw(server.port, ['GET /own-id HTTP/1.1\r\nHost: x\r\nX-Request-Id: mine\r\nConnection: close\r\n\r\n']);
    assert.deepEqual(
      out.split('\r\n').filter((l) => /^x-request-id:/i.test(l)),
      ['x-request-id: mine'],
    );
  });

  test('a handler that throws: onError gets the id the 500 carries, and the listener hears the 500', async () => {
    const from = heard.length;
    const res = await fetch(`${base}/throw`);
    assert.equal(res.status, 500);
    const id = res.headers.get('x-request-id');
    assert.ok(id);
    assert.equal(errors.at(-1)!.id, id);
    assert.deepEqual(
      heard.slice(from).map((h) => [h.path, h.id, h.status, h.body]),
      [['/throw', id, 500, '{"error":"internal_error","msg":"internal error"}']],
    );
  });

  test("the transport's own 413, at the head and while the body streams, is heard with its id", async () => {
    const from = heard.length;
    const atHead = await rawExchange(server.port, [
      'POST /big HTTP/1.1\r\nHost: x\r\nX-Request-Id: big\r\nContent-Length: 100000000\r\n\r\n',
    ]);
    assert.equal(statusOf(atHead.out), 413);
    const streamed = await rawExchange(
      server.port,
      [
        'POST /big HTTP/1.1\r\nHost: x\r\nX-Request-Id: grows\r\nTransfer-Encoding: chunked\r\n\r\n',
        chunk('a'.repeat(80)),
        chunk('b'.repeat(80)),
      ],
      { gapMs: 20, waitMs: 500 },
    );
    assert.equal(statusOf(streamed.out), 413);
    assert.equal(headerOf(streamed.out, 'x-request-id'), 'grows');
    assert.deepEqual(
      heard.slice(from).map((h) => [h.method, h.path, h.id, h.status]),
      [
        ['POST', '/big', 'big', 413],
        ['POST', '/big', 'grows', 413],
      ],
    );
  });

  test('a request whose client left before its answer is not heard', async () => {
    const from = heard.length;
    const sent = seen.length;
    await rawExchange(server.port, ['GET /hold HTTP/1.1\r\nHost: x\r\n\r\n'], { waitMs: 100, destroyAfter: false });
    assert.equal(seen.length, sent + 1, 'the handler ran');
    // Let the server notice the closed connection before the answer is ready.
    await new Promise((resolve) => setTimeout(resolve, 50));
    release!();
    await new Promise((resolve) => setTimeout(resolve, 50));
    assert.deepEqual(heard.slice(from), []);
  });
});

test('without the hooks, requests have no id and answers no x-request-id', async () => {
  let id: string | undefined = 'unset';
  const server = await startHttpServer({
    host: '127.0.0.1',
    port: 0,
    maxBodyBytes: 10,
    handler: (req) => {
      id = req.id;
      return { status: 200, body: '{}' };
    },
  });
  try {
    const res = await fetch(`http://127.0.0.1:${server.port}/`, { headers: { 'x-request-id': 'ignored' } });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('x-request-id'), null);
    assert.equal(id, undefined);
  } finally {
    server.close();
  }
});
