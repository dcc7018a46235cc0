/**
 * The traversal expression `{"traversal": {"root": AstNode, "first"?: bool}}`: a
 * sub-traversal from "context" run on the current row alone, yielding a count (i64), an
 * exists (bool), a list terminal's items or a stream's element ids (an array), or with
 * `first` that array's first item (null when empty). It works wherever an expression
 * does (where predicates, project items, mutation values, nested in other sub-traversals)
 * and its static restrictions are those of branch bodies plus: no mutations at all.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { atPath, ci, cs, ctx, i, ids, openTestDb, prop, q, rejects400, requestText, s, sub, type TestDb } from '../helpers/embedded.js';

let t: TestDb;

/*
 * Nodes (label U): 0 a {age 30}, 1 b {age 25}, 2 c {age 35}, 3 d (no age); 4 acme (label C)
 * Follows: e0 0->1 {since 2020}, e1 0->2, e2 0->3, e3 1->2, e4 2->3, e5 3->0
 * WorksAt: e6 0->4, e7 1->4
 * out-degree (Follows): 0:3 1:1 2:1 3:1;  in-degree: 0:1 1:1 2:2 3:2
 */
before(async () => {
  t = await openTestDb();
  const user = (name: string, age?: number) =>
    q(name, { add_n: { label: 'U', properties: [['name', s(name)], ...(age === undefined ? [] : [['age', i(age)]])] } });
  const edge = (from: number, to: number, label: string, props: unknown[] = []) =>
    q(null, { add_e: { input: ids(from), label, to: { ids: [to] }, properties: props } });
  await t.write(
    [
      user('a', 30),
      user('b', 25),
      user('c', 35),
      user('d'),
      q(null, { add_n: { label: 'C', properties: [['name', s('acme')]] } }),
      edge(0, 1, 'Follows', [['since', i(2020)]]),
      edge(0, 2, 'Follows'),
      edge(0, 3, 'Follows'),
      edge(1, 2, 'Follows'),
      edge(2, 3, 'Follows'),
      edge(3, 0, 'Follows'),
      edge(0, 4, 'WorksAt'),
      edge(1, 4, 'WorksAt'),
    ],
    [],
  );
});
after(() => t.close());

const out = (input: unknown, label = 'Follows') => ({ out: { input, label } });
const inn = (input: unknown, label = 'Follows') => ({ in: { input, label } });
const count = (input: unknown) => ({ count: { input } });
const exists = (input: unknown) => ({ exists: { input } });
const values = (input: unknown, ...properties: string[]) => ({ values: { input, properties } });
const trav = (root: unknown, first?: boolean) => ({ traversal: { root, ...(first === undefined ? {} : { first }) } });
const gt = (left: unknown, right: unknown) => ({ gt: { left, right } });
const isTrue = (left: unknown) => ({ eq: { left, right: { constant: { bool: true } } } });
const users = { has_label: { input: { nodes: { reference: 'all' } }, label: 'U' } };
const where = (input: unknown, predicate: unknown) => ({ where: { input, predicate } });
const idsOf = async (root: unknown, parameters?: Record<string, unknown>) =>
  (await t.read([q('r', { id: { input: root } })], ['r'], parameters)).r;
/** `project` over `input` with the name and one expression item per entry of `items`. */
const project = (input: unknown, items: Record<string, unknown>) => ({
  project: {
    input,
    projections: [
      { property: { source: 'name', alias: 'name' } },
      ...Object.entries(items).map(([alias, expr]) => ({ expr: { alias, expr } })),
    ],
  },
});
const read1 = async (root: unknown, parameters?: Record<string, unknown>) => (await t.read([q('r', root)], ['r'], parameters)).r;
const R = 'query.read.entries[0].query.root';

