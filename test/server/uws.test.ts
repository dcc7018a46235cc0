import { test, describe, before, after } from 'node:test';
import assert from 'node:assert/strict';
import { createHash, randomBytes } from 'node:crypto';
import { request as httpRequest } from 'node:http';
import { startHttpServer, type HttpServer } from '../../src/server/uws.js';
import type { Handler, HttpRequest, HttpResponse } from '../../src/server/http-types.js';
import { bodyOf, chunk, headerOf, raw } from '../helpers/raw.js';
import { freePort } from '../helpers/redis.js';

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex');

interface Echo {
  method: string;
  path: string;
  headers: Record<string, string>;
  repeated: Record<string, readonly string[]> | null;
  length: number;
  sha: string;
  text: string;
}

function echo(req: HttpRequest): HttpResponse {
  const body: Echo = {
    method: req.method,
    path: req.path,
    headers: Object.fromEntries(req.headers),
    repeated: req.repeated === undefined ? null : Object.fromEntries(req.repeated),
    length: req.body.length,
    sha: sha(req.body),
    text: req.body.length <= 1024 ? req.body.toString('utf8') : '',
  };
  return { status: 200, body: JSON.stringify(body) };
}

const INTERNAL = '{"error":"internal_error","msg":"internal error"}';
const reused = randomBytes(8 * 1024 * 1024);

