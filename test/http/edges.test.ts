/**
 * HTTP edges against the real server, over raw sockets: what the server answers to odd
 * framing, repeated headers and methods, and what uWebSockets.js drops before Trellis sees
 * a request (README, "Limits of the HTTP transport"). After every case the server must stay
 * healthy: GET /healthz answers 200 and a query works on a fresh connection.
 *
 * The cases run concurrently: those uWS leaves unanswered are closed by its idle timeout
 * (about 10 s), which the tests wait for.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { countLabel, post, readRequest, serverForFile, writeRequest } from '../helpers/server.js';
import { bodyOf, headerOf, rawExchange, statusOf, type RawResult } from '../helpers/raw.js';

const server = serverForFile();
const port = () => Number(new URL(server.url()).port);

const READ = JSON.stringify(readRequest([countLabel('c', 'Nothing')], ['c']));
const postHead = (body: string, extra = '') =>
  `POST /v2/query HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n${extra}Content-Length: ${Buffer.byteLength(body)}\r\n\r\n`;
const postRead = (extra = '') => postHead(READ, extra) + READ;
const writeLabel = (label: string) => JSON.stringify(writeRequest([{ query: { root: { add_n: { label, properties: [] } } } }]));

async function count(label: string): Promise<number> {
  const res = await post(server.query(), readRequest([countLabel('c', label)], ['c']));
  assert.equal(res.status, 200, res.text);
  return res.body.c[0] as number;
}

async function assertHealthy(): Promise<void> {
  const health = await fetch(`${server.url()}/healthz`);
  assert.equal(health.status, 200);
  assert.equal(((await health.json()) as { ready: boolean }).ready, true);
  const q = await post(server.query(), READ);
  assert.equal(q.status, 200, q.text);
  assert.deepEqual(q.body, { c: [0] });
}

/** uWS closes the connection at once and answers nothing. */
function assertDropped(r: RawResult): void {
  assert.equal(r.out, '', 'no answer');
  assert.ok(r.closedByServer && r.ms < 2000, `closed by the server at once (after ${r.ms} ms, by server: ${r.closedByServer})`);
}

/**
 * uWS answers nothing and keeps the connection until its idle timeout (10 s, checked on a
 * 4 s tick) closes it; meanwhile the server serves everyone else.
 */
async function assertHeldThenClosed(sent: Promise<RawResult>): Promise<void> {
  await new Promise((r) => setTimeout(r, 1500));
  await assertHealthy();
  const r = await sent;
  assert.equal(r.out, '', 'no answer');
  assert.ok(r.closedByServer, 'closed by the server');
  assert.ok(r.ms >= 5000 && r.ms < 20_000, `closed by the idle timeout after ${r.ms} ms`);
}

const held = (chunks: (string | Buffer)[], gapMs?: number) => rawExchange(port(), chunks, { waitMs: 25_000, gapMs });

