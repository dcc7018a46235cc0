/**
 * The gateway's checks before a token is spent (contract, Authentication; DECISIONS D19):
 * a real Redis, a real database server and a real gateway. Every refusal here is checked
 * to have cost no token (the bucket's level is read from Redis) and, where it matters, to
 * have reached no server (the server's own request count).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { call, gatewaySuite, testKey } from '../helpers/gateway.js';
import { redisSkip } from '../helpers/redis.js';
import { waitForLogLine } from '../helpers/log-lines.js';
import { parseMetrics, queriesServed } from '../helpers/metrics.js';
import { postLarge, readRequest, countLabel, writeRequest } from '../helpers/server.js';

const LIMITS = { rate: 0.001, burst: 1000 };
const rw = testKey('rw', { main: ['read', 'write'] });
const ro = testKey('ro', { main: ['read'] });
const elsewhere = testKey('elsewhere', { other: ['read', 'write'] });
const watcher = testKey('watcher', {}, true);
const READ = readRequest([countLabel('n', 'User')], ['n']);

describe('gateway admission', { skip: redisSkip() }, () => {
  const suite = gatewaySuite({
    writerArgs: ['--log-level', 'debug'],
    file: ({ redis, writer }) => ({
      mode: 'shared',
      log_level: 'info',
      redis: { url: redis },
      databases: { main: { writer, ...LIMITS }, other: { writer: 'http://127.0.0.1:9', ...LIMITS } },
      keys: [rw, ro, elsewhere, watcher],
    }),
  });

  const tokens = async () => Math.round((await suite.limiter.peek('main', LIMITS)) ?? LIMITS.burst);

  /** Asserts the call is refused with this status and code, spends no token, reaches no server, and carries a request id. */
  async function refused(
    status: number,
    code: string,
    run: () => Promise<{ status: number; body: any; headers: Headers }>,
  ): Promise<string> {
    const before = await tokens();
    const seen = await queriesServed(suite.writer.url);
    const reply = await run();
    assert.equal(reply.status, status, JSON.stringify(reply.body));
    assert.equal(reply.body.error, code);
    assert.deepEqual(Object.keys(reply.body), ['error', 'msg']);
    assert.match(reply.headers.get('x-request-id') ?? '', /^[0-9a-f-]{36}$/);
    assert.equal(await tokens(), before, 'no token spent');
    assert.equal(await queriesServed(suite.writer.url), seen, 'no server saw it');
    return reply.body.msg as string;
  }

  test('a valid key reads and writes, spending one token each, and the request id comes back', async () => {
    const start = await tokens();
    const write = await call(
      suite.gateway.url,
      '/v2/query',
      writeRequest([{ query: { name: 'a', root: { add_n: { label: 'User', properties: [] } } } }]),
      {
        key: rw.key,
        database: 'main',
        headers: { 'x-request-id': 'trace-123' },
      },
    );
    assert.equal(write.status, 200, write.text);
    assert.equal(write.headers.get('x-request-id'), 'trace-123');
    const read = await call(suite.gateway.url, '/v2/query', READ, { key: rw.key, database: 'main' });
    assert.equal(read.status, 200, read.text);
    assert.deepEqual(read.body, { n: [1] });
    assert.equal(await tokens(), start - 2);
  });

  test('a missing or malformed Authorization header is 400 invalid_request, an unknown key 401', async () => {
    await refused(400, 'invalid_request', () => call(suite.gateway.url, '/v2/query', READ, { database: 'main' }));
    await refused(400, 'invalid_request', () =>
      call(suite.gateway.url, '/v2/query', READ, { database: 'main', headers: { authorization: `Basic ${rw.key}` } }),
    );
    await refused(400, 'invalid_request', () =>
      call(suite.gateway.url, '/v2/query', READ, { database: 'main', headers: { authorization: 'Bearer' } }),
    );
    await refused(401, 'unauthorized', () => call(suite.gateway.url, '/v2/query', READ, { key: `${rw.key}x`, database: 'main' }));
  });

  test('named-query, MCP and Cypher routes need a key too', async () => {
    for (const path of ['/GetUsers', '/mcp/init', '/mcp/GetUsersMcp', '/v2/cypher', '/v2/cypher/explain']) {
      await refused(400, 'invalid_request', () => call(suite.gateway.url, path, {}, { database: 'main' }));
      await refused(401, 'unauthorized', () => call(suite.gateway.url, path, {}, { key: 'nope', database: 'main' }));
    }
  });

  test('shared mode needs a database id; the aliases work; two different ids are refused', async () => {
    assert.match(
      await refused(400, 'database_id_required', () => call(suite.gateway.url, '/v2/query', READ, { key: rw.key })),
      /X-Svc-Database-Id/,
    );
    for (const header of ['x-svc-tenant-id', 'x-helix-database-id', 'x-helix-tenant-id']) {
      const reply = await call(suite.gateway.url, '/v2/query', READ, { key: rw.key, headers: { [header]: 'main' } });
      assert.equal(reply.status, 200, `${header}: ${reply.text}`);
    }
    await refused(400, 'invalid_request', () =>
      call(suite.gateway.url, '/v2/query', READ, { key: rw.key, database: 'main', headers: { 'x-svc-tenant-id': 'other' } }),
    );
  });

  test('a key without a grant on the database, or a database that does not exist, is 403', async () => {
    await refused(403, 'forbidden', () => call(suite.gateway.url, '/v2/query', READ, { key: elsewhere.key, database: 'main' }));
    const unknown = await refused(403, 'forbidden', () => call(suite.gateway.url, '/v2/query', READ, { key: rw.key, database: 'nope' }));
    assert.match(unknown, /no access to database "nope"/);
  });

  test('a read-only key cannot write (403 after the body is decoded, before the token)', async () => {
    const msg = await refused(403, 'forbidden', () =>
      call(suite.gateway.url, '/v2/query', writeRequest([{ query: { name: 'a', root: { add_n: { label: 'User', properties: [] } } } }]), {
        key: ro.key,
        database: 'main',
      }),
    );
    assert.match(msg, /may not write/);
    assert.equal((await call(suite.gateway.url, '/v2/query', READ, { key: ro.key, database: 'main' })).status, 200);
    // Named queries may write, so they need the write permission.
    await refused(403, 'forbidden', () => call(suite.gateway.url, '/GetUsers', {}, { key: ro.key, database: 'main' }));
  });

  test('bad option headers are 400 before the token; warm on a write too', async () => {
    await refused(400, 'invalid_request_option', () =>
      call(suite.gateway.url, '/v2/query', READ, { key: rw.key, database: 'main', headers: { 'x-svc-warm': 'yes' } }),
    );
    await refused(400, 'invalid_request_option', () =>
      call(suite.gateway.url, '/v2/query', writeRequest([]), { key: rw.key, database: 'main', headers: { 'x-svc-warm': 'true' } }),
    );
  });

  test('outer JSON that cannot be decoded is 400 invalid_query_json and costs no token', async () => {
    await refused(400, 'invalid_query_json', () =>
      call(suite.gateway.url, '/v2/query', '{"request_type": ', { key: rw.key, database: 'main' }),
    );
    await refused(400, 'invalid_query_json', () => call(suite.gateway.url, '/v2/query', '[]', { key: rw.key, database: 'main' }));
    await refused(400, 'invalid_query_json', () =>
      call(suite.gateway.url, '/v2/query', { request_type: 'delete' }, { key: rw.key, database: 'main' }),
    );
    await refused(400, 'invalid_query_json', () => call(suite.gateway.url, '/v2/cypher', { query: 7 }, { key: rw.key, database: 'main' }));
  });

  test('a failure in the query tree, after admission, costs its token (the server answers it)', async () => {
    const before = await tokens();
    const reply = await call(
      suite.gateway.url,
      '/v2/query',
      { request_type: 'read', query: { read: { entries: 'x' } } },
      { key: rw.key, database: 'main' },
    );
    assert.equal(reply.status, 400);
    assert.equal(reply.body.error, 'invalid_query_json');
    assert.equal(await tokens(), before - 1);
  });

  test('with two faults at once, the earlier check answers: key, option headers, database, grant, size, JSON, permission', async () => {
    const url = suite.gateway.url;
    const badWarm = { 'x-svc-warm': 'yes' };
    await refused(401, 'unauthorized', () => call(url, '/v2/query', READ, { key: 'trk_unknown', headers: badWarm }));
    await refused(400, 'invalid_request_option', () => call(url, '/v2/query', READ, { key: rw.key, headers: badWarm }));
    await refused(400, 'database_id_required', () => call(url, '/v2/query', '{', { key: rw.key }));
    const big = Buffer.alloc(2 * 1024 * 1024 + 1, 0x20);
    const grantFirst = await postLarge(`${url}/v2/query`, big, { authorization: `Bearer ${elsewhere.key}`, 'x-svc-database-id': 'main' });
    assert.deepEqual([grantFirst.status, grantFirst.body.error], [403, 'forbidden']);
    // A body that does not decode has no request type yet: 400 even for a key that may not write.
    await refused(400, 'invalid_query_json', () => call(url, '/v2/query', '{"request_type": "write", ', { key: ro.key, database: 'main' }));
  });

  test('a body over 2 MiB is 413 after authentication, before parsing; without a key it is 400 first', async () => {
    const big = Buffer.alloc(2 * 1024 * 1024 + 1, 0x20);
    const before = await tokens();
    const tooLarge = await postLarge(`${suite.gateway.url}/v2/query`, big, {
      authorization: `Bearer ${rw.key}`,
      'x-svc-database-id': 'main',
    });
    assert.equal(tooLarge.status, 413);
    assert.equal(tooLarge.body.error, 'payload_too_large');
    const anonymous = await postLarge(`${suite.gateway.url}/v2/query`, big);
    assert.equal(anonymous.status, 400);
    assert.equal(anonymous.body.error, 'invalid_request');
    assert.equal(await tokens(), before);
    // Exactly 2 MiB is admitted (and is the server's to judge).
    const edge = Buffer.alloc(2 * 1024 * 1024, 0x20);
    edge.write(JSON.stringify(READ));
    const atLimit = await postLarge(`${suite.gateway.url}/v2/query`, edge, {
      authorization: `Bearer ${rw.key}`,
      'x-svc-database-id': 'main',
    });
    assert.equal(atLimit.status, 200, atLimit.text);
  });

  test('the request id reaches the server; the gateway logs it with the database, the key name and the answer', async () => {
    const reply = await call(suite.gateway.url, '/v2/query', READ, {
      key: rw.key,
      database: 'main',
      headers: { 'x-request-id': 'trace-log-1' },
    });
    assert.equal(reply.status, 200);
    assert.equal(reply.headers.get('x-request-id'), 'trace-log-1');
    const access = await waitForLogLine(suite.gateway.output, (l) => l.req_id === 'trace-log-1');
    assert.equal(access.name, 'trellis-gateway');
    assert.deepEqual([access.db, access.key, access.route, access.status, access.code], ['main', 'rw', '/v2/query', 200, 'ok']);
    const served = await waitForLogLine(suite.writer.output, (l) => l.req_id === 'trace-log-1');
    assert.deepEqual([served.name, served.route, served.status], ['trellis', '/v2/query', 200]);
    // An id the client did not send is made by the gateway and is the one the server saw.
    const fresh = await call(suite.gateway.url, '/v2/query', READ, { key: rw.key, database: 'main' });
    const id = fresh.headers.get('x-request-id')!;
    assert.match(id, /^[0-9a-f-]{36}$/);
    await waitForLogLine(suite.writer.output, (l) => l.req_id === id);
  });

  test('every answer is in the access log: a 413 of the transport with the key and database, a refused key without them, a GET route', async () => {
    const logged = async (id: string) => {
      const line = await waitForLogLine(suite.gateway.output, (l) => l.req_id === id);
      return [line.msg, line.db, line.key, line.route, line.status, line.code];
    };
    const big = Buffer.alloc(2 * 1024 * 1024 + 1, 0x20);
    const headers = { authorization: `Bearer ${rw.key}`, 'x-svc-database-id': 'main', 'x-request-id': 'log-413' };
    assert.equal((await postLarge(`${suite.gateway.url}/v2/query`, big, headers)).status, 413);
    assert.deepEqual(await logged('log-413'), ['request', 'main', 'rw', '/v2/query', 413, 'payload_too_large']);
    const refused = await call(suite.gateway.url, '/v2/query', READ, {
      key: 'trk_unknown',
      database: 'main',
      headers: { 'x-request-id': 'log-401' },
    });
    assert.equal(refused.status, 401);
    assert.deepEqual(await logged('log-401'), ['request', undefined, undefined, '/v2/query', 401, 'unauthorized']);
    assert.equal((await fetch(`${suite.gateway.url}/healthz`, { headers: { 'x-request-id': 'log-health' } })).status, 200);
    assert.deepEqual(await logged('log-health'), ['request', undefined, undefined, '/healthz', 200, 'ok']);
  });

  test('GET /metrics: a key allowed to read metrics sees answers and tokens counted; other keys are refused', async () => {
    const scrapeWith = async (key: string | undefined) => {
      const res = await fetch(`${suite.gateway.url}/metrics`, { headers: key === undefined ? {} : { authorization: `Bearer ${key}` } });
      return { status: res.status, text: await res.text() };
    };
    const value = (text: string, name: string, labels: Record<string, string>) =>
      parseMetrics(text)
        .filter((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))
        .reduce((sum, s) => sum + s.value, 0);
    const ok = { route: '/v2/query', status: '200', code: 'ok' };
    const bad = { route: '/v2/query', status: '400', code: 'invalid_query_json' };
    const before = (await scrapeWith(watcher.key)).text;
    assert.equal((await call(suite.gateway.url, '/v2/query', READ, { key: rw.key, database: 'main' })).status, 200);
    assert.equal((await call(suite.gateway.url, '/v2/query', '{', { key: rw.key, database: 'main' })).status, 400);
    const after = await scrapeWith(watcher.key);
    assert.equal(after.status, 200);
    assert.equal(
      value(after.text, 'trellis_gateway_http_requests_total', ok) - value(before, 'trellis_gateway_http_requests_total', ok),
      1,
    );
    assert.equal(
      value(after.text, 'trellis_gateway_http_requests_total', bad) - value(before, 'trellis_gateway_http_requests_total', bad),
      1,
    );
    const admitted = { database: 'main', result: 'admitted' };
    assert.equal(value(after.text, 'trellis_gateway_tokens_total', admitted) - value(before, 'trellis_gateway_tokens_total', admitted), 1);
    assert.equal((await scrapeWith(rw.key)).status, 403);
    assert.equal((await scrapeWith('nope')).status, 401);
    assert.equal((await scrapeWith(undefined)).status, 400);
  });

  test('health routes need no key; unknown routes are 404 and wrong methods 405', async () => {
    const health = await fetch(`${suite.gateway.url}/healthz`);
    assert.equal(health.status, 200);
    assert.deepEqual(await health.json(), { index_runtime: 'ready', mode: 'gateway', ready: true });
    assert.equal((await fetch(`${suite.gateway.url}/readyz`)).status, 200);
    const wrong = await fetch(`${suite.gateway.url}/v2/query`);
    assert.equal(wrong.status, 405);
    assert.equal(wrong.headers.get('allow'), 'POST');
    assert.equal((await fetch(`${suite.gateway.url}/nope/here`)).status, 404);
  });

  test('the route is checked before the key: 404 and 405 (naming the allowed methods) without a key', async () => {
    const cases: [method: string, path: string, status: number, allow: string | null][] = [
      ['POST', '/nope/here', 404, null],
      ['DELETE', '/nope/here', 404, null],
      ['DELETE', '/healthz', 405, 'GET, HEAD'],
      ['POST', '/healthz', 405, 'GET, HEAD'],
      ['POST', '/metrics', 405, 'GET, HEAD'],
      ['PUT', '/v2/query', 405, 'POST'],
      ['DELETE', '/SomeQuery', 405, 'POST'],
    ];
    for (const [method, path, status, allow] of cases) {
      const res = await fetch(`${suite.gateway.url}${path}`, { method, body: method === 'POST' || method === 'PUT' ? '{}' : undefined });
      const body = (await res.json()) as { error: string; msg: string };
      assert.equal(res.status, status, `${method} ${path}`);
      assert.equal(body.error, status === 404 ? 'not_found' : 'method_not_allowed', `${method} ${path}`);
      assert.equal(res.headers.get('allow'), allow, `${method} ${path}`);
      if (allow !== null) assert.match(body.msg, new RegExp(`allowed: ${allow}$`), `${method} ${path}`);
    }
  });
});

describe('gateway in cluster mode', { skip: redisSkip() }, () => {
  const key = testKey('k', { only: ['read', 'write'] });
  const suite = gatewaySuite({
    file: ({ redis, writer }) => ({ mode: 'cluster', redis: { url: redis }, databases: { only: { writer, ...LIMITS } }, keys: [key] }),
  });

  test('serves its one database without a database header, and refuses one', async () => {
    assert.equal((await call(suite.gateway.url, '/v2/query', READ, { key: key.key })).status, 200);
    for (const header of ['x-svc-database-id', 'x-svc-tenant-id', 'x-helix-database-id']) {
      const reply = await call(suite.gateway.url, '/v2/query', READ, { key: key.key, headers: { [header]: 'only' } });
      assert.equal(reply.status, 400, header);
      assert.equal(reply.body.error, 'database_id_not_allowed');
    }
  });
});