test('in a where predicate: a count compared with a constant (the nodes following more than 2)', async () => {
  assert.deepEqual(await idsOf(where(users, gt(trav(count(out(ctx))), ci(2)))), [0]);
  assert.deepEqual(await idsOf(where(users, { gte: { left: trav(count(inn(ctx))), right: ci(2) } })), [2, 3]);
  // Over a label scan the predicate is evaluated on each scanned node, as over any stream.
  const scan = { nodes_where: { predicate: { eq: { left: prop('$label'), right: cs('U') } } } };
  assert.deepEqual(await idsOf(where(scan, { eq: { left: trav(count(inn(ctx))), right: ci(1) } })), [0, 1]);
  assert.deepEqual(await idsOf({ nodes_where: { predicate: gt(trav(count(out(ctx))), ci(2)) } }), [0]);
  // exists, and its negation.
  assert.deepEqual(await idsOf(where(users, isTrue(trav(exists(out(ctx, 'WorksAt')))))), [0, 1]);
  assert.deepEqual(await idsOf(where(users, { not: { predicate: isTrue(trav(exists(out(ctx, 'WorksAt')))) } })), [2, 3]);
});

test('a count is an i64 and an exists a bool, in project items', async () => {
  const text = await t.db.queryText(
    requestText('read', [q('r', project(users, { followers: trav(count(inn(ctx))), employed: trav(exists(out(ctx, 'WorksAt'))) }))], ['r']),
  );
  assert.equal(
    text,
    '{"r":[{"name":"a","followers":1,"employed":true},{"name":"b","followers":1,"employed":true},' +
      '{"name":"c","followers":2,"employed":false},{"name":"d","followers":2,"employed":false}]}',
  );
  // Arithmetic on the count: counts are i64, so mod works and add gives f64.
  assert.deepEqual(await read1(project(ids(0), { even: { mod: { left: trav(count(out(ctx))), right: ci(2) } } })), [
    { name: 'a', even: 1 },
  ]);
});

test('list terminals give an array of their items; objects stay objects', async () => {
  const res = await read1(
    project(ids(0, 3), {
      follows: trav(values(out(ctx), 'name', 'age')),
      maps: trav({ value_map: { input: out(ctx), properties: ['name'] } }),
      all: trav({ value_map: { input: out(ctx, 'WorksAt') } }),
      cards: trav({
        project: { input: out(ctx), projections: [{ property: { source: 'name', alias: 'who' } }, { expr: { alias: 'id', expr: 'id' } }] },
      }),
      ids: trav({ id: { input: out(ctx) } }),
      labels: trav({ label: { input: out(ctx, 'WorksAt') } }),
      edges: trav({ edge_properties: { input: { out_e: { input: ctx, label: 'Follows' } } } }),
      groups: trav({ group_count: { input: out(ctx), property: 'age' } }),
      limited: trav({ limit: { input: values(out(ctx), 'name'), count: { literal: 1 } } }),
    }),
  );
  assert.deepEqual(res, [
    {
      name: 'a',
      follows: [{ name: 'b', age: 25 }, { name: 'c', age: 35 }, { name: 'd' }],
      maps: [{ name: 'b' }, { name: 'c' }, { name: 'd' }],
      all: [{ $id: 4, $label: 'C', name: 'acme' }],
      cards: [
        { who: 'b', id: 1 },
        { who: 'c', id: 2 },
        { who: 'd', id: 3 },
      ],
      ids: [1, 2, 3],
      labels: ['C'],
      edges: [
        { $id: 0, $label: 'Follows', $from: 0, $to: 1, since: 2020 },
        { $id: 1, $label: 'Follows', $from: 0, $to: 2 },
        { $id: 2, $label: 'Follows', $from: 0, $to: 3 },
      ],
      groups: [
        { age: 25, count: 1 },
        { age: 35, count: 1 },
        { age: null, count: 1 },
      ],
      limited: [{ name: 'b' }],
    },
    {
      name: 'd',
      follows: [{ name: 'a', age: 30 }],
      maps: [{ name: 'a' }],
      all: [],
      cards: [{ who: 'a', id: 0 }],
      ids: [0],
      labels: [],
      edges: [{ $id: 5, $label: 'Follows', $from: 3, $to: 0 }],
      groups: [{ age: 30, count: 1 }],
      limited: [{ name: 'a' }],
    },
  ]);
});

