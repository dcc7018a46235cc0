/**
 * Migrations applied to the data when a writer starts (src/server/schema-migration.ts;
 * docs/query-language.md "Schema versions and migrations"), on a real server restarted with
 * a project's next versions: the data is rewritten once, in one write, and the version it is
 * at is recorded; a migration that cannot convert a value leaves the data as it was and
 * stops start-up, as does a missing step or data newer than the project.
 */
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { okCall, writeHqlProject } from '../helpers/hql-project.js';
import { failedStart, get, postPath, readRequest, startTestServer, tempDir, waitUntil, type TestServer } from '../helpers/server.js';

const base = tempDir('trellis-schema-migration-');
after(() => base.remove());
let made = 0;

const V1_ITEMS = `
    N::User { name: String, age: I32 }
    N::Post { title: String }
    E::Wrote { From: User, To: Post, Properties: { at: I32 } }
`;
const V1_QUERIES = `
QUERY addUser(name: String, age: I32) => u <- AddN<User>({name: name, age: age}) RETURN u
QUERY addPost(u: ID, title: String, at: I32) =>
    p <- AddN<Post>({title: title})
    e <- AddE<Wrote>({at: at})::From(u)::To(p)
    RETURN p
QUERY users() => u <- N<User> RETURN u::{name, age}
`;
const V2_ITEMS = `
    N::Member { username: String, age: U32, post_count: U32, joined: Date, note: String, gone: String }
    N::Post { title: String }
    E::Wrote { From: Member, To: Post, Properties: { at: F64 } }
`;
const MIGRATION_1_2 = `
MIGRATION schema::1 => schema::2 {
    N::User => N::Member { username: name, age: age AS U32, post_count: 0, joined: NOW, note: age AS String, gone: NONE }
    N::Post => _::{ title: title }
    E::Wrote => _::{ Properties: { at: at AS F64 } }
}
`;
const V2_QUERIES = `
QUERY members() => m <- N<Member> RETURN m::{username, age, post_count, joined, note, gone}
QUERY wrote(m: ID) => e <- N<Member>(m)::OutE<Wrote> RETURN e::{at}
QUERY posts(m: ID) => p <- N<Member>(m)::Out<Wrote> RETURN p::{title}
QUERY setCount(m: ID, c: U32) => u <- N<Member>(m)::UPDATE({post_count: c}) RETURN u::{post_count}
QUERY addMember(name: String) => m <- AddN<Member>({username: name, age: 1}) RETURN m::{username}
`;
const V3_ITEMS = `
    N::Member { username: String, age: U64, posts: U32 }
    N::Post { title: String }
    E::Wrote { From: Member, To: Post, Properties: { at: F64 } }
`;
const MIGRATION_2_3 = `
MIGRATION schema::2 => schema::3 {
    N::Member => _::{ username: username, age: age, posts: post_count }
    N::Post => _::{ title: title }
}
`;
const V3_QUERIES = 'QUERY members() => m <- N<Member> RETURN m::{username, age, posts}\n';

/** A project folder: `schema` and `queries` as its two files. */
function project(schema: string, queries: string): string {
  return writeHqlProject(join(base.path, `project-${made++}`), schema, queries);
}

const P1 = () => project(V1_ITEMS, V1_QUERIES);
const P2 = () => project(`schema::1 {${V1_ITEMS}}\nschema::2 {${V2_ITEMS}}\n${MIGRATION_1_2}`, V2_QUERIES);
const P3 = () =>
  project(`schema::1 {${V1_ITEMS}}\nschema::2 {${V2_ITEMS}}\nschema::3 {${V3_ITEMS}}\n${MIGRATION_1_2}${MIGRATION_2_3}`, V3_QUERIES);

async function serve(data: string, dir: string): Promise<TestServer> {
  return startTestServer(['--data', data, '--project', dir]);
}

/** Starts a server on `data` with the project `dir`, runs `use`, stops it; answers its output. */
async function withServer(data: string, dir: string, use: (server: TestServer) => Promise<void>): Promise<string> {
  const server = await serve(data, dir);
  try {
    await use(server);
  } finally {
    await server.stop();
  }
  return server.output();
}

/** The versions the database records (the `$trellis_schema` nodes). */
async function recorded(server: TestServer): Promise<unknown> {
  const entries = [
    {
      query: {
        name: 'v',
        root: {
          values: {
            input: {
              nodes_where: { predicate: { eq: { left: { property: '$label' }, right: { constant: { string: '$trellis_schema' } } } } },
            },
            properties: ['version'],
          },
        },
      },
    },
  ];
  const answer = await postPath(server, '/v2/query', readRequest(entries, ['v']));
  assert.equal(answer.status, 200, answer.text);
  return (answer.body as { v: unknown }).v;
}

