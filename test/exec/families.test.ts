/**
 * Variables and bindings, branching and repeat, grouping and aggregation, paths and
 * shortest_path, and the sack, run in-process on a real LMDB folder.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { GraphError, type ErrorCode } from '../../src/core/errors.js';
import { displayString } from '../../src/exec/aggregate.js';
import { needsPaths } from '../../src/plan/features.js';
import type { QueryPlan } from '../../src/plan/batch.js';
import type { PlanNode } from '../../src/plan/ops.js';
import { ci, cs, i, ids, label, openTestDb, prop, q, s, type TestDb } from '../helpers/embedded.js';

let t: TestDb;

/*
 * People (label P):            0 a(age 30, w 1.5)  1 b(age 25, w 2)  2 c(age 35, w "x")  3 d(w "4.5")
 * Q:                           4 e
 * KNOWS edges: e0 0->1, e1 1->2, e2 2->3, e3 0->2, e4 3->0;  LIKES: e5 1->4
 * Grouping nodes (label G, property g): 5: 10, 6: 9, 7: "1", 8: 1.0, 9: 1, 10: missing, 11: "null"
 */
before(async () => {
  t = await openTestDb();
  const node = (l: string, props: [string, unknown][]) => ({ add_n: { label: l, properties: props } });
  const edge = (from: string, to: string, l: string) => ({
    add_e: { input: { nodes: { reference: { var: from } } }, label: l, to: { var: to }, properties: [] },
  });
  const f = (v: number) => ({ value: { f64: v } });
  await t.write(
    [
      q(
        'n0',
        node('P', [
          ['name', s('a')],
          ['age', i(30)],
          ['w', f(1.5)],
        ]),
      ),
      q(
        'n1',
        node('P', [
          ['name', s('b')],
          ['age', i(25)],
          ['w', i(2)],
        ]),
      ),
      q(
        'n2',
        node('P', [
          ['name', s('c')],
          ['age', i(35)],
          ['w', s('x')],
        ]),
      ),
      q(
        'n3',
        node('P', [
          ['name', s('d')],
          ['w', s('4.5')],
        ]),
      ),
      q('n4', node('Q', [['name', s('e')]])),
      q(null, edge('n0', 'n1', 'KNOWS')),
      q(null, edge('n1', 'n2', 'KNOWS')),
      q(null, edge('n2', 'n3', 'KNOWS')),
      q(null, edge('n0', 'n2', 'KNOWS')),
      q(null, edge('n3', 'n0', 'KNOWS')),
      q(null, edge('n1', 'n4', 'LIKES')),
      q(null, node('G', [['g', i(10)]])),
      q(null, node('G', [['g', i(9)]])),
      q(null, node('G', [['g', s('1')]])),
      q(null, node('G', [['g', f(1)]])),
      q(null, node('G', [['g', i(1)]])),
      q(null, node('G', [])),
      q(null, node('G', [['g', s('null')]])),
    ],
    [],
  );
});
after(() => t.close());

const out = (input: unknown, l = 'KNOWS') => ({ out: { input, label: l } });
const ctx = 'context';
const sub = (root: unknown) => ({ root });
const idRows = (...list: number[]) => list.map(($id) => ({ $id }));
const read1 = async (root: unknown, parameters?: Record<string, unknown>) => (await t.read([q('r', root)], ['r'], parameters)).r;
const readText = async (root: unknown) =>
  t.db.queryText({ request_type: 'read', query: { read: { entries: [q('r', root)], returns: ['r'] } } });

async function fails(entries: unknown[], code: ErrorCode, msg: RegExp, parameters?: Record<string, unknown>): Promise<void> {
  await assert.rejects(t.read(entries, [], parameters), (err: unknown) => {
    assert.ok(err instanceof GraphError, String(err));
    assert.equal(err.code, code, err.msg);
    assert.match(err.msg, msg);
    return true;
  });
}

