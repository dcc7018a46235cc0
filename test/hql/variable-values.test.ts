/**
 * A variable holding one value where a value is expected (reference §4.1, §4.3: "a
 * param/var", "identifier"): a COUNT, an `::ID` or a `::{field}` of one element, bound by
 * an earlier statement, in AddN and UPDATE fields, comparisons, RANGE bounds, a search's k
 * and a text search's text. It is read as that statement computed it (no re-evaluation),
 * typed like a parameter of its type; a variable of many values or of elements is refused
 * with its reason.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { compileQuery } from '../../src/hql/compile.js';
import { parse } from '../../src/hql/parser.js';
import { buildSchema } from '../../src/hql/schema.js';
import { startTestServer, tempDir, type TestServer } from '../helpers/server.js';
import { okCall, writeHqlProject } from '../helpers/hql-project.js';

const SCHEMA = `
N::User { name: String, age: I32, rank: I64 }
N::Post { title: String, author_name: String }
N::Stat { users: I64, oldest: String }
E::Created { From: User, To: Post }
V::Doc { title: String }
`;

const QUERIES = `
QUERY addUser(name: String, age: I32) =>
    u <- AddN<User>({name: name, age: age, rank: 0})
    RETURN u::ID

QUERY snapshot() =>
    n <- N<User>::COUNT
    oldest <- N<User>::ORDER<Desc>(_::{age})::FIRST::{name}
    s <- AddN<Stat>({users: n, oldest: oldest})
    RETURN s::{users, oldest}

QUERY postAs(id: ID, title: String) =>
    name <- N<User>(id)::{name}
    p <- AddN<Post>({title: title, author_name: name})
    AddE<Created>::From(id)::To(p)
    RETURN p::{title, author_name}

QUERY olderThan(id: ID) =>
    age <- N<User>(id)::{age}
    users <- N<User>::WHERE(_::{age}::GT(age))
    RETURN users::{name}

QUERY others(id: ID) =>
    me <- N<User>(id)::ID
    users <- N<User>::WHERE(_::ID::NEQ(me))
    RETURN users::{name}

QUERY rankAll(id: ID) =>
    n <- N<User>::COUNT
    u <- N<User>(id)::UPDATE({rank: n})
    RETURN u::{name, rank}

QUERY addDoc(vec: [F64], title: String) =>
    d <- AddV<Doc>(vec, {title: title})
    RETURN d::ID

QUERY nearestAsManyAsUsers(vec: [F64]) =>
    n <- N<User>::COUNT
    docs <- SearchV<Doc>(vec, n)
    RETURN docs::{title}

QUERY postsNaming(id: ID) =>
    name <- N<User>(id)::{name}
    posts <- SearchBM25<Post>(name, 5)
    RETURN posts::{title}

QUERY creditTo(id: ID, title: String) =>
    author <- N<User>(id)::ID
    p <- AddN<Post>({title: title, author_name: ""})
    AddE<Created>::From(author)::To(p)
    RETURN p::ID

QUERY postsOf(id: ID) =>
    me <- N<User>(id)::ID
    posts <- N<User>(me)::Out<Created>::{title}
    RETURN posts

QUERY creditOnce(id: ID, pid: ID) =>
    author <- N<User>(id)::ID
    post <- N<Post>(pid)::ID
    e <- E<Created>::UpsertE({})::From(author)::To(post)
    RETURN e::ID

QUERY creditMatching(id: ID, title: String) =>
    posts <- N<Post>::WHERE(_::{title}::EQ(title))
    edges <- AddE<Created>::From(id)::To(posts)
    RETURN edges::ID

QUERY creditFromMatching(name: String, pid: ID) =>
    users <- N<User>::WHERE(_::{name}::EQ(name))
    edges <- AddE<Created>::From(users)::To(pid)
    RETURN edges::ID

QUERY createdBy(id: ID) =>
    n <- N<User>(id)::OutE<Created>::COUNT
    RETURN n

QUERY olderByIds(age: I32) =>
    ids <- N<User>::WHERE(_::{age}::GT(age))::ID
    users <- N<User>(ids)
    RETURN users::{name}

QUERY firstOfPosts(id: ID) =>
    n <- N<User>(id)::Out<Created>::COUNT
    users <- N<User>::RANGE(0, n)
    RETURN users::{name}
`;

describe('variables of one value where a value is expected', () => {
  const dir = tempDir();
  let server: TestServer;
  const ok = (name: string, params: unknown = {}) => okCall(server, name, params);
  before(async () => {
    server = await startTestServer(['--data', join(dir.path, 'data'), '--project', writeHqlProject(dir.path, SCHEMA, QUERIES)]);
    // ann (0) 30, bob (1) 25, cy (2) 35
    for (const [name, age] of [
      ['ann', 30],
      ['bob', 25],
      ['cy', 35],
    ] as const)
      await ok('addUser', { name, age });
  });
  after(async () => {
    await server.stop();
    dir.remove();
  });

  test('a COUNT and a ::{field} of one element become stored fields', async () => {
    assert.deepEqual(await ok('snapshot'), { s: { users: 3, oldest: 'cy' } });
    assert.deepEqual(await ok('postAs', { id: 1, title: 'Hi' }), { p: { title: 'Hi', author_name: 'bob' } });
  });

  test('compared with: a ::{field} and an ::ID of one element', async () => {
    assert.deepEqual(await ok('olderThan', { id: 0 }), { users: ['cy'] });
    assert.deepEqual(await ok('others', { id: 2 }), { users: ['ann', 'bob'] });
  });

  test('a COUNT in UPDATE and as a RANGE bound', async () => {
    assert.deepEqual(await ok('rankAll', { id: 0 }), { u: { name: 'ann', rank: 3 } });
    // bob wrote one post (above): the first user only.
    assert.deepEqual(await ok('firstOfPosts', { id: 1 }), { users: ['ann'] });
    assert.deepEqual(await ok('firstOfPosts', { id: 2 }), { users: [] });
  });

  test("a COUNT as a search's k, a ::{field} as a text search's text", async () => {
    for (const [i, vec] of [
      [1, 0],
      [0.9, 0.1],
      [0.5, 0.5],
      [0, 1],
    ].entries())
      await ok('addDoc', { vec, title: `d${i}` });
    // Three users: the three nearest of the four documents.
    assert.deepEqual(await ok('nearestAsManyAsUsers', { vec: [1, 0] }), { docs: ['d0', 'd1', 'd2'] });
    // bob (1) wrote "Hi" (above, postAs), whose author_name is bob.
    assert.deepEqual(await ok('postsNaming', { id: 1 }), { posts: ['Hi'] });
  });

  test('a variable of ids names nodes: N<T>(x), AddE and UpsertE ::From(x)::To(y), where x <- u::ID', async () => {
    const { p: pid } = (await ok('creditTo', { id: 2, title: 'Cy writes' })) as { p: number };
    assert.deepEqual(await ok('postsOf', { id: 2 }), { posts: ['Cy writes'] });
    // UpsertE between ids held in variables: made once, then found.
    const made = await ok('creditOnce', { id: 0, pid });
    assert.deepEqual(await ok('creditOnce', { id: 0, pid }), made);
    assert.notDeepEqual(await ok('creditOnce', { id: 1, pid }), made);
    assert.deepEqual(await ok('postsOf', { id: 0 }), { posts: ['Cy writes'] });
    assert.deepEqual(await ok('olderByIds', { age: 26 }), { users: ['ann', 'cy'] });
    assert.deepEqual(await ok('olderByIds', { age: 99 }), { users: [] });
  });
});

test('AddE between variables: an empty ::To makes no edge, as an empty ::From does', async () => {
  const dir = tempDir();
  const server = await startTestServer(['--data', join(dir.path, 'data'), '--project', writeHqlProject(dir.path, SCHEMA, QUERIES)]);
  try {
    const ok = (name: string, params: unknown) => okCall(server, name, params);
    await ok('addUser', { name: 'ann', age: 30 });
    const { p: pid } = (await ok('creditTo', { id: 0, title: 'first' })) as { p: number };
    assert.deepEqual(await ok('creditMatching', { id: 0, title: 'no such title' }), { edges: [] });
    assert.deepEqual(await ok('creditFromMatching', { name: 'nobody', pid }), { edges: [] });
    assert.deepEqual(await ok('createdBy', { id: 0 }), { n: 1 });
    // And when they hold nodes, one edge per pair.
    assert.equal(((await ok('creditMatching', { id: 0, title: 'first' })) as { edges: number[] }).edges.length, 1);
    assert.equal(((await ok('creditFromMatching', { name: 'ann', pid })) as { edges: number[] }).edges.length, 1);
    assert.deepEqual(await ok('createdBy', { id: 0 }), { n: 3 });
  } finally {
    await server.stop();
    dir.remove();
  }
});

/** The problems of one query against SCHEMA. */
function problems(query: string): string[] {
  const parsed = parse(SCHEMA + query);
  assert.deepEqual(
    parsed.errors.map((e) => e.message),
    [],
  );
  const { schema } = buildSchema(parsed.file.types.map((item) => ({ file: 'q.hx', item })));
  return compileQuery(parsed.file.queries[0]!, schema, { efSearch: null, bm25: true }).problems.map((p) => p.message);
}