/** A database at schema::1 with two users, ann (30, with a post) and bob (`bobAge`). */
async function seed(data: string, bobAge = 41): Promise<void> {
  await withServer(data, P1(), async (s) => {
    const ann = (await okCall(s, 'addUser', { name: 'ann', age: 30 })).u as { id: number };
    await okCall(s, 'addUser', { name: 'bob', age: bobAge });
    await okCall(s, 'addPost', { u: ann.id, title: 'hello', at: 5 });
    assert.deepEqual(await recorded(s), [], 'a project of one version records nothing');
  });
}

test('restarted with schema::2 and its MIGRATION, the data is migrated once: renamed item and field, casts, literals, NOW, NONE', async () => {
  const data = tempDir();
  try {
    await seed(data.path);
    const p2 = P2();
    const first = await withServer(data.path, p2, async (s) => {
      const members = (await okCall(s, 'members')).m as Record<string, unknown>[];
      assert.equal(members.length, 2);
      for (const m of members) {
        assert.match(String(m.joined), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'joined: NOW, a date');
        delete m.joined;
      }
      assert.deepEqual(members, [
        { username: 'ann', age: 30, post_count: 0, note: '30', gone: null },
        { username: 'bob', age: 41, post_count: 0, note: '41', gone: null },
      ]);
      // The node keeps its id and its edges; the edge's property is now a float.
      assert.deepEqual(await okCall(s, 'posts', { m: 0 }), { p: ['hello'] });
      const wrote = await postPath(s, '/wrote', { m: 0 });
      assert.equal(wrote.text, '{"e":[5.0]}');
      assert.deepEqual(await recorded(s), [{ version: 2 }]);
      // The stored node holds the new fields only: the old ones and the temporary ones are gone.
      const stored = await postPath(
        s,
        '/v2/query',
        readRequest([{ query: { name: 'n', root: { value_map: { input: { nodes: { reference: { ids: [0] } } } } } } }], ['n']),
      );
      assert.deepEqual(Object.keys((stored.body as { n: Record<string, unknown>[] }).n[0]!).sort(), [
        '$id',
        '$label',
        'age',
        'joined',
        'note',
        'post_count',
        'username',
      ]);
      assert.deepEqual(await okCall(s, 'setCount', { m: 0, c: 3 }), { u: 3 });
    });
    assert.match(first, /the data is migrated from schema::1 to schema::2 \(MIGRATION at schema\.hx:\d+\)/);
    // A second start finds schema::2 recorded: nothing runs again.
    const second = await withServer(data.path, p2, async (s) => {
      const members = (await okCall(s, 'members')).m as Record<string, unknown>[];
      assert.deepEqual(
        members.map((m) => [m.username, m.post_count]),
        [
          ['ann', 3],
          ['bob', 0],
        ],
      );
      assert.deepEqual(await recorded(s), [{ version: 2 }]);
    });
    assert.doesNotMatch(second, /migrated/);
  } finally {
    data.remove();
  }
});

test('a migration that cannot convert a value stops start-up, naming it, and leaves the data as it was', async () => {
  const data = tempDir();
  try {
    await seed(data.path, -3);
    const run = await failedStart(['--data', data.path, '--project', P2()]);
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /trellis: the data in .* could not be migrated from schema::1 to schema::2, and is unchanged: MIGRATION at schema\.hx:\d+, N::User, field "age" from "age": cannot cast -3 \(node 1\) to u32: out of its range, 0 to 4294967295/,
    );
    assert.doesNotMatch(run.stdout, /trellis ready/);
    await withServer(data.path, P1(), async (s) => {
      assert.deepEqual(await okCall(s, 'users'), {
        u: [
          { name: 'ann', age: 30 },
          { name: 'bob', age: -3 },
        ],
      });
      assert.deepEqual(await recorded(s), [], 'no version recorded');
    });
  } finally {
    data.remove();
  }
});