test('a plain element stream gives the array of its element ids (i64), nodes or edges', async () => {
  const text = await t.db.queryText(
    requestText(
      'read',
      [
        q(
          'r',
          project(ids(0, 4), {
            follows: trav(out(ctx)),
            followed_by: trav(inn(ctx)),
            edges: trav({ out_e: { input: ctx } }),
            itself: trav(ctx),
            two_hops: trav(out(out(ctx))),
          }),
        ),
      ],
      ['r'],
    ),
  );
  assert.equal(
    text,
    '{"r":[{"name":"a","follows":[1,2,3],"followed_by":[3],"edges":[0,1,2,6],"itself":[0],"two_hops":[2,3,0]},' +
      '{"name":"acme","follows":[],"followed_by":[],"edges":[],"itself":[4],"two_hops":[]}]}',
  );
  // Element ids compare like any array: is_in finds the nodes that follow node 2.
  assert.deepEqual(await idsOf(where(users, { is_in: { value: ci(2), values: trav(out(ctx)) } })), [0, 1]);
  // On edge rows the body starts at the edge.
  assert.deepEqual(await read1(project({ edges: { reference: { ids: [3, 7] } } }, { to: trav({ out_n: { input: ctx } }) })), [
    { to: [2] },
    { to: [4] },
  ]);
});

test('first: the first item, or null when there is none; a count or exists is itself', async () => {
  const res = await read1(
    project(ids(0, 2, 4), {
      employer: trav(values(out(ctx, 'WorksAt'), 'name'), true),
      first_follow: trav(out(ctx), true),
      first_edge: trav({ out_e: { input: ctx } }, true),
      first_id: trav({ id: { input: out(ctx) } }, true),
      n: trav(count(out(ctx)), true),
      any: trav(exists(out(ctx)), true),
      not_first: trav(out(ctx), false),
    }),
  );
  assert.deepEqual(res, [
    { name: 'a', employer: { name: 'acme' }, first_follow: 1, first_edge: 0, first_id: 1, n: 3, any: true, not_first: [1, 2, 3] },
    { name: 'c', employer: null, first_follow: 3, first_edge: 4, first_id: 3, n: 1, any: true, not_first: [3] },
    { name: 'acme', employer: null, first_follow: null, first_edge: null, first_id: null, n: 0, any: false, not_first: [] },
  ]);
  // A first item compared in a predicate: the nodes whose first follow is node 2.
  assert.deepEqual(await idsOf(where(users, { eq: { left: trav(out(ctx), true), right: ci(2) } })), [1]);
  // A null first item is missing-like: eq null holds.
  assert.deepEqual(await idsOf(where(users, { eq: { left: trav(out(ctx, 'WorksAt'), true), right: { constant: 'null' } } })), [2, 3]);
});

test('nesting: a traversal expression inside a sub-traversal, a branch body and another traversal expression', async () => {
  // Per user: how many of the users it follows have at least 2 followers.
  const popularFollows = trav(count(where(out(ctx), { gte: { left: trav(count(inn(ctx))), right: ci(2) } })));
  assert.deepEqual(await read1(project(users, { popular: popularFollows })), [
    { name: 'a', popular: 2 },
    { name: 'b', popular: 1 },
    { name: 'c', popular: 1 },
    { name: 'd', popular: 0 },
  ]);
  // The names of the followed, each with its own follower count (a list of objects of lists).
  assert.deepEqual(await read1(project(ids(1), { follows: trav(project(out(ctx), { followers: trav(inn(ctx)) })) })), [
    { name: 'b', follows: [{ name: 'c', followers: [0, 1] }] },
  ]);
  // Inside a union body's where, and a repeat's until.
  const union = { union: { input: ids(0), traversals: [sub(where(out(ctx), gt(trav(count(out(ctx))), ci(0)))), sub(ctx)] } };
  assert.deepEqual(await idsOf(union), [1, 2, 3, 0]);
  const repeat = {
    repeat: {
      input: ids(1),
      config: { traversal: sub(out(ctx)), until: gt(trav(count(inn(ctx))), ci(1)), emit: 'none', max_depth: 10 },
    },
  };
  assert.deepEqual(await idsOf(repeat), [2]);
});

