/**
 * POST /<QueryName> over HTTP (contract; DECISIONS D15 to D17): the project in
 * test/hql/projects/social served by a real server, every query form it holds, the
 * parameter checks and the statuses.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { postPath, startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { SOCIAL } from '../helpers/hql-projects.js';

interface Answer {
  status: number;
  body: unknown;
}

function call(server: TestServer, name: string, params: unknown, headers: Record<string, string> = {}): Promise<Answer> {
  return postPath(server, `/${name}`, params, headers);
}

/** A user as the queries return it, without the time-dependent created_at (checked separately). */
function user(id: number, name: string, age: number, email: string) {
  return { id, label: 'User', name, age, email };
}

function withoutCreated(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutCreated);
  if (value === null || typeof value !== 'object') return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (k === 'created_at') {
      assert.match(String(v), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'created_at is the time of creation (DEFAULT NOW)');
      continue;
    }
    out[k] = withoutCreated(v);
  }
  return out;
}

async function ok(server: TestServer, name: string, params: unknown): Promise<unknown> {
  const answer = await call(server, name, params);
  assert.equal(answer.status, 200, `${name}: ${JSON.stringify(answer.body)}`);
  return withoutCreated(answer.body);
}

describe('named queries of the social project', () => {
  const dir = tempDir();
  let server: TestServer;
  before(async () => {
    server = await startTestServer(['--data', dir.path, '--project', SOCIAL]);
    // Alice (0) and Carol (2) follow Bob (1); Dave (3) follows Bob; Bob follows Alice.
    for (const [name, age] of [
      ['Alice', 30],
      ['Bob', 25],
      ['Carol', 30],
      ['Dave', 41],
    ] as const) {
      await ok(server, 'addUser', { name, age, email: `${name.toLowerCase()}@example.com` });
    }
    for (const [from, to] of [
      [0, 1],
      [2, 1],
      [3, 1],
      [1, 0],
    ] as const) {
      await ok(server, 'follow', { from, to, since: 2020 + from });
    }
    await ok(server, 'addPost', { author: 0, title: 'Hello' });
    await ok(server, 'addPost', { author: 0, title: 'Again' });
  });
  after(async () => {
    await server.stop();
    dir.remove();
  });

  test('AddN returns the created node with its id, every declared field and the default', async () => {
    // Nodes 0 to 3 are users and 4, 5 posts: node ids are one sequence, edge ids another.
    const answer = await call(server, 'addUser', { name: 'Eve', age: 19, email: 'eve@example.com' });
    assert.equal(answer.status, 200);
    assert.ok('created_at' in (answer.body as { user: object }).user, 'the DEFAULT NOW field is there');
    assert.deepEqual(withoutCreated(answer.body), { user: user(6, 'Eve', 19, 'eve@example.com') });
    await ok(server, 'remove', { id: 6 });
  });

  test('AddE returns the edge with from_node and to_node; a created element carries its id', async () => {
    assert.deepEqual(await ok(server, 'follow', { from: 3, to: 3, since: 1999 }), {
      edge: { id: 6, label: 'Follows', from_node: 3, to_node: 3, since: 1999 },
    });
  });

  test('N<T>(id) is one object; a missing id is 404 node_not_found', async () => {
    assert.deepEqual(await ok(server, 'getUser', { id: 1 }), { user: user(1, 'Bob', 25, 'bob@example.com') });
    const missing = await call(server, 'getUser', { id: 999 });
    assert.equal(missing.status, 404);
    assert.equal((missing.body as { error: string }).error, 'node_not_found');
    // Told in the query's terms: the statement and its place, not the internal /v2/query path.
    assert.equal(
      (missing.body as { msg: string }).msg,
      'query getUser, statement "user" (queries.hx:15:5), at nodes.reference: node 999 does not exist',
    );
  });

  test('E<T>(id) is one edge; a missing id is 404 edge_not_found', async () => {
    assert.deepEqual(await ok(server, 'getFollow', { id: 1 }), {
      edge: { id: 1, label: 'Follows', from_node: 2, to_node: 1, since: 2022 },
    });
    const missing = await call(server, 'getFollow', { id: 999 });
    assert.equal(missing.status, 404);
    assert.equal((missing.body as { error: string }).error, 'edge_not_found');
  });

  test('a Date parameter compares with a Date field; a Date that is not RFC 3339 is 400', async () => {
    assert.deepEqual(await ok(server, 'joinedBefore', { when: '2000-01-01T00:00:00Z' }), { users: [] });
    const all = (await ok(server, 'joinedBefore', { when: '2999-01-01T00:00:00Z' })) as { users: string[] };
    assert.deepEqual(all.users.slice(0, 4), ['Alice', 'Bob', 'Carol', 'Dave']);
    const bad = await call(server, 'joinedBefore', { when: 'yesterday' });
    assert.equal(bad.status, 400);
    assert.match((bad.body as { msg: string }).msg, /"when" must be a Date: an RFC 3339 string/);
  });

  test('N<T> is every node of the type in id order; a property access gives bare values', async () => {
    const users = (await ok(server, 'users', {})) as { users: { name: string }[] };
    assert.deepEqual(
      users.users.map((u) => u.name),
      ['Alice', 'Bob', 'Carol', 'Dave'],
    );
    assert.deepEqual(await ok(server, 'userNames', {}), { names: ['Alice', 'Bob', 'Carol', 'Dave'] });
  });

  test('In<Edge> from a node by id', async () => {
    const followers = (await ok(server, 'followers', { id: 1 })) as { followers: { id: number }[] };
    assert.deepEqual(
      followers.followers.map((u) => u.id),
      [0, 2, 3],
    );
  });

  test('WHERE with a parameter, ORDER<Desc> and a projection', async () => {
    assert.deepEqual(await ok(server, 'adults', { min: 30 }), {
      adults: [
        { name: 'Dave', age: 41 },
        { name: 'Alice', age: 30 },
        { name: 'Carol', age: 30 },
      ],
    });
  });

  test('COUNT is a number', async () => {
    assert.deepEqual(await ok(server, 'countUsers', {}), { n: 4 });
  });

  test('RANGE(start, end): start inclusive, end exclusive; {alias: property} and ID in a projection', async () => {
    assert.deepEqual(await ok(server, 'page', { start: 1, end: 3 }), {
      users: [
        { userName: 'Bob', id: 1 },
        { userName: 'Carol', id: 2 },
      ],
    });
    assert.deepEqual(await ok(server, 'page', { start: 3, end: 100 }), { users: [{ userName: 'Dave', id: 3 }] });
    assert.deepEqual(await ok(server, 'page', { start: 2, end: 2 }), { users: [] });
    // An end before the start is a client mistake, as on /v2/query.
    const backwards = await call(server, 'page', { start: 3, end: 1 });
    assert.deepEqual([backwards.status, (backwards.body as { error: string }).error], [400, 'invalid_stream_range']);
    assert.match(
      (backwards.body as { msg: string }).msg,
      /^query page, statement "users" \(queries\.hx:43:5\), at range: .*start 3 is greater than end 1$/,
    );
  });

  test('RANGE with a negative end is a 400 naming the end', async () => {
    const answer = await call(server, 'page', { start: 0, end: -2 });
    assert.equal(answer.status, 400, JSON.stringify(answer.body));
    assert.match(
      (answer.body as { msg: string }).msg,
      /range\.end\.expr: a bound must evaluate to a non-negative integer \(i64\), got -2$/,
    );
  });

  test('RANGE with a negative bound is a 400 naming it', async () => {
    const answer = await call(server, 'page', { start: -1, end: 2 });
    assert.equal(answer.status, 400, JSON.stringify(answer.body));
    assert.equal((answer.body as { error: string }).error, 'invalid_query');
    assert.match(
      (answer.body as { msg: string }).msg,
      /range\.start\.expr: a bound must evaluate to a non-negative integer \(i64\), got -1$/,
    );
  });

  test('GROUP_BY: one summary per value with its count (D17)', async () => {
    assert.deepEqual(await ok(server, 'byAge', {}), {
      groups: [
        { age: 30, count: 2 },
        { age: 25, count: 1 },
        { age: 41, count: 1 },
      ],
    });
  });

  test('AGGREGATE_BY: {count, data} groups of full elements (D17)', async () => {
    assert.deepEqual(await ok(server, 'byAgeFull', {}), {
      groups: [
        { count: 2, data: [user(0, 'Alice', 30, 'alice@example.com'), user(2, 'Carol', 30, 'carol@example.com')] },
        { count: 1, data: [user(1, 'Bob', 25, 'bob@example.com')] },
        { count: 1, data: [user(3, 'Dave', 41, 'dave@example.com')] },
      ],
    });
  });

  test('GROUP_BY over two properties: one summary per combination, holding both values and the count', async () => {
    assert.deepEqual(await ok(server, 'byAgeAndName', {}), {
      groups: [
        { age: 30, name: 'Alice', count: 1 },
        { age: 25, name: 'Bob', count: 1 },
        { age: 30, name: 'Carol', count: 1 },
        { age: 41, name: 'Dave', count: 1 },
      ],
    });
  });

  test('the explicit {alias: _::{property}} and _::ID as projection items', async () => {
    assert.deepEqual(await ok(server, 'explicitCards', {}), {
      cards: [
        { who: 'Alice', key: 0 },
        { who: 'Bob', key: 1 },
      ],
    });
  });

  test('exclusion !{...} shows everything else', async () => {
    const body = (await ok(server, 'withoutEmail', {})) as { users: unknown[] };
    assert.deepEqual(body.users[0], { id: 0, label: 'User', name: 'Alice', age: 30 });
  });

  test('a lookup by an indexed field is one object or null', async () => {
    assert.deepEqual(await ok(server, 'userByName', { name: 'Carol' }), { user: user(2, 'Carol', 30, 'carol@example.com') });
    assert.deepEqual(await ok(server, 'userByName', { name: 'Nobody' }), { user: null });
  });

  test('a computed property and a WHERE on a count of a traversal', async () => {
    assert.deepEqual(await ok(server, 'popular', {}), { users: [{ name: 'Bob', followers: 3 }] });
  });

  test('EXISTS in WHERE and a closure |u|{...} with a nested traversal', async () => {
    assert.deepEqual(await ok(server, 'withPosts', {}), { users: [{ name: 'Alice', posts: ['Hello', 'Again'] }] });
  });

  test('nested |item| scopes reach outer items as item::ID and item::{property}, at any depth', async () => {
    // Bob (1) is followed by Alice (0), Carol (2) and Dave (3); Alice is followed by Bob.
    // Each level's item differs from the one around it, so a wrong depth shows.
    const follower = (fan: string, theirs: unknown[]) => ({ fan, of: 'Bob', ofId: 1, theirs });
    assert.deepEqual(await ok(server, 'followerChains', { name: 'Bob' }), {
      user: {
        name: 'Bob',
        followers: [
          follower('Alice', [{ who: 'Bob', via: 'Alice', viaAge: 30, root: 'Bob' }]),
          follower('Carol', []),
          // Dave follows himself since the AddE test.
          follower('Dave', [{ who: 'Dave', via: 'Dave', viaAge: 41, root: 'Bob' }]),
        ],
      },
    });
    // From Alice: her one follower is Bob, and his follower is Alice again, two levels out.
    assert.deepEqual(await ok(server, 'followerChains', { name: 'Alice' }), {
      user: {
        name: 'Alice',
        followers: [
          {
            fan: 'Bob',
            of: 'Alice',
            ofId: 0,
            theirs: [
              { who: 'Alice', via: 'Bob', viaAge: 25, root: 'Alice' },
              { who: 'Carol', via: 'Bob', viaAge: 25, root: 'Alice' },
              { who: 'Dave', via: 'Bob', viaAge: 25, root: 'Alice' },
            ],
          },
        ],
      },
    });
  });

  test('UPDATE returns the updated node; the change is stored', async () => {
    assert.deepEqual(await ok(server, 'rename', { id: 3, name: 'David' }), { user: user(3, 'David', 41, 'dave@example.com') });
    assert.deepEqual(await ok(server, 'getUser', { id: 3 }), { user: user(3, 'David', 41, 'dave@example.com') });
    await ok(server, 'rename', { id: 3, name: 'Dave' });
  });

  test('DROP deletes; RETURN of a literal is {"data": literal}', async () => {
    const created = (await ok(server, 'addUser', { name: 'Tmp', age: 1, email: 't@example.com' })) as { user: { id: number } };
    assert.deepEqual(await ok(server, 'remove', { id: created.user.id }), { data: 'removed' });
    assert.equal((await call(server, 'getUser', { id: created.user.id })).status, 404);
  });

  test('a write whose later step fails commits nothing', async () => {
    assert.deepEqual(await ok(server, 'countPosts', {}), { n: 2 });
    // addPost creates the post, then the edge from a user that does not exist: all or nothing.
    const answer = await call(server, 'addPost', { author: 999, title: 'Orphan' });
    assert.equal(answer.status, 404, JSON.stringify(answer.body));
    assert.deepEqual(await ok(server, 'countPosts', {}), { n: 2 });
  });

  describe('parameters are checked against their declared types (D16)', () => {
    const cases: [string, string, unknown, RegExp][] = [
      ['a U8 out of range', 'addUser', { name: 'x', age: 256, email: 'e' }, /"age" is 256, out of the range of U8 \(0 to 255\)/],
      ['a negative U8', 'addUser', { name: 'x', age: -1, email: 'e' }, /"age" is -1, out of the range of U8/],
      ['a float for an integer', 'addUser', { name: 'x', age: 1.5, email: 'e' }, /"age" must be an integer \(U8\), got the number 1.5/],
      ['a number for a String', 'addUser', { name: 5, age: 1, email: 'e' }, /"name" must be a String, got the integer 5/],
      ['a missing parameter', 'addUser', { name: 'x', age: 1 }, /"email" \(String\) is missing/],
      [
        'an extra parameter',
        'addUser',
        { name: 'x', age: 1, email: 'e', admin: true },
        /unknown parameter "admin"; its parameters are name, age, email/,
      ],
      ['an ID that is not an id', 'getUser', { id: 'abc' }, /"id" must be an ID: a non-negative integer/],
      ['a negative ID', 'getUser', { id: -5 }, /"id" is -5, out of the range of ID/],
      ['null for a required parameter', 'getUser', { id: null }, /"id" \(ID\) is missing/],
      ['a body that is not an object', 'getUser', [1], /the body must be a JSON object/],
      ['a parameter for a query that takes none', 'users', { x: 1 }, /unknown parameter "x"; the query takes no parameters/],
    ];
    for (const [what, name, params, msg] of cases) {
      test(what, async () => {
        const answer = await call(server, name, params);
        assert.equal(answer.status, 400);
        assert.equal((answer.body as { error: string }).error, 'invalid_parameter');
        assert.match((answer.body as { msg: string }).msg, msg);
      });
    }
    test('an ID may come as its digits in a string', async () => {
      assert.deepEqual(await ok(server, 'getUser', { id: '1' }), { user: user(1, 'Bob', 25, 'bob@example.com') });
    });
    test('bad JSON is 400 invalid_query_json', async () => {
      const answer = await call(server, 'getUser', '{"id": ');
      assert.equal(answer.status, 400);
      assert.equal((answer.body as { error: string }).error, 'invalid_query_json');
    });
    test('a query without parameters takes {} or an empty body', async () => {
      assert.deepEqual(await ok(server, 'countUsers', ''), { n: 4 });
    });
  });

  test('an unknown query is 404 query_not_found listing the queries', async () => {
    const answer = await call(server, 'noSuchQuery', {});
    assert.equal(answer.status, 404);
    assert.equal((answer.body as { error: string }).error, 'query_not_found');
    assert.match((answer.body as { msg: string }).msg, /no query named "noSuchQuery"; the project's queries: addPost, addUser/);
  });

  test('GET on a query name is 405', async () => {
    const res = await fetch(`${server.url}/users`);
    assert.equal(res.status, 405);
    assert.equal(res.headers.get('allow'), 'POST');
  });

  test('X-Svc-Warm on a writing query is 400, as on /v2/query', async () => {
    const answer = await call(server, 'addUser', { name: 'W', age: 1, email: 'w' }, { 'x-svc-warm': 'true' });
    assert.equal(answer.status, 400);
    assert.equal((answer.body as { error: string }).error, 'invalid_request_option');
  });
});

describe('upserts of the social project (a fresh database)', () => {
  const dir = tempDir();
  let server: TestServer;
  before(async () => {
    server = await startTestServer(['--data', dir.path, '--project', SOCIAL]);
  });
  after(async () => {
    await server.stop();
    dir.remove();
  });
  const count = async (query: 'countUsers' | 'countFollows') => ((await ok(server, query, {})) as { n: number }).n;
  const createdAt = async (id: number) =>
    ((await call(server, 'getUser', { id })).body as { user: { created_at: string } }).user.created_at;

  test('UpsertN on an empty match creates the node, with the defaults (DEFAULT NOW)', async () => {
    // withoutCreated checks that created_at is a time: the default was applied.
    const made = await call(server, 'upsertUser', { name: 'Ann', age: 20 });
    assert.ok('created_at' in (made.body as { user: object }).user, 'the DEFAULT NOW field is there');
    assert.deepEqual(withoutCreated(made.body), { user: { id: 0, label: 'User', name: 'Ann', age: 20, email: null } });
    assert.equal(await count('countUsers'), 1);
  });

  test('UpsertN on a match sets the given fields on the first element only, keeps the others, creates nothing', async () => {
    await ok(server, 'addUser', { name: 'Bo', age: 30, email: 'bo1@example.com' });
    await ok(server, 'addUser', { name: 'Bo', age: 31, email: 'bo2@example.com' });
    const before = await createdAt(1);
    assert.deepEqual(await ok(server, 'upsertUser', { name: 'Bo', age: 40 }), { user: user(1, 'Bo', 40, 'bo1@example.com') });
    assert.equal(await createdAt(1), before, 'an update does not apply the defaults again');
    assert.deepEqual(await ok(server, 'getUser', { id: 2 }), { user: user(2, 'Bo', 31, 'bo2@example.com') });
    assert.deepEqual(await ok(server, 'upsertUser', { name: 'Ann', age: 21 }), {
      user: { id: 0, label: 'User', name: 'Ann', age: 21, email: null },
    });
    assert.equal(await count('countUsers'), 3);
  });

  test('N<T>(id)::UpsertN updates that node; a missing id is 404 node_not_found and writes nothing', async () => {
    assert.deepEqual(await ok(server, 'upsertUserById', { id: 2, age: 50 }), { user: user(2, 'Bo', 50, 'bo2@example.com') });
    const missing = await call(server, 'upsertUserById', { id: 999, age: 50 });
    assert.equal(missing.status, 404, JSON.stringify(missing.body));
    assert.equal((missing.body as { error: string }).error, 'node_not_found');
    assert.equal(await count('countUsers'), 3);
  });

  test('N<T>(id) of a node of another type finds no T, so UpsertN creates one', async () => {
    const post = (await ok(server, 'addPost', { author: 0, title: 'Hi' })) as { post: { id: number } };
    assert.equal(post.post.id, 3);
    assert.deepEqual(await ok(server, 'upsertUserById', { id: 3, age: 7 }), {
      user: { id: 4, label: 'User', name: null, age: 7, email: null },
    });
    assert.equal(await count('countUsers'), 4);
  });

  test('UpsertN in a FOR loop: each element sees what the ones before it created', async () => {
    assert.deepEqual(
      await ok(server, 'upsertUsers', {
        users: [
          { name: 'Zed', age: 1 },
          { name: 'Zed', age: 2 },
          { name: 'Ann', age: 22 },
        ],
      }),
      { n: 5 },
    );
    assert.deepEqual(await ok(server, 'adults', { min: 0 }), {
      adults: [
        { name: 'Bo', age: 50 },
        { name: 'Bo', age: 40 },
        { name: 'Ann', age: 22 },
        { name: null, age: 7 },
        { name: 'Zed', age: 2 },
      ],
    });
  });

  test('UpsertE creates the edge, then updates that same edge: one edge, not two', async () => {
    assert.deepEqual(await ok(server, 'upsertFollow', { from: 0, to: 1, since: 2000 }), {
      edge: { id: 1, label: 'Follows', from_node: 0, to_node: 1, since: 2000 },
    });
    assert.equal(await count('countFollows'), 1);
    assert.deepEqual(await ok(server, 'upsertFollow', { from: 0, to: 1, since: 2001 }), {
      edge: { id: 1, label: 'Follows', from_node: 0, to_node: 1, since: 2001 },
    });
    assert.equal(await count('countFollows'), 1);
  });

  test('UpsertE with ::To before ::From and node variables as ends finds the same edge; the other direction is another edge', async () => {
    assert.deepEqual(await ok(server, 'upsertFollowOf', { from: 0, to: 1, since: 2002 }), {
      edge: { id: 1, label: 'Follows', from_node: 0, to_node: 1, since: 2002 },
    });
    assert.equal(await count('countFollows'), 1);
    assert.deepEqual(await ok(server, 'upsertFollowOf', { from: 1, to: 0, since: 2003 }), {
      edge: { id: 2, label: 'Follows', from_node: 1, to_node: 0, since: 2003 },
    });
    assert.deepEqual(await ok(server, 'getFollow', { id: 1 }), {
      edge: { id: 1, label: 'Follows', from_node: 0, to_node: 1, since: 2002 },
    });
    assert.equal(await count('countFollows'), 2);
  });

  test('UpsertE to or from a missing node is 404 node_not_found and creates nothing', async () => {
    for (const [from, to] of [
      [0, 999],
      [999, 0],
    ]) {
      const answer = await call(server, 'upsertFollow', { from, to, since: 1 });
      assert.equal(answer.status, 404, JSON.stringify(answer.body));
      assert.equal((answer.body as { error: string }).error, 'node_not_found');
    }
    assert.equal(await count('countFollows'), 2);
  });

  test('an upsert is a write: X-Svc-Warm is refused as for any write', async () => {
    const answer = await call(server, 'upsertUser', { name: 'Ann', age: 1 }, { 'x-svc-warm': 'true' });
    assert.equal(answer.status, 400);
    assert.equal((answer.body as { error: string }).error, 'invalid_request_option');
  });
});

describe('a server without a project', () => {
  const dir = tempDir();
  let server: TestServer;
  before(async () => {
    server = await startTestServer(['--data', dir.path]);
  });
  after(async () => {
    await server.stop();
    dir.remove();
  });
  test('answers POST /<QueryName> with 404 query_not_found saying how to load one', async () => {
    const answer = await call(server, 'users', {});
    assert.equal(answer.status, 404);
    assert.deepEqual(answer.body, {
      error: 'query_not_found',
      msg: 'no query named "users"; the server has no project (start it with --project DIR)',
    });
  });
});