test('an empty database records the highest version; a later start migrates from it, and the chain runs step by step', async () => {
  const data = tempDir();
  try {
    const empty = await withServer(data.path, P2(), async (s) => {
      assert.deepEqual(await recorded(s), [{ version: 2 }]);
      await okCall(s, 'addMember', { name: 'cy' });
    });
    assert.match(empty, /the empty database records schema::2/);
    // Recorded 2: only MIGRATION 2 => 3 runs (1 => 2 would fail: cy has no "name" to cast... and no User).
    const next = await withServer(data.path, P3(), async (s) => {
      assert.deepEqual(await okCall(s, 'members'), { m: [{ username: 'cy', age: 1, posts: null }] });
      assert.deepEqual(await recorded(s), [{ version: 3 }]);
    });
    assert.match(next, /the data is migrated from schema::2 to schema::3 \(MIGRATION at schema\.hx:\d+\)/);
    // The project is older than the data: refused.
    const older = await failedStart(['--data', data.path, '--project', P2()]);
    assert.equal(older.code, 1);
    assert.match(
      older.stderr,
      /the data in .* is at schema::3, and this project's highest version is schema::2: serve it with a project that declares schema::3/,
    );
  } finally {
    data.remove();
  }
  // Data at schema::1 (nothing recorded) and a project at 3: both migrations, in one write.
  const old = tempDir();
  try {
    await seed(old.path);
    const both = await withServer(old.path, P3(), async (s) => {
      assert.deepEqual(await okCall(s, 'members'), {
        m: [
          { username: 'ann', age: 30, posts: 0 },
          { username: 'bob', age: 41, posts: 0 },
        ],
      });
    });
    assert.match(both, /the data is migrated from schema::1 to schema::3 \(MIGRATION at schema\.hx:\d+, MIGRATION at schema\.hx:\d+\)/);
  } finally {
    old.remove();
  }
});

test('a missing step stops start-up naming the versions; so does data recorded at a version with no migration from it', async () => {
  const data = tempDir();
  try {
    await seed(data.path);
    const noMigration = project(`schema::1 {${V1_ITEMS}}\nschema::2 {${V2_ITEMS}}\n`, V2_QUERIES);
    const run = await failedStart(['--data', data.path, '--project', noMigration]);
    assert.equal(run.code, 1);
    assert.match(
      run.stderr,
      /the data in .* is at schema::1 \(no version recorded: the lowest declared\) and this project's queries are of schema::2, but no MIGRATION starts at schema::1: add MIGRATION schema::1 => schema::2 \{ \.\.\. \}/,
    );
    // Nothing changed: the project of schema::1 still serves it.
    await withServer(data.path, P1(), async (s) => {
      assert.equal(((await okCall(s, 'users')).u as unknown[]).length, 2);
    });
  } finally {
    data.remove();
  }
});

test('a renamed vector type keeps its vectors and is searched through an index of the new type, made in the same write', async () => {
  const data = tempDir();
  try {
    const v1 = project(
      'V::Doc { title: String }\n',
      'QUERY addDoc(v: [F64], t: String) => d <- AddV<Doc>(v, {title: t}) RETURN d::{title}\n',
    );
    await withServer(data.path, v1, async (s) => {
      await okCall(s, 'addDoc', { v: [1, 0], t: 'east' });
      await okCall(s, 'addDoc', { v: [0, 1], t: 'north' });
    });
    const v2 = project(
      'schema::1 { V::Doc { title: String } }\nschema::2 { V::Page { heading: String } }\n' +
        'MIGRATION schema::1 => schema::2 { V::Doc => V::Page { heading: title } }\n',
      'QUERY find(v: [F64]) => p <- SearchV<Page>(v, 2) RETURN p::{heading}\nQUERY all() => p <- V<Page> RETURN p::{heading, data}\n',
    );
    await withServer(data.path, v2, async (s) => {
      assert.deepEqual(await okCall(s, 'all'), {
        p: [
          { heading: 'east', data: [1, 0] },
          { heading: 'north', data: [0, 1] },
        ],
      });
      assert.deepEqual(await okCall(s, 'find', { v: [0.1, 1] }), { p: ['north', 'east'] });
    });
  } finally {
    data.remove();
  }
});

test('old values are read before any is written (a swap), and the mappings of one migration do not chain (A => B, B => C)', async () => {
  const data = tempDir();
  try {
    const items = 'N::A { x: I8 }\nN::B { x: I8 }\nN::P { a: String, b: String }\n';
    const v1 = project(
      items,
      'QUERY seed() =>\n    a <- AddN<A>({x: 1})\n    b <- AddN<B>({x: 2})\n    p <- AddN<P>({a: "first", b: "second"})\n    RETURN NONE\n',
    );
    await withServer(data.path, v1, async (s) => {
      await okCall(s, 'seed');
    });
    const v2 = project(
      `schema::1 {\n${items}}\nschema::2 {\nN::B { x: I8 }\nN::C { x: I8 }\nN::P { a: String, b: String }\n}\n` +
        'MIGRATION schema::1 => schema::2 {\n    N::A => N::B { x: x }\n    N::B => N::C { x: x }\n    N::P => _::{ a: b, b: a }\n}\n',
      'QUERY bs() => b <- N<B> RETURN b::{x}\nQUERY cs() => c <- N<C> RETURN c::{x}\nQUERY ps() => p <- N<P> RETURN p::{a, b}\n',
    );
    await withServer(data.path, v2, async (s) => {
      assert.deepEqual(await okCall(s, 'bs'), { b: [1] }, 'the A became a B');
      assert.deepEqual(await okCall(s, 'cs'), { c: [2] }, 'the B became a C, and the new B stayed');
      assert.deepEqual(await okCall(s, 'ps'), { p: [{ a: 'second', b: 'first' }] });
    });
  } finally {
    data.remove();
  }
});