// Variables and bindings

test('as stores the stream mid-traversal and passes it on; select replaces the stream', async () => {
  assert.deepEqual(await read1({ select: { input: out({ as: { input: ids(0), name: 's' } }), name: 's' } }), idRows(0));
  const res = await t.read(
    [q('kept', { store: { input: out(ids(0)), name: 'v' } }), q('again', { nodes: { reference: { var: 'v' } } })],
    ['kept', 'again'],
  );
  assert.deepEqual(res, { kept: idRows(1, 2), again: idRows(1, 2) });
  // The variable holds what `as` saw, not what later steps made of it.
  assert.deepEqual(
    await t.read(
      [q(null, { count: { input: out({ as: { input: ids(0, 1), name: 'x' } }) } }), q('x2', { nodes: { reference: { var: 'x' } } })],
      ['x2'],
    ),
    { x2: idRows(0, 1) },
  );
});

test('select over an empty input still yields the variable; an unbound variable is an error', async () => {
  assert.deepEqual(await read1({ select: { input: out({ as: { input: ids(4), name: 's' } }), name: 's' } }), idRows(4));
  await fails(
    [q('r', { select: { input: ids(0), name: 'nope' } })],
    'unknown_variable',
    /root\.select\.name: variable "nope" is not bound/,
  );
  // Bound in the batch but by an entry that was skipped: unbound at run time.
  await fails(
    [
      q('none', { nodes: { reference: { ids: [] } } }),
      q('later', ids(0), 'prev_not_empty'),
      q('r', { select: { input: ids(0), name: 'later' } }),
    ],
    'invalid_query',
    /variable "later" is not bound/,
  );
});

test('inject: the value as-is without input, input rows first with input, errors when unbound', async () => {
  const res = await t.read(
    [
      q('x', ids(2, 3)),
      q('c', { count: { input: ids(0) } }),
      q('alone', { inject: { variable: 'x' } }),
      q('after', { inject: { input: ids(0), variable: 'x' } }),
      q('count', { inject: { variable: 'c' } }),
    ],
    ['alone', 'after', 'count'],
  );
  assert.deepEqual(res, { alone: idRows(2, 3), after: idRows(0, 2, 3), count: [1] });
  await fails([q('r', { inject: { variable: 'nope' } })], 'unknown_variable', /"nope" is not bound/);
  await fails([q('r', { inject: { input: ids(0), variable: 'nope' } })], 'unknown_variable', /"nope" is not bound/);
  await fails(
    [q('c', { count: { input: ids(0) } }), q('r', { inject: { input: ids(0), variable: 'c' } })],
    'invalid_query',
    /holds a count/,
  );
});

test('bind records the element per row; raw output uses the row envelope', async () => {
  assert.deepEqual(await read1(out({ bind: { input: ids(0), name: 'src' } })), [
    { current: { node: 1 }, bindings: { src: { node: 0 } } },
    { current: { node: 2 }, bindings: { src: { node: 0 } } },
  ]);
  const twice = await read1({ bind: { input: out({ bind: { input: ids(1), name: 'a' } }), name: 'b' } });
  assert.deepEqual(twice, [{ current: { node: 2 }, bindings: { a: { node: 1 }, b: { node: 2 } } }]);
});