describe('uWS transport', () => {
  let server: HttpServer;
  let base: string;
  let calls = 0;
  const errors: unknown[] = [];
  const pending: Array<() => void> = [];

  const handler: Handler = (req) => {
    calls++;
    switch (req.path) {
      case '/throw':
        throw new Error('boom with a secret stack');
      case '/reject':
        return Promise.reject(new Error('async boom'));
      case '/invalid':
        return { status: 'nope', body: 1 } as unknown as HttpResponse;
      case '/async':
        return new Promise((resolve) => setTimeout(() => resolve(echo(req)), 5));
      case '/hold':
        return new Promise((resolve) => pending.push(() => resolve(echo(req))));
      case '/status':
        return { status: Number(req.headers.get('x-status')), body: req.headers.get('x-status') === '204' ? '' : '{}' };
      case '/text':
        return {
          status: 200,
          headers: { 'Content-Type': 'text/plain; charset=utf-8', 'x-extra': 'yes', 'content-length': '999' },
          body: 'héllo',
        };
      case '/bytes':
        return { status: 200, body: new Uint8Array([123, 125]) };
      case '/reused': {
        // A body larger than the socket takes at once, its buffer overwritten as soon as
        // `sent` runs (as the writer's snapshot pieces are used again).
        const body = Buffer.from(reused);
        return { status: 200, headers: { 'content-type': 'application/octet-stream' }, body, sent: () => body.fill(0) };
      }
      default:
        return echo(req);
    }
  };

  before(async () => {
    server = await startHttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 2 * 1024 * 1024, handler, onError: (e) => errors.push(e) });
    base = `http://127.0.0.1:${server.port}`;
  });
  after(() => server.close());

  test('port 0 picks a real port', () => {
    assert.ok(server.port > 0 && server.port < 65536);
  });

  test('POST echoes method, path without query, lowercase headers and body', async () => {
    const res = await fetch(`${base}/v2/query?x=1&y=2`, { method: 'POST', headers: { 'X-Svc-Warm': 'TRUE' }, body: 'héllo wörld' });
    assert.equal(res.status, 200);
    assert.equal(res.headers.get('content-type'), 'application/json');
    const e = (await res.json()) as Echo;
    assert.equal(e.method, 'POST');
    assert.equal(e.path, '/v2/query');
    assert.equal(e.headers['x-svc-warm'], 'TRUE');
    assert.equal(e.text, 'héllo wörld');
    assert.equal(e.length, Buffer.byteLength('héllo wörld'));
  });

  test('a multi-chunk body under the limit arrives intact', async () => {
    const payload = randomBytes(1024 * 1024 + 17);
    const res = await fetch(`${base}/big`, { method: 'POST', body: payload });
    const e = (await res.json()) as Echo;
    assert.equal(e.length, payload.length);
    assert.equal(e.sha, sha(payload));
  });

  test('a chunked body (no content-length) under the limit arrives intact', async () => {
    const parts = [randomBytes(70_000), randomBytes(5), randomBytes(300_000)];
    const e = await new Promise<Echo>((resolve, reject) => {
      const req = httpRequest(`${base}/chunked`, { method: 'POST' }, (res) => {
        let text = '';
        res.on('data', (d) => (text += d));
        res.on('end', () => resolve(JSON.parse(text) as Echo));
      });
      req.on('error', reject);
      for (const p of parts) req.write(p);
      req.end();
    });
    assert.equal(e.headers['transfer-encoding'], 'chunked');
    assert.equal(e.length, 370_005);
    assert.equal(e.sha, sha(Buffer.concat(parts)));
  });

  test('a body whose buffer is overwritten once `sent` runs arrives as it was', async () => {
    // The client reads slowly, so most of the body waits in uWS's buffer, not the socket.
    const got = await new Promise<Buffer>((resolve, reject) => {
      const req = httpRequest(`${base}/reused`, { method: 'POST' }, (res) => {
        const parts: Buffer[] = [];
        res.pause();
        setTimeout(() => res.resume(), 200);
        res.on('data', (d: Buffer) => parts.push(d));
        res.on('end', () => resolve(Buffer.concat(parts)));
      });
      req.on('error', reject);
      req.end();
    });
    assert.equal(got.length, reused.length);
    assert.equal(sha(got), sha(reused));
  });

  test('POST without a body gets an empty body', async () => {
    const out = await raw(server.port, ['POST /nobody HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n']);
    assert.match(out, /^HTTP\/1\.1 200 OK\r\n/);
    assert.equal((JSON.parse(bodyOf(out)) as Echo).length, 0);
  });

  test('repeated headers: the first value is in headers, every value of a repeated name in repeated', async () => {
    const out = await raw(server.port, [
      'GET /h HTTP/1.1\r\nHost: x\r\nX-Svc-Warm: first\r\nAccept: a\r\nx-svc-warm: second\r\nX-SVC-WARM: third\r\nConnection: close\r\n\r\n',
    ]);
    const e = JSON.parse(bodyOf(out)) as Echo;
    assert.equal(e.headers['x-svc-warm'], 'first');
    assert.deepEqual(e.repeated, { 'x-svc-warm': ['first', 'second', 'third'] });
    const post = await raw(server.port, [
      'POST /h HTTP/1.1\r\nHost: x\r\nA: 1\r\nA: 1\r\nContent-Length: 2\r\nConnection: close\r\n\r\nhi',
    ]);
    assert.deepEqual((JSON.parse(bodyOf(post)) as Echo).repeated, { a: ['1', '1'] });
    // Nothing repeated: no map at all.
    const plain = await raw(server.port, ['GET /h HTTP/1.1\r\nHost: x\r\nA: 1\r\nConnection: close\r\n\r\n']);
    assert.equal((JSON.parse(bodyOf(plain)) as Echo).repeated, null);
  });

  describe('Content-Length sent twice', () => {
    test('with different values: 400 invalid_request_framing, then the server closes the connection; the handler never runs', async () => {
      for (const [method, lengths, body] of [
        ['POST', ['3', '5'], 'hello'],
        ['POST', ['5', '3'], 'hello'],
        ['POST', ['100', '5'], 'hello'],
        ['GET', ['0', '2'], 'hi'],
      ] as const) {
        const before = calls;
        const started = Date.now();
        const head = `${method} /v2/query HTTP/1.1\r\nHost: x\r\n${lengths.map((l) => `Content-Length: ${l}\r\n`).join('')}\r\n`;
        // The socket stays open on our side: the server closes it.
        const out = await raw(server.port, [head + body], { waitMs: 5000 });
        assert.ok(Date.now() - started < 4000, 'the server closed the connection itself');
        assert.match(out, /^HTTP\/1\.1 400 Bad Request\r\n/);
        assert.equal(headerOf(out, 'connection'), 'close');
        assert.equal(headerOf(out, 'content-type'), 'application/json');
        assert.deepEqual(JSON.parse(bodyOf(out)), {
          error: 'invalid_request_framing',
          msg: `Content-Length is sent 2 times with different values ("${lengths[0]}", "${lengths[1]}"); the body's length is ambiguous`,
        });
        assert.equal(calls, before, 'the handler never runs');
      }
      assert.equal((await fetch(`${base}/alive`)).status, 200);
    });

    test('with a request pipelined behind it: uWS closes the connection before the answer; the smuggled request never runs', async () => {
      const before = calls;
      for (const lengths of [
        ['5', '3'],
        ['3', '5'],
      ]) {
        const out = await raw(server.port, [
          `POST /v2/query HTTP/1.1\r\nHost: x\r\nContent-Length: ${lengths[0]}\r\nContent-Length: ${lengths[1]}\r\n\r\nhelloGET /smuggled HTTP/1.1\r\nHost: x\r\n\r\n`,
        ]);
        assert.equal(out, '');
      }
      assert.equal(calls, before);
      assert.equal((await fetch(`${base}/alive`)).status, 200);
    });

    test('with the same value: accepted (the framing is not ambiguous), keep-alive goes on', async () => {
      const out = await raw(server.port, [
        'POST /same HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\ncontent-length: 5\r\n\r\nhelloGET /next HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
      ]);
      const [first, second] = out.split(/(?=HTTP\/1\.1 )/);
      const e = JSON.parse(bodyOf(first!)) as Echo;
      assert.equal(e.text, 'hello');
      assert.deepEqual(e.repeated, { 'content-length': ['5', '5'] });
      assert.equal((JSON.parse(bodyOf(second!)) as Echo).path, '/next');
    });
  });

  test('a Transfer-Encoding other than a single chunked (uWS would read any as chunked): 400 invalid_request_framing, then close', async () => {
    const before = calls;
    for (const [head, sent] of [
      ['Transfer-Encoding: identity\r\n', '"identity"'],
      ['Transfer-Encoding: gzip, chunked\r\n', '"gzip, chunked"'],
      ['Transfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n', '"chunked", "chunked"'],
    ]) {
      const started = Date.now();
      const out = await raw(server.port, [`POST /v2/query HTTP/1.1\r\nHost: x\r\n${head}\r\n5\r\nhello\r\n0\r\n\r\n`], { waitMs: 5000 });
      assert.ok(Date.now() - started < 4000, 'the server closed the connection itself');
      assert.match(out, /^HTTP\/1\.1 400 Bad Request\r\n/, head);
      assert.equal(headerOf(out, 'connection'), 'close');
      assert.deepEqual(JSON.parse(bodyOf(out)), {
        error: 'invalid_request_framing',
        msg: `Transfer-Encoding must be "chunked" alone, got ${sent}; send chunked or a Content-Length`,
      });
    }
    // Any case of chunked is chunked.
    const ok = await raw(server.port, [
      'POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: Chunked\r\nConnection: close\r\n\r\n5\r\nhello\r\n0\r\n\r\n',
    ]);
    assert.equal((JSON.parse(bodyOf(ok)) as Echo).text, 'hello');
    assert.equal(calls, before + 1);
  });

  test('framing uWS refuses itself: the connection closes at once with no answer and the handler never runs', async () => {
    const before = calls;
    for (const head of [
      // Content-Length together with Transfer-Encoding, in either order
      'Content-Length: 3\r\nTransfer-Encoding: chunked\r\n',
      'Transfer-Encoding: chunked\r\nContent-Length: 3\r\n',
      // a list, a sign or a non-number as Content-Length
      'Content-Length: 5, 5\r\n',
      'Content-Length: +5\r\n',
      'Content-Length: -5\r\n',
      'Content-Length: 5x\r\n',
    ]) {
      const started = Date.now();
      const out = await raw(server.port, [`POST /v2/query HTTP/1.1\r\nHost: x\r\n${head}\r\n5\r\nhello\r\n0\r\n\r\n`], { waitMs: 5000 });
      assert.equal(out, '', head);
      assert.ok(Date.now() - started < 4000, `closed at once: ${head}`);
    }
    assert.equal(calls, before);
    assert.equal((await fetch(`${base}/alive`)).status, 200);
  });

  test('413 from content-length is answered before any body byte is sent, then the connection closes', async () => {
    const before = calls;
    const started = Date.now();
    // Only the head is sent and the socket stays open: the answer cannot depend on the body.
    const out = await raw(
      server.port,
      ['POST /v2/query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 999999999\r\n\r\n'],
      { waitMs: 5000 },
    );
    assert.ok(Date.now() - started < 4000, 'the server closed the connection itself');
    assert.match(out, /^HTTP\/1\.1 413 Payload Too Large\r\n/);
    assert.equal(headerOf(out, 'content-type'), 'application/json');
    assert.deepEqual(JSON.parse(bodyOf(out)), {
      error: 'payload_too_large',
      msg: `request body is 999999999 bytes, the limit is ${2 * 1024 * 1024} bytes`,
    });
    assert.equal(calls, before, 'the handler never runs');
  });

  test('a content-length of 10 or more digits is refused by uWS itself: the connection closes, nothing else happens', async () => {
    const out = await raw(server.port, ['POST /v2/query HTTP/1.1\r\nHost: x\r\nContent-Length: 1000000000\r\n\r\n']);
    assert.equal(out, '');
    assert.equal((await fetch(`${base}/alive`)).status, 200);
  });

  test('413 by content-length via fetch', async () => {
    const res = await fetch(`${base}/v2/query`, { method: 'POST', body: Buffer.alloc(2 * 1024 * 1024 + 1) }).catch((e: unknown) => e);
    // The server may close before the client finished sending; either it read the 413 or the socket was reset.
    if (res instanceof Response) {
      assert.equal(res.status, 413);
      assert.equal(((await res.json()) as { error: string }).error, 'payload_too_large');
    }
  });

  test('a body of exactly the limit is accepted', async () => {
    const res = await fetch(`${base}/exact`, { method: 'POST', body: Buffer.alloc(2 * 1024 * 1024, 7) });
    assert.equal(res.status, 200);
    assert.equal(((await res.json()) as Echo).length, 2 * 1024 * 1024);
  });

  test('an aborted client mid-body does not crash the server and the handler is not called', async () => {
    const before = calls;
    await raw(server.port, ['POST /v2/query HTTP/1.1\r\nHost: x\r\nContent-Length: 1000\r\n\r\n', '0123456789'], {
      destroyAfter: true,
      gapMs: 20,
    });
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(calls, before);
    const res = await fetch(`${base}/still-alive`, { method: 'POST', body: 'x' });
    assert.equal(res.status, 200);
  });

  test('a client that leaves while the handler runs does not crash the server', async () => {
    const out = raw(server.port, ['POST /hold HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi'], { destroyAfter: true, gapMs: 50 });
    await out;
    await new Promise((r) => setTimeout(r, 20));
    assert.equal(pending.length, 1);
    pending.shift()!();
    const get = raw(server.port, ['GET /hold HTTP/1.1\r\nHost: x\r\n\r\n'], { destroyAfter: true, gapMs: 50 });
    await get;
    await new Promise((r) => setTimeout(r, 20));
    pending.shift()!();
    await new Promise((r) => setTimeout(r, 20));
    assert.equal((await fetch(`${base}/after`)).status, 200);
  });

  for (const path of ['/throw', '/reject', '/invalid']) {
    test(`handler failure ${path} -> 500 without a stack`, async () => {
      const count = errors.length;
      for (const method of ['GET', 'POST']) {
        const res = await fetch(`${base}${path}`, { method, body: method === 'POST' ? '{}' : null });
        assert.equal(res.status, 500);
        assert.equal(res.headers.get('content-type'), 'application/json');
        assert.equal(await res.text(), INTERNAL);
      }
      assert.equal(errors.length, count + 2, 'each failure is reported to onError');
    });
  }

  test('async handlers on GET and POST', async () => {
    const g = await fetch(`${base}/async`);
    assert.equal(((await g.json()) as Echo).method, 'GET');
    const p = await fetch(`${base}/async`, { method: 'POST', body: 'abc' });
    assert.equal(((await p.json()) as Echo).text, 'abc');
  });

  test('HEAD answers the head of GET with its content-length and no body, keeping the connection', async () => {
    const out = await raw(server.port, [
      'HEAD /text HTTP/1.1\r\nHost: x\r\n\r\nGET /same HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    ]);
    const responses = out.split(/(?=HTTP\/1\.1 )/);
    assert.equal(responses.length, 2, out);
    assert.match(responses[0]!, /^HTTP\/1\.1 200 OK\r\n/);
    assert.equal(headerOf(responses[0]!, 'content-type'), 'text/plain; charset=utf-8');
    assert.equal(headerOf(responses[0]!, 'content-length'), String(Buffer.byteLength('héllo')));
    assert.equal(bodyOf(responses[0]!), '');
    assert.equal((JSON.parse(bodyOf(responses[1]!)) as Echo).method, 'GET');
  });

  test('status lines carry reason phrases; 204 has no body and no content-length', async () => {
    for (const [code, reason] of [
      [404, 'Not Found'],
      [405, 'Method Not Allowed'],
      [409, 'Conflict'],
      [503, 'Service Unavailable'],
      [429, 'Too Many Requests'],
      [299, 'Status 299'],
    ] as const) {
      const out = await raw(server.port, [`GET /status HTTP/1.1\r\nHost: x\r\nX-Status: ${code}\r\nConnection: close\r\n\r\n`]);
      assert.match(out, new RegExp(`^HTTP/1\\.1 ${code} ${reason}\\r\\n`));
    }
    const out = await raw(server.port, [
      'GET /status HTTP/1.1\r\nHost: x\r\nX-Status: 204\r\n\r\nGET /x HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    ]);
    const [first, second] = out.split(/(?=HTTP\/1\.1 )/);
    assert.match(first!, /^HTTP\/1\.1 204 No Content\r\n/);
    assert.equal(headerOf(first!, 'content-length'), undefined);
    assert.equal(bodyOf(first!), '');
    assert.match(second!, /^HTTP\/1\.1 200 OK/);
  });

  test('handler headers are written; content-type is not doubled; content-length is computed', async () => {
    const res = await fetch(`${base}/text`);
    assert.equal(res.headers.get('content-type'), 'text/plain; charset=utf-8');
    assert.equal(res.headers.get('x-extra'), 'yes');
    assert.equal(res.headers.get('content-length'), String(Buffer.byteLength('héllo')));
    assert.equal(await res.text(), 'héllo');
    const bytes = await fetch(`${base}/bytes`);
    assert.equal(await bytes.text(), '{}');
  });

  test('many concurrent requests each get their own answer', async () => {
    const n = 300;
    const results = await Promise.all(
      Array.from({ length: n }, async (_, i) => {
        const body = `request-${i}-${'x'.repeat(i * 37)}`;
        const res = await fetch(`${base}/${i % 2 ? 'async' : 'c'}/${i}`, { method: 'POST', body });
        const e = (await res.json()) as Echo;
        return e.sha === sha(Buffer.from(body)) && e.path.endsWith(`/${i}`);
      }),
    );
    assert.equal(results.filter(Boolean).length, n);
  });
});

describe('uWS transport with a small limit', () => {
  let server: HttpServer;
  let calls = 0;
  before(async () => {
    server = await startHttpServer({
      host: '127.0.0.1',
      port: 0,
      maxBodyBytes: 1000,
      handler: (req) => {
        calls++;
        return echo(req);
      },
    });
  });
  after(() => server.close());

  test('413 for a chunked body that grows over the limit', async () => {
    const out = await raw(
      server.port,
      [
        'POST /v2/query HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n',
        chunk('a'.repeat(600)),
        chunk('b'.repeat(600)),
        chunk('c'.repeat(600)),
        '0\r\n\r\n',
      ],
      { gapMs: 20 },
    );
    assert.match(out, /^HTTP\/1\.1 413 Payload Too Large\r\n/);
    const body = JSON.parse(bodyOf(out)) as { error: string; msg: string };
    assert.equal(body.error, 'payload_too_large');
    assert.match(body.msg, /^request body is at least \d+ bytes, the limit is 1000 bytes$/);
    assert.equal(calls, 0);
    const ok = await fetch(`http://127.0.0.1:${server.port}/`, { method: 'POST', body: 'z'.repeat(1000) });
    assert.equal(ok.status, 200);
  });

  test('close() stops listening', async () => {
    const port = server.port;
    server.close();
    await assert.rejects(fetch(`http://127.0.0.1:${port}/`));
    server.close();
  });
});

test('listening on a taken port rejects', async () => {
  const first = await startHttpServer({ host: '127.0.0.1', port: 0, maxBodyBytes: 10, handler: echo });
  try {
    await assert.rejects(startHttpServer({ host: '127.0.0.1', port: first.port, maxBodyBytes: 10, handler: echo }), /cannot listen/);
  } finally {
    first.close();
  }
});

test('a port given by number is exclusive: a second server is refused, and a restart binds at once despite TIME_WAIT', async () => {
  // uSockets sets SO_REUSEPORT only for a port given by number (not 0), where a second
  // server of the same user would otherwise bind too and share the connections.
  const options = { host: '127.0.0.1', port: await freePort(), maxBodyBytes: 10, handler: echo };
  const first = await startHttpServer(options);
  try {
    // A second server that did start is closed at once, so the test fails instead of hanging.
    const second = await startHttpServer(options).then(
      (server) => (server.close(), 'a second server listens'),
      (err: Error) => err.message,
    );
    assert.match(second, /cannot listen on 127\.0\.0\.1:\d+: the address is in use/);
    // The server closes this connection (the client asked it to): its side waits in TIME_WAIT.
    const reply = await raw(first.port, ['GET / HTTP/1.1\r\nhost: x\r\nconnection: close\r\n\r\n']);
    assert.match(reply, /^HTTP\/1\.1 200/);
  } finally {
    first.close();
  }
  const again = await startHttpServer(options);
  again.close();
});
