import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { HttpRequest, HttpResponse } from '../../src/server/http-types.js';
import { createRouter, routeLabels } from '../../src/server/routes.js';

const req = (method: string, path: string, body = ''): HttpRequest => ({ method, path, headers: new Map(), body: Buffer.from(body) });
const ok =
  (tag: string) =>
  (r: HttpRequest): HttpResponse => ({ status: 200, body: JSON.stringify({ tag, method: r.method, body: r.body.toString() }) });
const json = (r: HttpResponse | Promise<HttpResponse>) => JSON.parse((r as HttpResponse).body as string) as Record<string, unknown>;

const routes = [
  { method: 'POST' as const, path: '/v2/query', handler: ok('query') },
  { method: 'GET' as const, path: '/healthz', handler: ok('healthz') },
  { method: 'GET' as const, path: '/both', handler: ok('both-get') },
  { method: 'POST' as const, path: '/both', handler: ok('both-post') },
];

test('exact routes dispatch by method; HEAD runs the GET handler', () => {
  const router = createRouter(routes);
  assert.deepEqual(json(router(req('POST', '/v2/query', '{}'))), { tag: 'query', method: 'POST', body: '{}' });
  assert.equal(json(router(req('GET', '/healthz'))).tag, 'healthz');
  assert.deepEqual(json(router(req('HEAD', '/healthz'))), { tag: 'healthz', method: 'HEAD', body: '' });
  assert.equal(json(router(req('GET', '/both'))).tag, 'both-get');
  assert.equal(json(router(req('POST', '/both'))).tag, 'both-post');
});

test('unknown path: 404 not_found envelope', () => {
  const router = createRouter(routes);
  for (const [method, path] of [
    ['GET', '/x'],
    ['POST', '/v2/query/'],
    ['GET', '/'],
    ['DELETE', '/nope'],
    ['POST', '/Healthz'],
  ]) {
    const res = router(req(method!, path!)) as HttpResponse;
    assert.equal(res.status, 404);
    assert.equal(res.headers?.['content-type'], 'application/json');
    assert.deepEqual(json(res), { error: 'not_found', msg: `no route for ${method} ${path}` });
  }
});

test('known path, wrong method: 405 with Allow and the envelope', () => {
  const router = createRouter(routes);
  const cases: [string, string, string][] = [
    ['GET', '/v2/query', 'POST'],
    ['PUT', '/v2/query', 'POST'],
    ['POST', '/healthz', 'GET, HEAD'],
    ['DELETE', '/both', 'GET, HEAD, POST'],
  ];
  for (const [method, path, allow] of cases) {
    const res = router(req(method, path)) as HttpResponse;
    assert.equal(res.status, 405);
    assert.equal(res.headers?.['allow'], allow);
    const body = json(res);
    assert.equal(body.error, 'method_not_allowed');
    assert.equal(body.msg, `${method} is not allowed for ${path}; allowed: ${allow}`);
    assert.deepEqual(Object.keys(body), ['error', 'msg']);
  }
});

test('fallback: POST /<QueryName> with a single identifier segment', async () => {
  const seen: string[] = [];
  const router = createRouter(routes, {
    method: 'POST',
    has: (name) => name === 'GetUser',
    handler: async (r, name) => {
      seen.push(name);
      return { status: 200, body: JSON.stringify({ name, body: r.body.toString() }) };
    },
  });
  for (const name of ['GetUser', 'a', '_', '_x9', 'Z_1_z', 'createUserMcp']) {
    const res = await router(req('POST', `/${name}`, '{}'));
    assert.deepEqual(JSON.parse(res.body as string), { name, body: '{}' });
  }
  assert.equal(seen.length, 6);
  for (const path of ['/9lives', '/get-user', '/a/b', '/a.b', '/', '//x', '/x/', '/café', '/%41']) {
    const res = (await router(req('POST', path))) as HttpResponse;
    assert.equal(res.status, 404, path);
  }
  const wrong = (await router(req('GET', '/GetUser'))) as HttpResponse;
  assert.equal(wrong.status, 405);
  assert.equal(wrong.headers?.['allow'], 'POST');
  // Another method on a name no query has is an unknown route, not a wrong method.
  const unknown = (await router(req('GET', '/NoSuchQuery'))) as HttpResponse;
  assert.equal(unknown.status, 404);
  assert.equal(json(unknown).error, 'not_found');
  // Exact routes take precedence over the fallback.
  assert.equal(json(await router(req('POST', '/both'))).tag, 'both-post');
  assert.equal(((await router(req('POST', '/healthz'))) as HttpResponse).status, 405);
  assert.equal(seen.length, 6);
});

test('without a fallback, query-name paths are 404', () => {
  const router = createRouter(routes);
  const res = router(req('POST', '/GetUser')) as HttpResponse;
  assert.equal(res.status, 404);
  assert.deepEqual(json(res), { error: 'not_found', msg: 'no route for POST /GetUser' });
});

test('a duplicate route is a programming error', () => {
  assert.throws(
    () => createRouter([...routes, { method: 'GET', path: '/healthz', handler: ok('again') }]),
    /duplicate route GET \/healthz/,
  );
});

test('404 and 405 messages quote at most 200 characters of the path', () => {
  const router = createRouter(routes);
  const path = `/${'p'.repeat(65535)}`;
  const cut = `/${'p'.repeat(199)}…(cut, 65536 characters)`;
  assert.deepEqual(json(router(req('GET', path))), { error: 'not_found', msg: `no route for GET ${cut}` });
  const name = `/${'q'.repeat(300)}`;
  const named = createRouter(routes, { method: 'POST', handler: ok('named'), has: (n) => n === name.slice(1) });
  assert.deepEqual(json(named(req('GET', name))), {
    error: 'method_not_allowed',
    msg: `GET is not allowed for /${'q'.repeat(199)}…(cut, 301 characters); allowed: POST`,
  });
});

test("route labels: a route's own path whatever the method, /<QueryName> for the queries the fallback serves, other for the rest (unknown names too)", () => {
  const fallback = { method: 'POST' as const, handler: ok('named'), has: (n: string) => n !== 'Unknown' };
  const withNames = routeLabels(routes, fallback);
  const without = routeLabels(routes);
  for (const path of ['/v2/query', '/healthz', '/both']) {
    assert.equal(withNames(path), path);
    assert.equal(without(path), path);
  }
  for (const path of ['/GetUser', '/_x9']) {
    assert.equal(withNames(path), '/<QueryName>');
    assert.equal(without(path), 'other', 'no fallback: a query-name path is just unknown');
  }
  for (const path of ['/a/b', '/9lives', '/', '/v2/query/', '/HEALTHZ/x', '/%41', `/${'x'.repeat(5000)}/y`, '/Unknown'])
    assert.equal(withNames(path), 'other');
});