test('project_bindings: property items from current or a binding, omitted when missing; coalesce; distinct', async () => {
  const pb = (input: unknown, projections: unknown[], distinct = false) => ({ project_bindings: { input, projections, distinct } });
  const bound = out({ bind: { input: ids(0, 1), name: 'src' } });
  assert.deepEqual(
    await read1(
      pb(bound, [
        { property: { target: { binding: 'src' }, source: 'name', alias: 'from' } },
        { property: { target: 'current', source: 'name', alias: 'to' } },
        { property: { target: { binding: 'nope' }, source: 'name', alias: 'missing' } },
        { property: { target: 'current', source: 'nothing', alias: 'absent' } },
      ]),
    ),
    [
      { from: 'a', to: 'b' },
      { from: 'a', to: 'c' },
      { from: 'b', to: 'c' },
    ],
  );
  // Node 3 has no age: the coalesce falls through to the bound node 2's age; $id works through a binding.
  assert.deepEqual(
    await read1(
      pb(out({ bind: { input: ids(2, 3), name: 'src' } }), [
        {
          coalesce: {
            refs: [
              { target: 'current', source: 'age' },
              { target: { binding: 'src' }, source: 'age' },
            ],
            alias: 'age',
          },
        },
        { property: { target: { binding: 'src' }, source: '$id', alias: 'src_id' } },
        {
          coalesce: {
            refs: [
              { target: 'current', source: 'none' },
              { target: { binding: 'x' }, source: 'age' },
            ],
            alias: 'never',
          },
        },
      ]),
    ),
    [
      { age: 35, src_id: 2 },
      { age: 30, src_id: 3 },
    ],
  );
  const from = [{ property: { target: { binding: 'src' }, source: 'name', alias: 'from' } }];
  assert.deepEqual(await read1(pb(bound, from)), [{ from: 'a' }, { from: 'a' }, { from: 'b' }]);
  assert.deepEqual(await read1(pb(bound, from, true)), [{ from: 'a' }, { from: 'b' }]);
  assert.deepEqual(await read1(pb(out(ids(4)), from, true)), []);
});

// Branching and repeat

test('union is row-major: per input row, each branch in order', async () => {
  assert.deepEqual(await read1({ union: { input: ids(0, 1), traversals: [sub(out(ctx)), sub(ctx)] } }), idRows(1, 2, 0, 2, 1));
  assert.deepEqual(await read1({ union: { input: ids(4), traversals: [sub(out(ctx)), sub(out(ctx, 'LIKES'))] } }), []);
});

test('coalesce takes the first non-empty branch per row and drops rows with none', async () => {
  const root = { coalesce: { input: ids(3, 4, 1), traversals: [sub(out(ctx, 'LIKES')), sub(out(ctx))] } };
  assert.deepEqual(await read1(root), idRows(0, 4));
});

test('optional yields the branch output, or the row itself when the branch is empty', async () => {
  assert.deepEqual(await read1({ optional: { input: ids(4, 1, 0), traversal: sub(out(ctx, 'LIKES')) } }), idRows(4, 4, 0));
});

test('choose runs as a batch: no else drops failing rows; with else then-rows come first', async () => {
  const adult = { gte: { left: prop('age'), right: ci(30) } };
  const people = label('P');
  assert.deepEqual(await read1({ choose: { input: people, condition: adult, then_traversal: sub(out(ctx)) } }), idRows(1, 2, 3));
  const both = (input: unknown) => ({ choose: { input, condition: adult, then_traversal: sub(ctx), else_traversal: sub(out(ctx)) } });
  assert.deepEqual(await read1(both(people)), idRows(0, 2, 2, 0));
  assert.deepEqual(await read1(both(ids(2, 0))), idRows(2, 0));
  assert.deepEqual(await read1(both(ids(1))), idRows(2));
  assert.deepEqual(await read1(both(ids())), []);
});

