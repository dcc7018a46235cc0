/**
 * Traversals from an enclosing `|item|` (or a variable) inside nested traversals, and
 * INTERSECT and grouping inside nested traversals, and shortest paths ending at an
 * enclosing item (issue 27, item 6): a realistic social-app query for each, run on a real
 * server.
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
N::Post { title: String, topic: String }
E::Follows { From: User, To: User }
E::Wrote { From: User, To: Post }
E::Likes { From: User, To: Post }
`;

const QUERIES = `
QUERY addUser(name: String, age: I32) =>
    u <- AddN<User>({name: name, age: age})
    RETURN u

QUERY addPost(author: ID, title: String, topic: String) =>
    p <- AddN<Post>({title: title, topic: topic})
    AddE<Wrote>::From(author)::To(p)
    RETURN p

QUERY follow(a: ID, b: ID) =>
    e <- AddE<Follows>::From(a)::To(b)
    RETURN e

QUERY like(a: ID, p: ID) =>
    e <- AddE<Likes>::From(a)::To(p)
    RETURN e

// A feed: each post of each user, with what its author follows and whether the author liked it.
QUERY feed() =>
    users <- N<User>::|u|{name, posts: _::Out<Wrote>::|p|{title, authorFollows: u::Out<Follows>::{name}, likedByAuthor: EXISTS(u::Out<Likes>::WHERE(_::ID::EQ(p::ID))), author: u::{name, age}, whole: u}}
    RETURN users

// Whom each user follows that is older than them: WHERE against the enclosing item.
QUERY olderFollowed() =>
    users <- N<User>::|u|{name, older: _::Out<Follows>::WHERE(_::{age}::GT(u::{age}))::{name}}
    RETURN users

// Posts of followed users on the same topic as each of one's own posts: two levels of items.
QUERY sameTopic() =>
    users <- N<User>::|u|{name, posts: _::Out<Wrote>::|p|{title, peers: u::Out<Follows>::Out<Wrote>::WHERE(_::{topic}::EQ(p::{topic}))::{title}}}
    RETURN users

// A variable's traversal deeper down: the same for every element.
QUERY withAlice(id: ID) =>
    alice <- N<User>(id)
    users <- N<User>::|u|{name, posts: _::Out<Wrote>::|p|{title, aliceFollows: alice::Out<Follows>::COUNT}}
    RETURN users

// INTERSECT inside a nested traversal: the posts every user one follows likes.
QUERY likedByAllFollowed() =>
    users <- N<User>::|u|{name, consensus: _::Out<Follows>::INTERSECT(_::Out<Likes>)::{title}}
    RETURN users

// Grouping inside a nested traversal: each user's topics, and those of whom they follow.
QUERY topics() =>
    users <- N<User>::|u|{name, topics: _::Out<Wrote>::GROUP_BY(topic), followedTopics: _::Out<Follows>::Out<Wrote>::COUNT::GROUP_BY(topic), byAge: _::Out<Follows>::AGGREGATE_BY(age)}
    RETURN users

// How one user reaches each user, and how each user reaches them: paths ending at the item.
QUERY reach(id: ID) =>
    s <- N<User>(id)
    users <- N<User>::|u|{name, there: s::ShortestPathBFS<Follows>::To(u), back: s::ShortestPath<Follows>::From(u)}
    RETURN users

// Two levels in: from each user to each followee's followees, ending at the outer item's followee.
QUERY throughFollowees() =>
    users <- N<User>::|u|{name, followees: _::Out<Follows>::|f|{name, way: u::ShortestPath<Follows>::To(f), wayBack: f::ShortestPath<Follows>::To(u)}}
    RETURN users
`;

describe('traversals from enclosing items and grouping inside nested traversals', () => {
  const dir = tempDir();
  let server: TestServer;
  const ok = (name: string, params: unknown = {}): Promise<Obj> => okCall(server, name, params);
  before(async () => {
    server = await startTestServer(['--data', join(dir.path, 'data'), '--project', writeHqlProject(dir.path, SCHEMA, QUERIES)]);
    // Alice (0, 30), Bob (1, 40), Carol (2, 20); Alice follows Bob and Carol, Bob follows Carol.
    for (const [name, age] of [
      ['Alice', 30],
      ['Bob', 40],
      ['Carol', 20],
    ])
      await ok('addUser', { name, age });
    // A1 (3, db) by Alice, B1 (4, db) by Bob, C1 (5, art) by Carol.
    await ok('addPost', { author: 0, title: 'A1', topic: 'db' });
    await ok('addPost', { author: 1, title: 'B1', topic: 'db' });
    await ok('addPost', { author: 2, title: 'C1', topic: 'art' });
    for (const [a, b] of [
      [0, 1],
      [0, 2],
      [1, 2],
    ])
      await ok('follow', { a, b });
    // Alice likes A1; Bob and Carol like B1.
    await ok('like', { a: 0, p: 3 });
    await ok('like', { a: 1, p: 4 });
    await ok('like', { a: 2, p: 4 });
  });
  after(async () => {
    await server.stop();
    dir.remove();
  });

  test('u::Out<...>, EXISTS(u::...), u::{a, b} and u itself inside a nested |p| scope read the enclosing user', async () => {
    const alice = { id: 0, label: 'User', name: 'Alice', age: 30 };
    const bob = { id: 1, label: 'User', name: 'Bob', age: 40 };
    const carol = { id: 2, label: 'User', name: 'Carol', age: 20 };
    assert.deepEqual(await ok('feed'), {
      users: [
        {
          name: 'Alice',
          posts: [{ title: 'A1', authorFollows: ['Bob', 'Carol'], likedByAuthor: true, author: { name: 'Alice', age: 30 }, whole: alice }],
        },
        {
          name: 'Bob',
          posts: [{ title: 'B1', authorFollows: ['Carol'], likedByAuthor: true, author: { name: 'Bob', age: 40 }, whole: bob }],
        },
        {
          name: 'Carol',
          posts: [{ title: 'C1', authorFollows: [], likedByAuthor: false, author: { name: 'Carol', age: 20 }, whole: carol }],
        },
      ],
    });
  });

  test("WHERE inside a nested traversal compares against the enclosing item's property", async () => {
    assert.deepEqual(await ok('olderFollowed'), {
      users: [
        { name: 'Alice', older: ['Bob'] },
        { name: 'Bob', older: [] },
        { name: 'Carol', older: [] },
      ],
    });
  });

  test('two enclosing items at once: a traversal from u filtered by a property of p', async () => {
    assert.deepEqual(await ok('sameTopic'), {
      users: [
        { name: 'Alice', posts: [{ title: 'A1', peers: ['B1'] }] },
        { name: 'Bob', posts: [{ title: 'B1', peers: [] }] },
        { name: 'Carol', posts: [{ title: 'C1', peers: [] }] },
      ],
    });
  });

  test("a query variable's traversal inside a nested scope", async () => {
    assert.deepEqual(await ok('withAlice', { id: 0 }), {
      users: [
        { name: 'Alice', posts: [{ title: 'A1', aliceFollows: 2 }] },
        { name: 'Bob', posts: [{ title: 'B1', aliceFollows: 2 }] },
        { name: 'Carol', posts: [{ title: 'C1', aliceFollows: 2 }] },
      ],
    });
  });

  test('INTERSECT inside a nested traversal intersects per element', async () => {
    assert.deepEqual(await ok('likedByAllFollowed'), {
      users: [
        { name: 'Alice', consensus: ['B1'] },
        { name: 'Bob', consensus: ['B1'] },
        { name: 'Carol', consensus: [] },
      ],
    });
  });

  test('GROUP_BY, COUNT::GROUP_BY and AGGREGATE_BY inside a nested traversal give the groups of each element', async () => {
    const bob = { id: 1, label: 'User', name: 'Bob', age: 40 };
    const carol = { id: 2, label: 'User', name: 'Carol', age: 20 };
    assert.deepEqual(await ok('topics'), {
      users: [
        {
          name: 'Alice',
          topics: [{ topic: 'db', count: 1 }],
          followedTopics: [
            { topic: 'db', count: 1 },
            { topic: 'art', count: 1 },
          ],
          byAge: [
            { count: 1, data: [bob] },
            { count: 1, data: [carol] },
          ],
        },
        {
          name: 'Bob',
          topics: [{ topic: 'db', count: 1 }],
          followedTopics: [{ topic: 'art', count: 1 }],
          byAge: [{ count: 1, data: [carol] }],
        },
        { name: 'Carol', topics: [{ topic: 'art', count: 1 }], followedTopics: [], byAge: [] },
      ],
    });
  });

  test('a shortest path inside a nested traversal ends at an enclosing item: ::To(u), ::From(u), two levels out', async () => {
    const names = (path: unknown) => (path === null ? null : (path as { nodes: Obj[] }).nodes.map((n) => n.name));
    const reach = (id: number) =>
      ok('reach', { id }).then((r) => (r.users as Obj[]).map((u) => ({ name: u.name, there: names(u.there), back: names(u.back) })));
    // Alice follows Bob and Carol, Bob follows Carol.
    assert.deepEqual(await reach(0), [
      { name: 'Alice', there: ['Alice'], back: ['Alice'] },
      { name: 'Bob', there: ['Alice', 'Bob'], back: null },
      { name: 'Carol', there: ['Alice', 'Carol'], back: null },
    ]);
    assert.deepEqual(await reach(2), [
      { name: 'Alice', there: null, back: ['Alice', 'Carol'] },
      { name: 'Bob', there: null, back: ['Bob', 'Carol'] },
      { name: 'Carol', there: ['Carol'], back: ['Carol'] },
    ]);
    const through = (await ok('throughFollowees')).users as Obj[];
    assert.deepEqual(
      through.map((u) => ({
        name: u.name,
        followees: (u.followees as Obj[]).map((f) => ({ name: f.name, way: names(f.way), wayBack: names(f.wayBack) })),
      })),
      [
        {
          name: 'Alice',
          followees: [
            { name: 'Bob', way: ['Alice', 'Bob'], wayBack: null },
            { name: 'Carol', way: ['Alice', 'Carol'], wayBack: null },
          ],
        },
        { name: 'Bob', followees: [{ name: 'Carol', way: ['Bob', 'Carol'], wayBack: null }] },
        { name: 'Carol', followees: [] },
      ],
    );
  });

  test('a path ends at a node: an enclosing item of edges is refused, at its position', () => {
    const query = `QUERY routes() =>\n    edges <- E<Follows>::|e|{since: _::ID, route: _::ToN::ShortestPath<Follows>::To(e)}\n    RETURN edges\n`;
    const loaded = loadProject(writeHqlProject(join(dir.path, 'refused'), SCHEMA, query), { mcp: false });
    assert.equal(loaded.ok, false);
    if (loaded.ok) return;
    assert.match(loaded.report, /a path ends at a node; "e" is an edge/);
  });
});