test('a variable of elements, of many values or of another type is refused with its reason', () => {
  assert.deepEqual(problems('QUERY a() =>\n  users <- N<User>\n  s <- AddN<Stat>({users: users})\n  RETURN s'), [
    '"users" is the nodes of type User; here a value is expected: a literal, a parameter, or a variable of one value (a COUNT, an ::ID, a ::{field} of one element)',
  ]);
  assert.deepEqual(problems('QUERY a() =>\n  names <- N<User>::{name}\n  s <- AddN<Stat>({oldest: names})\n  RETURN s'), [
    '"names" is property values; here a value is expected: a literal, a parameter, or a variable of one value (a COUNT, an ::ID, a ::{field} of one element)',
  ]);
  assert.deepEqual(problems('QUERY a(id: ID) =>\n  name <- N<User>(id)::{name}\n  s <- AddN<Stat>({users: name})\n  RETURN s'), [
    '"name" is String, but I64 is expected here',
  ]);
  assert.deepEqual(problems('QUERY a(id: ID) =>\n  name <- N<User>(id)::{name}\n  u <- N<User>::RANGE(0, name)\n  RETURN u'), [
    'the end of RANGE is an integer; "name" is String',
  ]);
  assert.deepEqual(problems('QUERY a(id: ID) =>\n  name <- N<User>(id)::{name}\n  u <- N<User>(name)\n  RETURN u'), [
    '"name" is property values, not nodes or an ID',
  ]);
});