test('the rows a traversal expression starts from carry their path: other_n inside one knows where the row came from', async () => {
  // From node 0 along its edges, other_n is the far end; without the row's path it would
  // be both ends. Path tracking is on because a traversal expression reads paths.
  assert.deepEqual(await read1(project({ out_e: { input: ids(0), label: 'Follows' } }, { far: trav({ other_n: { input: ctx } }) })), [
    { far: [1] },
    { far: [2] },
    { far: [3] },
  ]);
  assert.deepEqual(await read1(project({ edges: { reference: { ids: [0] } } }, { ends: trav({ other_n: { input: ctx } }) })), [
    { ends: [0, 1] },
  ]);
});

test('variables and parameters inside a traversal expression, for_each bodies included', async () => {
  const res = await t.read(
    [
      q('young', where(users, { lt: { left: prop('age'), right: ci(30) } })),
      q('r', { id: { input: where(users, isTrue(trav(exists({ within: { input: out(ctx), variable: 'young' } })))) } }),
    ],
    ['young', 'r'],
  );
  assert.deepEqual(res, { young: [{ $id: 1 }], r: [0] });
  await rejects400(
    t.read([q('r', where(users, isTrue(trav(exists({ within: { input: out(ctx), variable: 'nobody' } })))))], ['r']),
    'unknown_variable',
    atPath('.where.predicate.eq.left.traversal.root.exists.input.within.variable'),
  );
  assert.deepEqual(await idsOf(where(users, gt(trav(count(out(ctx))), { param: 'min' })), { min: 0 }), [0, 1, 2, 3]);
  await rejects400(
    t.read([q('r', where(users, gt(trav(count({ limit: { input: out(ctx), count: { expr: { param: 'n' } } } })), ci(0))))], ['r']),
    'invalid_query',
    atPath('.where.predicate.gt.left.traversal.root.count.input.limit.count.expr.param'),
  );
  const loop = await t.read(
    [
      {
        for_each: {
          param: 'rows',
          body: [q('r', { id: { input: where(users, { gte: { left: trav(count(out(ctx))), right: { param: 'min' } } }) } })],
        },
      },
    ],
    ['r'],
    { rows: [{ min: 1 }, { min: 3 }] },
  );
  assert.deepEqual(loop.r, [0]);
});

test('after bind: count and exists work; the terminals bind forbids are rejected inside too', async () => {
  const bound = { bind: { input: users, name: 'u' } };
  assert.deepEqual(
    await read1({
      project_bindings: {
        input: where(bound, gt(trav(count(out(ctx))), ci(1))),
        distinct: false,
        projections: [{ property: { target: { binding: 'u' }, source: 'name', alias: 'u' } }],
      },
    }),
    [{ u: 'a' }],
  );
  await rejects400(
    t.read([q('r', count(where(bound, gt(trav(values(out(ctx), 'name'), true), ci(1)))))], ['r']),
    'invalid_after_bind_operation',
    atPath('.count.input.where.predicate.gt.left.traversal.root.values'),
  );
});