test('`..` keeps the fields the old and the new item share, beside the renamed and converted ones', async () => {
  const data = tempDir();
  try {
    const v1 = project(
      'N::User { name: String, age: I32, bio: String }\nE::Knows { From: User, To: User, Properties: { since: I32, fact: String } }\n',
      'QUERY seed() =>\n    a <- AddN<User>({name: "ann", age: 30, bio: "climbs"})\n    b <- AddN<User>({name: "bob", age: 41})\n' +
        '    e <- AddE<Knows>({since: 2020, fact: "met"})::From(a)::To(b)\n    RETURN NONE\n',
    );
    await withServer(data.path, v1, async (s) => {
      await okCall(s, 'seed');
    });
    const v2 = project(
      'schema::1 {\nN::User { name: String, age: I32, bio: String }\nE::Knows { From: User, To: User, Properties: { since: I32, fact: String } }\n}\n' +
        'schema::2 {\nN::User { username: String, given_age: U32, bio: String }\nE::Knows { From: User, To: User, Properties: { since: I64, fact: String, note: String } }\n}\n' +
        'MIGRATION schema::1 => schema::2 {\n    N::User => _::{ username: name, given_age: age AS U32, .. }\n    E::Knows => _::{ Properties: { .. } }\n}\n',
      'QUERY users() => u <- N<User> RETURN u::{username, given_age, bio}\nQUERY knows() => e <- E<Knows> RETURN e::{since, fact, note}\n',
    );
    await withServer(data.path, v2, async (s) => {
      const users = (await okCall(s, 'users')).u as Record<string, unknown>[];
      assert.deepEqual(
        users.sort((x, y) => String(x.username).localeCompare(String(y.username))),
        [
          { username: 'ann', given_age: 30, bio: 'climbs' },
          { username: 'bob', given_age: 41, bio: null },
        ],
        'bio carried over by `..` (bob had none); name and age mapped',
      );
      assert.deepEqual(await okCall(s, 'knows'), { e: [{ since: 2020, fact: 'met', note: null }] }, 'since widened I32 to I64, fact kept');
    });
  } finally {
    data.remove();
  }
});

test('a reader waits, not ready, until the writer has migrated the data to its project version; one older than the data stops', async () => {
  const data = tempDir();
  try {
    await seed(data.path);
    // The reader starts first, with the project of schema::2: the data is at schema::1.
    const reader = await startTestServer(['--mode', 'reader', '--data', data.path, '--project', P2()], { waitReady: false });
    try {
      await waitUntil(reader, 'the reader waiting for schema::2', () => reader.output().includes('not ready until the writer migrates it'));
      assert.match(
        reader.output(),
        /the data is at schema::1 and this project's queries are of schema::2: not ready until the writer migrates it/,
      );
      assert.equal((await get(`${reader.url}/readyz`)).status, 503);
      assert.equal((await postPath(reader, '/members', {})).status, 503, 'no query of schema::2 is answered from schema::1 data');
      // The writer migrates; the reader sees it and serves.
      await withServer(data.path, P2(), async () => {
        await waitUntil(reader, 'the reader ready', async () => (await get(`${reader.url}/readyz`)).status === 200);
        const members = (await okCall(reader, 'members')).m as { username: string }[];
        assert.deepEqual(members.map((m) => m.username).sort(), ['ann', 'bob']);
      });
      assert.match(reader.output(), /the data is at schema::2: serving/);
    } finally {
      await reader.stop();
    }
    // The data is at schema::2 now: a reader with the project of schema::1 refuses it.
    const old = await failedStart(['--mode', 'reader', '--data', data.path, '--project', P1()]);
    assert.equal(old.code, 1);
    assert.match(
      old.stderr,
      /the data in .* is at schema::2, and this project's highest version is schema::1: serve it with a project that declares schema::2/,
    );
  } finally {
    data.remove();
  }
});