test('repeat: times, emit modes, emit_predicate, until, max_depth and dead ends', async () => {
  const rep = (input: unknown, config: Record<string, unknown>) => ({
    repeat: { input, config: { traversal: sub(out(ctx)), emit: 'none', max_depth: 100, ...config } },
  });
  assert.deepEqual(await read1(rep(ids(1), { times: 2 })), idRows(3));
  assert.deepEqual(await read1(rep(ids(1), { times: 2, emit: 'all' })), idRows(1, 2, 2, 3));
  assert.deepEqual(await read1(rep(ids(1), { times: 2, emit: 'before' })), idRows(1, 2));
  assert.deepEqual(await read1(rep(ids(1), { times: 3, emit: 'after', emit_predicate: { has_key: { property: 'age' } } })), idRows(2, 0));
  assert.deepEqual(await read1(rep(ids(1), { until: { eq: { left: prop('name'), right: cs('d') } }, max_depth: 10 })), idRows(3));
  assert.deepEqual(await read1(rep(ids(0), { emit: 'after', max_depth: 3 })), idRows(1, 2, 2, 3, 3, 0));
  // times larger than max_depth: max_depth wins.
  assert.deepEqual(await read1(rep(ids(0), { emit: 'after', times: 50, max_depth: 1 })), idRows(1, 2));
  // A dead end empties the frontier: nothing is left when nothing is emitted.
  assert.deepEqual(await read1(rep(ids(4), { times: 3 })), []);
  assert.deepEqual(await read1(rep(ids(1), { emit: 'after', traversal: sub(out(ctx, 'LIKES')) })), idRows(4));
});

test('a branch body that ends in a terminal is rejected before running, even if it would never run', async () => {
  await fails(
    [q('r', { union: { input: ids(0), traversals: [sub({ count: { input: ctx } }), sub(ctx)] } })],
    'invalid_sub_traversal_operation',
    /traversals\[0\]\.root\.count: a "union" body must yield nodes or edges/,
  );
  await fails(
    [q('r', { optional: { input: ids(0), traversal: sub({ limit: { input: { id: { input: ctx } }, count: { literal: 1 } } }) } })],
    'invalid_sub_traversal_operation',
    /optional/,
  );
  await fails(
    [q('r', { choose: { input: ids(), condition: { is_null: { property: 'x' } }, then_traversal: sub({ value_map: { input: ctx } }) } })],
    'invalid_sub_traversal_operation',
    /then_traversal\.root/,
  );
});

// Grouping and aggregation

test('group keys and orders by display string: 1, 1.0 and "1" merge, 10 before 9, missing meets "null"', async () => {
  assert.deepEqual(await read1({ group: { input: label('G'), property: 'g' } }), [
    { g: '1', count: 3, ids: [7, 8, 9] },
    { g: 10, count: 1, ids: [5] },
    { g: 9, count: 1, ids: [6] },
    { g: null, count: 2, ids: [10, 11] },
  ]);
  assert.deepEqual(await read1({ group_count: { input: label('G'), property: 'g' } }), [
    { g: '1', count: 3 },
    { g: 10, count: 1 },
    { g: 9, count: 1 },
    { g: null, count: 2 },
  ]);
  assert.deepEqual(await read1({ group_count: { input: label('Nobody'), property: 'g' } }), []);
  assert.deepEqual(await read1({ group_count: { input: label('P'), property: 'age' } }), [
    { age: 25, count: 1 },
    { age: 30, count: 1 },
    { age: 35, count: 1 },
    { age: null, count: 1 },
  ]);
});

test('display strings print floats as Rust does: no exponent, integral floats without a fraction', () => {
  assert.equal(displayString(1), '1');
  assert.equal(displayString(1n), '1');
  assert.equal(displayString(1.5), '1.5');
  assert.equal(displayString(1e21), '1000000000000000000000');
  assert.equal(displayString(-1.25e-7), '-0.000000125');
  assert.equal(displayString(Infinity), 'inf');
  assert.equal(displayString(null), 'null');
  assert.equal(displayString(undefined), 'null');
  assert.equal(displayString(true), 'true');
  assert.equal(displayString('x y'), 'x y');
});