test('in a write batch: values of mutations computed per input row; the batch reads its own writes', async () => {
  const res = await t.write(
    [
      q('made', {
        value_map: {
          properties: ['follows', 'names'],
          input: {
            add_n: {
              input: ids(0, 1),
              label: 'Tmp',
              properties: [
                ['follows', { expr: trav(count(out(ctx))) }],
                ['names', { expr: trav(values(out(ctx), 'name')) }],
              ],
            },
          },
        },
      }),
      q('set', {
        value_map: {
          properties: ['tmp_followers'],
          input: { set_property: { input: ids(2), name: 'tmp_followers', value: { expr: trav(inn(ctx)) } } },
        },
      }),
      q('tmp', count(where({ has_label: { input: { nodes: { reference: 'all' } }, label: 'Tmp' } }, isTrue(trav(exists(ctx)))))),
      q(null, { drop: { input: { has_label: { input: { nodes: { reference: 'all' } }, label: 'Tmp' } } } }),
      q(null, { remove_property: { input: ids(2), name: 'tmp_followers' } }),
    ],
    ['made', 'set', 'tmp'],
  );
  assert.deepEqual(res, {
    made: [
      { follows: 3, names: [{ name: 'b' }, { name: 'c' }, { name: 'd' }] },
      { follows: 1, names: [{ name: 'c' }] },
    ],
    set: [{ tmp_followers: [0, 1] }],
    tmp: [2],
  });
  assert.deepEqual(await idsOf({ nodes: { reference: 'all' } }), [0, 1, 2, 3, 4]);
});

test('static 400s: sources, project_bindings and mutations inside, in read and write batches, at any depth', async () => {
  const badRead = (root: unknown, code: string, suffix: string) => rejects400(t.read([q('r', root)], ['r']), code, atPath(suffix));
  const badWrite = (root: unknown, code: string, suffix: string) =>
    rejects400(t.write([q('r', root)], ['r']), code, atPath(suffix, 'query.write.entries[0].query.root'));
  await badRead(
    where(users, gt(trav(count({ nodes: { reference: 'all' } })), ci(0))),
    'invalid_sub_traversal_operation',
    '.where.predicate.gt.left.traversal.root.count.input.nodes',
  );
  await badRead(
    project(users, { x: trav({ nodes_where: { predicate: { has_key: { property: 'name' } } } }) }),
    'invalid_sub_traversal_operation',
    '.project.projections[1].expr.expr.traversal.root.nodes_where',
  );
  await badRead(
    project(users, {
      x: trav({
        project_bindings: {
          input: out(ctx),
          distinct: false,
          projections: [{ property: { target: 'current', source: 'name', alias: 'n' } }],
        },
      }),
    }),
    'invalid_sub_traversal_operation',
    '.project.projections[1].expr.expr.traversal.root.project_bindings',
  );
  const drop = { drop: { input: out(ctx) } };
  // A mutation is refused for being in an expression, in a read batch as in a write batch.
  for (const bad of [badRead, badWrite]) {
    await bad(
      where(users, isTrue(trav(exists(drop)))),
      'invalid_sub_traversal_operation',
      '.where.predicate.eq.left.traversal.root.exists.input.drop',
    );
    await bad(
      project(users, {
        x: trav({ union: { input: ctx, traversals: [sub(ctx), sub({ set_property: { input: ctx, name: 'x', value: i(1) } })] } }),
      }),
      'invalid_sub_traversal_operation',
      '.project.projections[1].expr.expr.traversal.root.union.traversals[1].root.set_property',
    );
    await bad(
      {
        optional: {
          input: users,
          traversal: sub(where(out(ctx), gt(trav(count({ add_e: { input: ctx, label: 'X', to: { ids: [0] }, properties: [] } })), ci(0)))),
        },
      },
      'invalid_sub_traversal_operation',
      '.optional.traversal.root.where.predicate.gt.left.traversal.root.count.input.add_e',
    );
  }
  await rejects400(
    t.write([q('r', project(users, { x: trav(count({ add_n: { input: ctx, label: 'X', properties: [] } })) }))], ['r']),
    'invalid_sub_traversal_operation',
    /^query\.write\.entries\[0\]\.query\.root\.project\.projections\[1\]\.expr\.expr\.traversal\.root\.count\.input\.add_n: "add_n" changes the graph, which a traversal expression cannot do/,
  );
  // A terminal in the middle of the body is refused as anywhere else.
  await badRead(
    project(users, { x: trav(out(count(ctx))) }),
    'internal_planner_error',
    '.project.projections[1].expr.expr.traversal.root.out',
  );
  // The body itself may end in a terminal, unlike a branch body.
  await badRead(
    { union: { input: users, traversals: [sub(count(ctx)), sub(ctx)] } },
    'invalid_sub_traversal_operation',
    '.union.traversals[0].root',
  );
});