describe('HTTP edges on the real server', { concurrency: true }, () => {
  test('methods uWS does not know (FOO, PROPFIND, lowercase get, ...) are dropped at its parser: closed, no answer', async () => {
    for (const line of ['FOO /v2/query', 'PROPFIND /v2/query', 'MKCOL /v2/query', 'QUERY /v2/query', 'get /healthz', 'Post /v2/query']) {
      assertDropped(await rawExchange(port(), [`${line} HTTP/1.1\r\nHost: x\r\n\r\n`]));
    }
    await assertHealthy();
  });

  test('methods uWS passes on but no route takes are 405 with the JSON body and an Allow header', async () => {
    for (const [method, path, allow] of [
      ['PUT', '/v2/query', 'POST'],
      ['DELETE', '/v2/query', 'POST'],
      ['PATCH', '/v2/query', 'POST'],
      ['OPTIONS', '/v2/query', 'POST'],
      ['TRACE', '/v2/query', 'POST'],
      ['CONNECT', '/v2/query', 'POST'],
      ['GET', '/v2/query', 'POST'],
      ['POST', '/healthz', 'GET, HEAD'],
      ['CONNECT', '/healthz', 'GET, HEAD'],
    ]) {
      const r = await rawExchange(port(), [`${method} ${path} HTTP/1.1\r\nHost: x\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`]);
      assert.equal(statusOf(r.out), 405, `${method} ${path}: ${r.out}`);
      assert.equal(headerOf(r.out, 'allow'), allow);
      assert.deepEqual(JSON.parse(bodyOf(r.out)), {
        error: 'method_not_allowed',
        msg: `${method} is not allowed for ${path}; allowed: ${allow}`,
      });
    }
    // HEAD: the same head, no body; the connection stays usable.
    const r = await rawExchange(port(), [`HEAD /v2/query HTTP/1.1\r\nHost: x\r\n\r\n${postRead('Connection: close\r\n')}`]);
    const [head, next] = r.out.split(/(?=HTTP\/1\.1 )/);
    assert.equal(statusOf(head!), 405);
    assert.equal(headerOf(head!, 'allow'), 'POST');
    assert.equal(bodyOf(head!), '');
    assert.deepEqual(JSON.parse(bodyOf(next!)), { c: [0] });
    await assertHealthy();
  });

  test('Content-Length twice with different values: 400 invalid_request_framing, then the connection closes', async () => {
    const r = await rawExchange(
      port(),
      [`POST /v2/query HTTP/1.1\r\nHost: x\r\nContent-Length: ${READ.length}\r\nContent-Length: 2\r\n\r\n${READ}`],
      { waitMs: 5000 },
    );
    assert.equal(statusOf(r.out), 400, r.out);
    assert.equal(headerOf(r.out, 'connection'), 'close');
    assert.deepEqual(JSON.parse(bodyOf(r.out)), {
      error: 'invalid_request_framing',
      msg: `Content-Length is sent 2 times with different values ("${READ.length}", "2"); the body's length is ambiguous`,
    });
    assert.ok(r.closedByServer && r.ms < 4000);
    await assertHealthy();
  });

  test('Content-Length with Transfer-Encoding: chunked is dropped by uWS: closed, no answer', async () => {
    assertDropped(
      await rawExchange(port(), [
        `POST /v2/query HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n${READ.length.toString(16)}\r\n${READ}\r\n0\r\n\r\n`,
      ]),
    );
    await assertHealthy();
  });

  test('an option header repeated with different values is 400 invalid_request_option naming it', async () => {
    for (const name of ['X-Svc-Warm', 'x-helix-await-durable', 'X-Svc-Tenant-Id']) {
      const r = await rawExchange(port(), [postRead(`${name}: 1\r\n${name}: 0\r\nConnection: close\r\n`)]);
      assert.equal(statusOf(r.out), 400, r.out);
      assert.deepEqual(JSON.parse(bodyOf(r.out)), {
        error: 'invalid_request_option',
        msg: `${name.toLowerCase()} is sent 2 times with different values ("1" and "0"); send it once`,
      });
    }
    // The same value twice is accepted.
    const same = await rawExchange(port(), [postRead('X-Svc-Warm: true\r\nX-Svc-Warm: true\r\nConnection: close\r\n')]);
    assert.equal(statusOf(same.out), 200, same.out);
    await assertHealthy();
  });

  test('canonical and alias with different values: the canonical header wins', async () => {
    const write = writeLabel('CanonicalWins');
    const ok = await rawExchange(port(), [postHead(write, 'X-Svc-Warm: false\r\nx-helix-warm: true\r\nConnection: close\r\n') + write]);
    assert.equal(statusOf(ok.out), 200, ok.out);
    const bad = await rawExchange(port(), [postHead(write, 'X-Svc-Warm: true\r\nx-helix-warm: false\r\nConnection: close\r\n') + write]);
    assert.equal(statusOf(bad.out), 400, bad.out);
    assert.equal(JSON.parse(bodyOf(bad.out)).msg, 'X-Svc-Warm is only valid for read requests');
    assert.equal(await count('CanonicalWins'), 1);
  });

  test('error messages quote at most 200 characters of a path, header value or JSON key', async () => {
    // Heads stay under 4 KiB (see the head limit below); the JSON key is 64 KiB.
    const long = 'z'.repeat(3000);
    const notFound = await fetch(`${server.url()}/${long}`);
    assert.equal(notFound.status, 404);
    assert.deepEqual(await notFound.json(), { error: 'not_found', msg: `no route for GET /${'z'.repeat(199)}…(cut, 3001 characters)` });
    const header = await post(server.query(), READ, { 'x-svc-warm': long });
    assert.equal(header.status, 400);
    assert.equal(header.body.msg, `x-svc-warm must be true, false, 1 or 0, got "${'z'.repeat(200)}…(cut, 3000 characters)"`);
    const cut = `${'z'.repeat(200)}…(cut, 65536 characters)`;
    const key = await post(server.query(), `{"request_type":"read","query":{"read":{"entries":[]}},"${'z'.repeat(65536)}":1}`);
    assert.equal(key.status, 400);
    assert.match(key.body.msg, new RegExp(`^request: unknown key "${cut.replace(/[()]/g, '\\$&')}" \\(expected`));
    assert.ok(key.text.length < 1000);
  });

  test('a pipelined request while the first is still being answered: uWS closes the connection, nothing is answered, yet the first request runs', async () => {
    const write = writeLabel('Pipelined');
    const r = await rawExchange(port(), [postHead(write) + write + postRead()]);
    assertDropped(r);
    const r2 = await rawExchange(port(), [postHead(write) + write + 'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n']);
    assertDropped(r2);
    // Both writes were handed to the writer before uWS met the request behind them.
    let n = 0;
    for (let i = 0; i < 40 && n < 2; i++) {
      n = await count('Pipelined');
      if (n < 2) await new Promise((res) => setTimeout(res, 50));
    }
    assert.equal(n, 2);
    // Requests answered at once (GET /healthz) may be pipelined.
    const gets = await rawExchange(port(), [
      'GET /healthz HTTP/1.1\r\nHost: x\r\n\r\nGET /healthz HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    ]);
    assert.equal(gets.out.split(/(?=HTTP\/1\.1 )/).filter((x) => statusOf(x) === 200).length, 2);
    await assertHealthy();
  });

  test('a head over 4 KiB that arrives in more than one read is dropped: closed, no answer', async () => {
    const head = `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(6000)}\r\n\r\n`;
    assertDropped(await rawExchange(port(), [head.slice(0, 100), head.slice(100)], { gapMs: 100 }));
    await assertHealthy();
  });

  test('a head of about 200 KB is dropped: closed or reset, no answer', async () => {
    const r = await rawExchange(port(), [`GET /healthz HTTP/1.1\r\nHost: x\r\nX-Svc-Tenant-Id: ${'a'.repeat(200_000)}\r\n\r\n`]);
    assertDropped(r);
    await assertHealthy();
  });

  // uWS answers none of these and holds the connection until its idle timeout.
  for (const [what, chunks, gapMs] of [
    ['HTTP/1.0 GET', ['GET /healthz HTTP/1.0\r\nHost: x\r\n\r\n']],
    ['HTTP/1.0 POST', [`POST /v2/query HTTP/1.0\r\nHost: x\r\nContent-Length: ${READ.length}\r\n\r\n${READ}`]],
    [
      'an absolute-form target (POST http://host/v2/query)',
      [`POST http://x/v2/query HTTP/1.1\r\nHost: x\r\nContent-Length: ${READ.length}\r\n\r\n${READ}`],
    ],
    ['an authority-form CONNECT', ['CONNECT x:443 HTTP/1.1\r\nHost: x:443\r\n\r\n']],
    ['an asterisk-form OPTIONS', ['OPTIONS * HTTP/1.1\r\nHost: x\r\n\r\n']],
    ['bare LF line endings', ['GET /healthz HTTP/1.1\nHost: x\n\n']],
    ['no Host header', ['GET /healthz HTTP/1.1\r\n\r\n']],
    [
      'a control byte (NUL) in a header value',
      [`POST /v2/query HTTP/1.1\r\nHost: x\r\nX-Svc-Warm: tr\u0000ue\r\nContent-Length: 2\r\n\r\n{}`],
    ],
    ['a control byte (0x01) in a header value', ['GET /healthz HTTP/1.1\r\nHost: x\r\nX-Helix-Tenant-Id: a\u0001b\r\n\r\n']],
    [
      'more than 48 headers',
      [`GET /healthz HTTP/1.1\r\nHost: x\r\n${Array.from({ length: 48 }, (_, i) => `X-H${i}: v\r\n`).join('')}\r\n`],
    ],
    ['a head sent one byte every 500 ms (slowloris)', `GET /healthz HTTP/1.1\r\nHost: x\r\nX-Slow: ${'s'.repeat(40)}`.split(''), 500],
    ['a body stalled half-way', [`${postHead(READ)}${READ.slice(0, 10)}`]],
    ['a body sent one byte every 500 ms', [postHead(READ), ...READ.split('')], 500],
  ] as [string, string[], number?][]) {
    test(`${what}: no answer; the idle timeout closes the connection`, async () => {
      await assertHeldThenClosed(held(chunks, gapMs));
      await assertHealthy();
    });
  }

  test('a write whose body trickles in slower than uWS allows never runs', async () => {
    const write = writeLabel('Trickled');
    await assertHeldThenClosed(held([postHead(write), ...write.split('')], 500));
    assert.equal(await count('Trickled'), 0);
  });
});