test('aggregate_by: one f64 object; numeric strings count, other values are ignored; empty is 0.0', async () => {
  const agg = (fn: string, input: unknown = label('P')) => readText({ aggregate_by: { input, function: fn, property: 'w' } });
  assert.equal(await agg('count'), '{"r":[{"w_Count":3.0}]}');
  assert.equal(await agg('sum'), '{"r":[{"w_Sum":8.0}]}');
  assert.equal(await agg('min'), '{"r":[{"w_Min":1.5}]}');
  assert.equal(await agg('max'), '{"r":[{"w_Max":4.5}]}');
  assert.deepEqual(await read1({ aggregate_by: { input: label('P'), function: 'mean', property: 'w' } }), [{ w_Mean: 8 / 3 }]);
  for (const fn of ['count', 'sum', 'min', 'max', 'mean']) {
    const name = `w_${fn[0]!.toUpperCase()}${fn.slice(1)}`;
    assert.equal(await agg(fn, label('Nobody')), `{"r":[{"${name}":0.0}]}`);
  }
});

test('fold serialises like the stream; unfold restores it; folded input is refused by stream steps', async () => {
  assert.deepEqual(await read1({ fold: { input: out(ids(0)) } }), idRows(1, 2));
  assert.deepEqual(await read1({ count: { input: { unfold: { input: { fold: { input: out(ids(0)) } } } } } }), [2]);
  assert.deepEqual(await read1({ unfold: { input: ids(3) } }), idRows(3));
  await fails([q('r', { count: { input: { fold: { input: ids(0) } } } })], 'invalid_query', /folded stream; use unfold/);
  await fails([q('r', { group_count: { input: { fold: { input: ids(0) } }, property: 'name' } })], 'invalid_query', /folded/);
  await fails(
    [q('r', { aggregate_by: { input: { fold: { input: ids(0) } }, function: 'sum', property: 'w' } })],
    'invalid_query',
    /folded/,
  );
  // A folded variable has size 1 for conditions.
  const res = await t.read(
    [q('f', { fold: { input: out(ids(0)) } }), q('ok', ids(4), { var_min_size: ['f', 1] }), q('no', ids(4), { var_min_size: ['f', 2] })],
    ['ok', 'no'],
  );
  assert.deepEqual(res, { ok: idRows(4), no: [] });
});

// Paths

test("path shows each row's path; simple_path drops rows that revisit an element", async () => {
  assert.deepEqual(await read1({ path: { input: out(out(ids(0))) } }), [
    { current: { node: 2 }, bindings: {}, path: [{ node: 0 }, { node: 1 }, { node: 2 }] },
    { current: { node: 3 }, bindings: {}, path: [{ node: 0 }, { node: 2 }, { node: 3 }] },
  ]);
  const three = out(out(out(ids(0))));
  assert.deepEqual(await read1(three), idRows(3, 0));
  assert.deepEqual(await read1({ simple_path: { input: three } }), idRows(3));
  assert.deepEqual(await read1({ path: { input: { simple_path: { input: three } } } }), [
    { current: { node: 3 }, bindings: {}, path: [{ node: 0 }, { node: 1 }, { node: 2 }, { node: 3 }] },
  ]);
  // Edges on a path: out_e/in_n record both kinds.
  assert.deepEqual(await read1({ path: { input: { in_n: { input: { out_e: { input: ids(1), label: 'LIKES' } } } } } }), [
    { current: { node: 1 }, bindings: {}, path: [{ node: 1 }, { edge: 5 }, { node: 1 }] },
  ]);
});

test('paths are tracked when the only reader sits inside a branch body', async () => {
  const three = out(out(out(ctx)));
  assert.deepEqual(await read1({ union: { input: ids(0), traversals: [sub({ simple_path: { input: three } }), sub(ctx)] } }), idRows(3, 0));
  assert.deepEqual(await read1({ optional: { input: ids(4), traversal: sub({ path: { input: out(ctx) } }) } }), [
    { current: { node: 4 }, bindings: {}, path: [{ node: 4 }] },
  ]);
});