test('wire shape: root is required, first is a bool (default false), nothing else', async () => {
  const bad = (expr: unknown, where: RegExp) =>
    rejects400(t.read([q('r', project(users, { x: expr }))], ['r']), 'invalid_query_json', where);
  const at = `${R}.project.projections[1].expr.expr.traversal`.replace(/[.[\]]/g, '\\$&');
  await bad({ traversal: {} }, new RegExp(`^${at}: missing required key "root"$`));
  await bad({ traversal: { root: ctx, frist: true } }, new RegExp(`^${at}: unknown key "frist" \\(expected "root", "first"\\)$`));
  await bad({ traversal: { root: ctx, first: 'yes' } }, new RegExp(`^${at}\\.first: expected true or false, got the string "yes"$`));
  await bad({ traversal: { root: { bogus: {} } } }, new RegExp(`^${at}\\.root: unknown operation "bogus"$`));
  await bad({ traversal: [] }, new RegExp(`^${at}: expected an object, got an array$`));
  // first: null is the default.
  assert.deepEqual(await read1(project(ids(3), { x: { traversal: { root: out(ctx), first: null } } })), [{ name: 'd', x: [0] }]);
});

test('outer: a property or the id of the row an enclosing traversal expression started from, at any depth', async () => {
  const outer = (depth: number, property: string) => ({ outer: { depth, property } });
  // a follows b, c, d and b follows c: each followed user with its follower's name and id,
  // and who follows it, with the followed user's name and the follower's age two levels out.
  const followed = project(out(ctx), {
    by: outer(1, 'name'),
    byId: outer(1, '$id'),
    missing: outer(1, 'nothing'),
    followers: trav(project(inn(ctx), { of: outer(1, 'name'), root: outer(2, 'age') })),
  });
  const fromA = (name: string, followers: string[]) => ({
    name,
    by: 'a',
    byId: 0,
    missing: null,
    followers: followers.map((f) => ({ name: f, of: name, root: 30 })),
  });
  assert.deepEqual(await read1(project(ids(0, 1), { follows: trav(followed) })), [
    { name: 'a', follows: [fromA('b', ['a']), fromA('c', ['a', 'b']), fromA('d', ['a', 'c'])] },
    {
      name: 'b',
      follows: [
        {
          name: 'c',
          by: 'b',
          byId: 1,
          missing: null,
          followers: [
            { name: 'a', of: 'c', root: 25 },
            { name: 'b', of: 'c', root: 25 },
          ],
        },
      ],
    },
  ]);
  // In a where predicate inside a traversal expression: the followed users younger than the follower.
  const younger = trav(values(where(out(ctx), { lt: { left: prop('age'), right: outer(1, 'age') } }), 'name'));
  assert.deepEqual(await read1(project(ids(0, 1), { younger })), [
    { name: 'a', younger: [{ name: 'b' }] },
    { name: 'b', younger: [] },
  ]);
});

test('outer: outside a traversal expression, or deeper than the ones around it, is a 400; depth counts from 1', async () => {
  const outer = (depth: number) => ({ outer: { depth, property: 'name' } });
  await rejects400(read1(project(ids(0), { x: outer(1) })), 'invalid_query', atPath('.project.projections[1].expr.expr.outer'));
  await rejects400(
    read1(project(ids(0), { x: trav(project(out(ctx), { y: outer(2) })) })),
    'invalid_query',
    /reaches 2 traversal expressions out, but 1 enclose it/,
  );
  await rejects400(
    read1(project(ids(0), { x: trav(project(out(ctx), { y: outer(0) })) })),
    'invalid_query_json',
    /depth counts enclosing traversal expressions from 1/,
  );
});
