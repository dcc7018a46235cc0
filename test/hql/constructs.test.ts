/**
 * The constructs the reference allows that Trellis refused before issue 27 (item 6), each
 * from a realistic query: INTERSECT, ORDER by a computed value, COUNT::GROUP_BY, FOR over
 * scalars, EXISTS and variables as projection values, nested objects and arrays in
 * RETURN, comparisons against one-value traversals and against a variable's property,
 * POW; and the messages that point at the real cause.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { loadProject } from '../../src/hql/project.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { okCall, writeHqlProject } from '../helpers/hql-project.js';

type Obj = Record<string, unknown>;

const SCHEMA = `
N::User { name: String, age: I32 }
N::Post { title: String }
E::Follows { From: User, To: User, Properties: { since: I32 } }
E::Created { From: User, To: Post }
`;

const QUERIES = `
QUERY addUsers(names: [String], age: I32) =>
    FOR name IN names {
        u <- AddN<User>({name: name, age: age})
    }
    n <- N<User>::COUNT
    RETURN n

QUERY follow(from: ID, to: ID, since: I32) =>
    e <- AddE<Follows>({since: since})::From(from)::To(to)
    RETURN e

QUERY post(author: ID, title: String) =>
    p <- AddN<Post>({title: title})
    AddE<Created>::From(author)::To(p)
    RETURN p

QUERY commonlyFollowed(names: [String]) =>
    group <- N<User>::WHERE(_::{name}::IS_IN(names))
    common <- group::INTERSECT(_::Out<Follows>)
    RETURN common::{name}

QUERY byFollowers() =>
    users <- N<User>::ORDER<Desc>(_::In<Follows>::COUNT)
    RETURN users::{name}

QUERY countsByAge() =>
    groups <- N<User>::COUNT::GROUP_BY(age)
    RETURN groups

QUERY followsAnyone() =>
    users <- N<User>::{name, active: EXISTS(_::Out<Follows>)}
    RETURN users

QUERY profile(id: ID) =>
    user <- N<User>(id)
    posts <- user::Out<Created>
    count <- posts::COUNT
    RETURN {profile: user::{name, posts: posts::{title}, owner: user::ID}, summary: [count, "posts"], n: count}

QUERY selves() =>
    users <- N<User>::|u|{me: u}
    RETURN users

QUERY followedSince(id: ID, year: I32) =>
    edges <- E<Follows>::WHERE(AND(_::ToN::ID::EQ(id), _::{since}::GTE(year)))
    RETURN edges::{since}

QUERY authorsOf(title: String) =>
    users <- N<User>::WHERE(_::Out<Created>::{title}::EQ(title))
    RETURN users::{name}

QUERY sameAgeAs(id: ID) =>
    other <- N<User>(id)
    users <- N<User>::WHERE(_::{age}::EQ(other::{age}))
    RETURN users::{name}

QUERY olderThan(id: ID) =>
    other <- N<User>(id)
    users <- N<User>::WHERE(_::{age}::GT(other::{age}))
    RETURN users::{name}

QUERY atMostAgeOf(id: ID) =>
    other <- N<User>(id)
    users <- N<User>::WHERE(_::{age}::LTE(other::{age}))
    RETURN users::{name}

QUERY squares() =>
    users <- N<User>::{name, sq: POW(_::In<Follows>::COUNT, 2)}
    RETURN users
`;

describe('constructs of the reference refused before issue 27', () => {
  const dir = tempDir();
  let server: TestServer;
  const ok = (name: string, params: unknown = {}): Promise<Obj> => okCall(server, name, params);
  before(async () => {
    server = await startTestServer(['--data', join(dir.path, 'data'), '--project', writeHqlProject(dir.path, SCHEMA, QUERIES)]);
    // A (0), B (1), C (2) aged 30, D (3) aged 40. A -> B, A -> C, B -> C, D -> C.
    assert.deepEqual(await ok('addUsers', { names: ['A', 'B', 'C'], age: 30 }), { n: 3 });
    assert.deepEqual(await ok('addUsers', { names: ['D'], age: 40 }), { n: 4 });
    for (const [from, to, since] of [
      [0, 1, 2020],
      [0, 2, 2021],
      [1, 2, 2022],
      [3, 2, 2019],
    ])
      await ok('follow', { from, to, since });
    await ok('post', { author: 0, title: 'Hello' });
    await ok('post', { author: 0, title: 'Again' });
  });
  after(async () => {
    await server.stop();
    dir.remove();
  });

  test('FOR over an array of scalars runs once per value', async () => {
    // addUsers above: three users from one call.
    assert.deepEqual(await ok('byFollowers'), { users: ['C', 'B', 'A', 'D'] });
  });

  test('INTERSECT: the elements every incoming element reaches', async () => {
    assert.deepEqual(await ok('commonlyFollowed', { names: ['A', 'B'] }), { common: ['C'] });
    assert.deepEqual(await ok('commonlyFollowed', { names: ['A', 'B', 'C'] }), { common: [] }, 'C follows nobody');
  });

  test('ORDER by a computed value (a count of neighbours), stable', async () => {
    assert.deepEqual(await ok('byFollowers'), { users: ['C', 'B', 'A', 'D'] });
  });

  test('COUNT::GROUP_BY: the counts of the groups', async () => {
    assert.deepEqual(await ok('countsByAge'), {
      groups: [
        { age: 30, count: 3 },
        { age: 40, count: 1 },
      ],
    });
  });

  test('EXISTS as a projected value', async () => {
    assert.deepEqual(await ok('followsAnyone'), {
      users: [
        { name: 'A', active: true },
        { name: 'B', active: true },
        { name: 'C', active: false },
        { name: 'D', active: true },
      ],
    });
  });

  test('variables and their traversals as projection values; nested objects and arrays in RETURN', async () => {
    assert.deepEqual(await ok('profile', { id: 0 }), {
      profile: { name: 'A', posts: ['Hello', 'Again'], owner: 0 },
      summary: [2, 'posts'],
      n: 2,
    });
  });

  test('a closure item as a value: the element whole', async () => {
    const got = (await ok('selves')).users as { me: Obj }[];
    assert.deepEqual(got[0], { me: { id: 0, label: 'User', name: 'A', age: 30 } });
  });

  test('WHERE against a one-value traversal: _::ToN::ID::EQ(id), _::Out<E>::{p}::EQ(x)', async () => {
    assert.deepEqual(await ok('followedSince', { id: 2, year: 2020 }), { edges: [2021, 2022] });
    assert.deepEqual(await ok('authorsOf', { title: 'Hello' }), { users: ['A'] }, 'the first post of A is Hello');
    assert.deepEqual(await ok('authorsOf', { title: 'Again' }), { users: [] }, 'v1 compares the first value only');
  });

  test("EQ(other::{age}): a variable's property as the compared value", async () => {
    assert.deepEqual(await ok('sameAgeAs', { id: 3 }), { users: ['D'] });
    assert.deepEqual(await ok('sameAgeAs', { id: 1 }), { users: ['A', 'B', 'C'] });
  });

  test("GT and LTE against a variable's property compare the tested element on the left", async () => {
    assert.deepEqual(await ok('olderThan', { id: 1 }), { users: ['D'] }, 'older than B (30)');
    assert.deepEqual(await ok('olderThan', { id: 3 }), { users: [] }, 'nobody is older than D (40)');
    assert.deepEqual(await ok('atMostAgeOf', { id: 1 }), { users: ['A', 'B', 'C'] });
    assert.deepEqual(await ok('atMostAgeOf', { id: 3 }), { users: ['A', 'B', 'C', 'D'] });
  });

  test('POW in a projection', async () => {
    const got = (await ok('squares')).users as { name: string; sq: number }[];
    assert.deepEqual(
      got.map((u) => [u.name, u.sq]),
      [
        ['A', 0],
        ['B', 1],
        ['C', 9],
        ['D', 0],
      ],
    );
  });
});

test('messages that point at the real cause', () => {
  const dir = tempDir();
  try {
    const project = writeHqlProject(
      dir.path,
      SCHEMA,
      `
QUERY emptyLoop(names: [String]) =>
    FOR name IN names {
    }
    RETURN NONE

QUERY brokenLoop(names: [String]) =>
    FOR name IN names {
        u <- AddN<Nobody>({name: name})
    }
    RETURN NONE

QUERY containsOther(id: ID) =>
    other <- N<User>(id)
    users <- N<User>::WHERE(_::{name}::CONTAINS(other::{name}))
    RETURN users

QUERY notAField() =>
    users <- N<User>::{name, friend: nobody}
    RETURN users
`,
    );
    const loaded = loadProject(project, { mcp: false });
    assert.equal(loaded.ok, false);
    if (loaded.ok) return;
    assert.match(loaded.report, /a FOR loop needs at least one statement \(in query emptyLoop\)/);
    assert.match(loaded.report, /"Nobody" is not a node type \(in query brokenLoop\)/);
    assert.doesNotMatch(
      loaded.report,
      /needs at least one statement \(in query brokenLoop\)/,
      'the loop whose statement was refused names that cause only',
    );
    assert.match(loaded.report, /"nobody" is not a field of node type User/);
    assert.match(loaded.report, /CONTAINS does not take a variable's property; EQ, NEQ, GT, GTE, LT and LTE do/);
  } finally {
    dir.remove();
  }
});