test('needsPaths finds path readers in inputs, sub-traversals, traversal expressions and for_each bodies', () => {
  const nodesAll: PlanNode = { op: 'nodes', path: 'r', reference: { kind: 'all' }, missing: 'skip' };
  const plan = (root: PlanNode, nested = false): QueryPlan => {
    const entry = { kind: 'query' as const, name: 'x', root, condition: null, path: 'e' };
    return {
      type: 'read',
      queryName: null,
      params: new Map(),
      batch: { returns: [], entries: nested ? [{ kind: 'for_each', param: 'p', body: [entry], path: 'f' }] : [entry] },
    };
  };
  const ctxNode: PlanNode = { op: 'context', path: 'c' };
  assert.equal(needsPaths(plan(nodesAll)), false);
  assert.equal(needsPaths(plan({ op: 'count', path: 'c', input: { op: 'path', path: 'p', input: nodesAll } })), true);
  assert.equal(needsPaths(plan({ op: 'other_n', path: 'o', input: nodesAll }, true)), true);
  const repeat: PlanNode = {
    op: 'repeat',
    path: 'r',
    input: nodesAll,
    config: {
      traversal: { root: { op: 'simple_path', path: 's', input: ctxNode } },
      times: 1,
      until: null,
      emit: 'none',
      emit_predicate: null,
      max_depth: 1,
    },
  };
  assert.equal(needsPaths(plan(repeat)), true);
  assert.equal(needsPaths(plan({ op: 'union', path: 'u', input: nodesAll, traversals: [{ root: ctxNode }, { root: ctxNode }] })), false);
  // A traversal expression's operation tree, here in a where predicate.
  const whereCount = (root: PlanNode): PlanNode => ({
    op: 'where',
    path: 'w',
    input: nodesAll,
    predicate: {
      p: 'compare',
      op: 'gt',
      path: 'g',
      left: { e: 'traversal', root: { op: 'count', path: 'c', input: root }, first: false, path: 't' },
      right: { e: 'constant', value: 0n, path: 'k' },
    },
  });
  assert.equal(needsPaths(plan(whereCount({ op: 'other_n', path: 'o', input: ctxNode }))), true);
  assert.equal(needsPaths(plan(whereCount({ op: 'out', path: 'o', input: ctxNode, label: null }))), false);
});

test('shortest_path: BFS in ascending id order, direction, label, max_depth, endpoints', async () => {
  const sp = (source: unknown, target: unknown, extra: Record<string, unknown> = {}) =>
    read1({ shortest_path: { source, target, direction: 'out', max_depth: 10, ...extra } }, { one: 1, many: [0, 1] });
  assert.deepEqual(await sp({ ids: [0] }, { ids: [3] }), [0, 2, 3]);
  assert.deepEqual(await sp({ ids: [0] }, { ids: [3] }, { direction: 'in' }), [0, 3]);
  assert.deepEqual(await sp({ ids: [4] }, { ids: [3] }, { direction: 'both' }), [4, 1, 0, 3]);
  assert.deepEqual(await sp({ ids: [0] }, { ids: [3] }, { max_depth: 1 }), []);
  assert.deepEqual(await sp({ ids: [0] }, { ids: [4] }), [0, 1, 4]);
  assert.deepEqual(await sp({ ids: [0] }, { ids: [4] }, { label: 'KNOWS' }), []);
  assert.deepEqual(await sp({ ids: [1] }, { ids: [4] }, { label: 'LIKES' }), [1, 4]);
  assert.deepEqual(await sp({ ids: [2] }, { ids: [2] }), [2]);
  assert.deepEqual(await sp({ ids: [0] }, { ids: [99] }), []);
  assert.deepEqual(await sp({ ids: [] }, { ids: [1] }), []);
  assert.deepEqual(await sp({ param: 'one' }, { ids: [2] }), [1, 2]);
  assert.deepEqual(await sp({ ids: [4] }, { ids: [0] }), []);
  const res = await t.read(
    [q('v', ids(0)), q('r', { shortest_path: { source: { var: 'v' }, target: { ids: [1] }, direction: 'out', max_depth: 2 } })],
    ['r'],
  );
  assert.deepEqual(res, { r: [0, 1] });
  const spEntry = (source: unknown) => q('r', { shortest_path: { source, target: { ids: [1] }, direction: 'out', max_depth: 2 } });
  await fails([spEntry({ ids: [0, 1] })], 'invalid_query', /at most one node/);
  await fails([spEntry('all')], 'invalid_query', /at most one node/);
  await fails([spEntry({ param: 'many' })], 'invalid_query', /at most one node/, { many: [0, 1] });
  await fails([spEntry({ var: 'nope' })], 'unknown_variable', /"nope" is not bound/);
});

// Sack

test('with_sack, sack_add (i64 stays i64, mixed is f64) and sack_get carried along navigation', async () => {
  const sack = (v: unknown) => ({ with_sack: { input: ids(0), initial: v } });
  const add = (input: unknown, property = 'age') => ({ sack_add: { input, property } });
  const get = (input: unknown) => ({ sack_get: { input } });
  assert.deepEqual(await read1(get(add(out(add(sack({ i64: 0 })))))), [
    { current: { node: 1 }, bindings: {}, sack: 55 },
    { current: { node: 2 }, bindings: {}, sack: 65 },
  ]);
  assert.equal(await readText(get(add(sack({ i64: 1 })))), '{"r":[{"current":{"node":0},"bindings":{},"sack":31}]}');
  assert.equal(await readText(get(add(sack({ f64: 0.5 })))), '{"r":[{"current":{"node":0},"bindings":{},"sack":30.5}]}');
  assert.equal(await readText(get(add(sack({ i64: 0 }), 'w'))), '{"r":[{"current":{"node":0},"bindings":{},"sack":1.5}]}');
  assert.equal(
    await readText(get(add({ with_sack: { input: ids(1), initial: { f64: 1 } } }, 'w'))),
    '{"r":[{"current":{"node":1},"bindings":{},"sack":3.0}]}',
  );
  // An empty sack takes the value; a missing property leaves the sack alone.
  assert.deepEqual(await read1(get(add(ids(0)))), [{ current: { node: 0 }, bindings: {}, sack: 30 }]);
  assert.deepEqual(await read1(get(add({ with_sack: { input: ids(3), initial: { i64: 7 } } }))), [
    { current: { node: 3 }, bindings: {}, sack: 7 },
  ]);
  assert.deepEqual(await read1(get(ids(3))), [{ current: { node: 3 }, bindings: {}, sack: null }]);
  // Without sack_get the rows stay plain.
  assert.deepEqual(await read1(add(sack({ i64: 0 }))), idRows(0));
});

test('sack_set copies the property or clears the sack; sack_add errors on non-numbers and overflow', async () => {
  const get = (input: unknown) => ({ sack_get: { input } });
  const set = { sack_set: { input: { with_sack: { input: ids(0, 3), initial: { i64: 5 } } }, property: 'age' } };
  assert.deepEqual(await read1(get(set)), [
    { current: { node: 0 }, bindings: {}, sack: 30 },
    { current: { node: 3 }, bindings: {}, sack: null },
  ]);
  assert.deepEqual(await read1(get({ sack_set: { input: ids(2), property: 'name' } })), [
    { current: { node: 2 }, bindings: {}, sack: 'c' },
  ]);
  await fails([q('r', { sack_add: { input: ids(0), property: 'name' } })], 'invalid_query', /needs a number/);
  await fails(
    [q('r', { sack_add: { input: { with_sack: { input: ids(0), initial: { string: 'x' } } }, property: 'age' } })],
    'invalid_query',
    /needs numbers/,
  );
  await fails(
    [q('r', { sack_add: { input: { with_sack: { input: ids(0), initial: { i64: 9223372036854775807n } } }, property: 'age' } })],
    'invalid_query',
    /overflows i64/,
  );
});
