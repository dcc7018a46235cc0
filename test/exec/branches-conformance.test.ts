/**
 * Conformance: repeat, shortest_path, project_bindings, union, coalesce, optional and
 * choose (reference §5.5, §5.6, §5.8, §5.11; Q6), exact outputs including duplicates.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ci, ctx, i, idRows, ids, openTestDb, prop, q, rejects400, atPath, s, sub, type TestDb } from '../helpers/embedded.js';

let t: TestDb;

/*
 * Nodes (label N): 0 {name n0, lvl 0, nick null}   1 {name n1, lvl 1, nick "one"}
 *                  2 {name n2, lvl 1}               3 {name n3, lvl 2}
 *                  4 {name n4, lvl 3}               5 {name n5, lvl 9} (isolated)
 * Edges: e0 0->1 E, e1 0->2 E, e2 1->3 E, e3 2->3 E, e4 3->4 E, e5 4->0 F
 *
 *        0 --E--> 1 --E--> 3 --E--> 4
 *        0 --E--> 2 --E--> 3          4 --F--> 0
 */
before(async () => {
  t = await openTestDb();
  const node = (name: string, lvl: number, extra: [string, unknown][] = []) =>
    q(name, { add_n: { label: 'N', properties: [['name', s(name)], ['lvl', i(lvl)], ...extra] } });
  const edge = (from: string, to: string, l: string) =>
    q(null, { add_e: { input: { nodes: { reference: { var: from } } }, label: l, to: { var: to }, properties: [] } });
  const made = await t.write(
    [
      node('n0', 0, [['nick', { value: 'null' }]]),
      node('n1', 1, [['nick', s('one')]]),
      node('n2', 1),
      node('n3', 2),
      node('n4', 3),
      node('n5', 9),
      edge('n0', 'n1', 'E'),
      edge('n0', 'n2', 'E'),
      edge('n1', 'n3', 'E'),
      edge('n2', 'n3', 'E'),
      edge('n3', 'n4', 'E'),
      edge('n4', 'n0', 'F'),
      q('edges', { id: { input: { edges: { reference: 'all' } } } }),
    ],
    ['n0', 'n5', 'edges'],
  );
  assert.deepEqual(made, { n0: idRows(0), n5: idRows(5), edges: [0, 1, 2, 3, 4, 5] });
});
after(() => t.close());

const out = (input: unknown, label?: string) => ({ out: { input, ...(label ? { label } : {}) } });
const inn = (input: unknown, label?: string) => ({ in: { input, ...(label ? { label } : {}) } });
const lvl = (op: string, n: number) => ({ [op]: { left: prop('lvl'), right: ci(n) } });
const idsOf = async (root: unknown) => (await t.read([q('r', { id: { input: root } })], ['r'])).r;
const read1 = async (root: unknown, parameters?: Record<string, unknown>) => (await t.read([q('r', root)], ['r'], parameters)).r;

const repeat = (input: unknown, config: Record<string, unknown>) => ({
  repeat: { input, config: { traversal: sub(out(ctx, 'E')), emit: 'none', max_depth: 10, ...config } },
});

// repeat

test('repeat emit none: the final frontier, duplicates included', async () => {
  assert.deepEqual(await idsOf(repeat(ids(0), { times: 1 })), [1, 2]);
  assert.deepEqual(await idsOf(repeat(ids(0), { times: 2 })), [3, 3]);
  assert.deepEqual(await idsOf(repeat(ids(0), { times: 3 })), [4, 4]);
  // A round whose result is empty ends the loop, and that empty result is the final frontier.
  assert.deepEqual(await idsOf(repeat(ids(0), { times: 4 })), []);
  assert.deepEqual(await idsOf(repeat(ids(0), {})), []);
  assert.deepEqual(await idsOf(repeat(ids(1, 2), { times: 1 })), [3, 3], 'the body runs on the whole frontier');
  assert.deepEqual(await idsOf(repeat(ids(), { times: 1 })), []);
});

test("repeat emit after: every round's result, in round order", async () => {
  assert.deepEqual(await idsOf(repeat(ids(0), { emit: 'after', times: 1 })), [1, 2]);
  assert.deepEqual(await idsOf(repeat(ids(0), { emit: 'after', times: 3 })), [1, 2, 3, 3, 4, 4]);
  assert.deepEqual(await idsOf(repeat(ids(0), { emit: 'after' })), [1, 2, 3, 3, 4, 4]);
  assert.deepEqual(await idsOf(repeat(ids(5), { emit: 'after' })), []);
});

test("repeat emit before: each round's frontier before the body runs", async () => {
  assert.deepEqual(await idsOf(repeat(ids(0), { emit: 'before', times: 1 })), [0]);
  assert.deepEqual(await idsOf(repeat(ids(0), { emit: 'before', times: 3 })), [0, 1, 2, 3, 3]);
  // Without times, the fourth round emits [4, 4], then its body yields nothing.
  assert.deepEqual(await idsOf(repeat(ids(0), { emit: 'before' })), [0, 1, 2, 3, 3, 4, 4]);
  assert.deepEqual(await idsOf(repeat(ids(5), { emit: 'before' })), [5]);
});

test('repeat emit all: frontier then result, round by round', async () => {
  assert.deepEqual(await idsOf(repeat(ids(0), { emit: 'all', times: 1 })), [0, 1, 2]);
  assert.deepEqual(await idsOf(repeat(ids(0), { emit: 'all', times: 2 })), [0, 1, 2, 1, 2, 3, 3]);
  assert.deepEqual(await idsOf(repeat(ids(0), { emit: 'all' })), [0, 1, 2, 1, 2, 3, 3, 3, 3, 4, 4, 4, 4]);
});

test('repeat max_depth caps the rounds, alone and with times (the smaller wins)', async () => {
  assert.deepEqual(await idsOf(repeat(ids(0), { emit: 'after', max_depth: 2 })), [1, 2, 3, 3]);
  assert.deepEqual(await idsOf(repeat(ids(0), { max_depth: 2 })), [3, 3]);
  assert.deepEqual(await idsOf(repeat(ids(0), { times: 5, max_depth: 2 })), [3, 3]);
  assert.deepEqual(await idsOf(repeat(ids(0), { times: 2, max_depth: 5 })), [3, 3]);
  assert.deepEqual(await idsOf(repeat(ids(0), { emit: 'before', max_depth: 1 })), [0]);
});

test('repeat emit_predicate (with emit after) emits only the matching result rows', async () => {
  assert.deepEqual(await idsOf(repeat(ids(0), { emit: 'after', times: 3, emit_predicate: lvl('gte', 2) })), [3, 3, 4, 4]);
  assert.deepEqual(await idsOf(repeat(ids(0), { emit: 'after', emit_predicate: lvl('eq', 1) })), [1, 2]);
  assert.deepEqual(await idsOf(repeat(ids(0), { emit: 'after', emit_predicate: lvl('eq', 7) })), []);
  // The frontier is not filtered, only what is emitted.
  assert.deepEqual(await idsOf(repeat(ids(0), { emit: 'after', emit_predicate: lvl('eq', 3) })), [4, 4]);
});

test('repeat until stops after the round whose result has any matching row', async () => {
  assert.deepEqual(await idsOf(repeat(ids(0), { until: lvl('eq', 2) })), [3, 3]);
  assert.deepEqual(await idsOf(repeat(ids(0), { until: lvl('eq', 2), emit: 'after' })), [1, 2, 3, 3]);
  assert.deepEqual(await idsOf(repeat(ids(0), { until: lvl('eq', 2), emit: 'before' })), [0, 1, 2]);
  // Any row: n1 does not match but n2 does, so the loop stops after the first round.
  assert.deepEqual(await idsOf(repeat(ids(0), { until: { eq: { left: prop('name'), right: { constant: { string: 'n2' } } } } })), [1, 2]);
  // until is not tested on the input rows: 0 has lvl 0, the loop still runs until it comes back to 0 over F.
  const anyEdge = { repeat: { input: ids(0), config: { traversal: sub(out(ctx)), emit: 'none', max_depth: 10, until: lvl('eq', 0) } } };
  assert.deepEqual(await idsOf(anyEdge), [0, 0]);
  // until never matching: the loop ends on an empty round, or at times.
  assert.deepEqual(await idsOf(repeat(ids(0), { until: lvl('eq', 7) })), []);
  assert.deepEqual(await idsOf(repeat(ids(0), { until: lvl('eq', 7), times: 2 })), [3, 3]);
});

test('repeat runs the body on the whole frontier: a dedup in the body sees every row of the round', async () => {
  const body = { repeat: { input: ids(0), config: { traversal: sub({ dedup: { input: out(ctx, 'E') } }), emit: 'after', max_depth: 10 } } };
  assert.deepEqual(await idsOf(body), [1, 2, 3, 4]);
});

test('repeat output can be counted and deduplicated', async () => {
  assert.deepEqual(await read1({ count: { input: repeat(ids(0), { emit: 'all' }) } }), [13]);
  assert.deepEqual(await idsOf({ dedup: { input: repeat(ids(0), { emit: 'all' }) } }), [0, 1, 2, 3, 4]);
});

// shortest_path

const sp = (source: number, target: number, direction: string, extra: Record<string, unknown> = {}) =>
  read1({ shortest_path: { source: { ids: [source] }, target: { ids: [target] }, direction, max_depth: 10, ...extra } });

test('shortest_path out: BFS along out edges, neighbours in ascending id (first found wins)', async () => {
  assert.deepEqual(await sp(0, 4, 'out'), [0, 1, 3, 4]);
  assert.deepEqual(await sp(0, 4, 'out', { label: 'E' }), [0, 1, 3, 4]);
  assert.deepEqual(await sp(4, 0, 'out'), [4, 0]);
  assert.deepEqual(await sp(4, 0, 'out', { label: 'E' }), []);
  assert.deepEqual(await sp(4, 3, 'out'), [4, 0, 1, 3]);
  assert.deepEqual(await sp(1, 2, 'out'), [1, 3, 4, 0, 2]);
  assert.deepEqual(await sp(1, 2, 'out', { label: 'E' }), []);
  assert.deepEqual(await sp(0, 5, 'out'), []);
});

test('shortest_path in: BFS along in edges', async () => {
  assert.deepEqual(await sp(4, 0, 'in'), [4, 3, 1, 0]);
  assert.deepEqual(await sp(4, 0, 'in', { label: 'E' }), [4, 3, 1, 0]);
  assert.deepEqual(await sp(0, 4, 'in'), [0, 4]);
  assert.deepEqual(await sp(0, 4, 'in', { label: 'F' }), [0, 4]);
  assert.deepEqual(await sp(0, 4, 'in', { label: 'E' }), []);
  assert.deepEqual(await sp(3, 2, 'in'), [3, 2]);
});

test('shortest_path both: edges either way', async () => {
  assert.deepEqual(await sp(2, 1, 'both'), [2, 0, 1]);
  assert.deepEqual(await sp(1, 2, 'both'), [1, 0, 2]);
  assert.deepEqual(await sp(2, 1, 'both', { label: 'E' }), [2, 0, 1]);
  assert.deepEqual(await sp(4, 1, 'both'), [4, 0, 1]);
  assert.deepEqual(await sp(4, 1, 'both', { label: 'E' }), [4, 3, 1]);
  assert.deepEqual(await sp(4, 1, 'both', { label: 'F' }), []);
  assert.deepEqual(await sp(5, 0, 'both'), []);
});

test('shortest_path max_depth: a path longer than max_depth hops is not found', async () => {
  assert.deepEqual(await sp(0, 4, 'out', { max_depth: 2 }), []);
  assert.deepEqual(await sp(0, 4, 'out', { max_depth: 3 }), [0, 1, 3, 4]);
  assert.deepEqual(await sp(4, 0, 'in', { max_depth: 2 }), []);
  assert.deepEqual(await sp(1, 2, 'both', { max_depth: 1 }), []);
  assert.deepEqual(await sp(1, 2, 'both', { max_depth: 2 }), [1, 0, 2]);
  assert.deepEqual(await sp(0, 1, 'out', { max_depth: 1 }), [0, 1]);
});

test('shortest_path endpoints: equal gives [source], a missing node gives [], params and vars work', async () => {
  assert.deepEqual(await sp(3, 3, 'out', { max_depth: 1 }), [3]);
  assert.deepEqual(await sp(0, 99, 'out'), []);
  assert.deepEqual(await sp(99, 0, 'both'), []);
  assert.deepEqual(await read1({ shortest_path: { source: { ids: [] }, target: { ids: [1] }, direction: 'out', max_depth: 3 } }), []);
  assert.deepEqual(
    await read1(
      { shortest_path: { source: { param: 'a' }, target: { param: 'b' }, direction: 'both', label: 'E', max_depth: 5 } },
      { a: 4, b: 2 },
    ),
    [4, 3, 2],
  );
  const res = await t.read(
    [
      q('from', ids(2)),
      q('to', { has: { input: { nodes: { reference: 'all' } }, property: 'name', value: { string: 'n4' } } }),
      q('r', { shortest_path: { source: { var: 'from' }, target: { var: 'to' }, direction: 'out', max_depth: 5 } }),
    ],
    ['r'],
  );
  assert.deepEqual(res, { r: [2, 3, 4] });
  await rejects400(
    t.read([q('r', { shortest_path: { source: { ids: [0, 1] }, target: { ids: [4] }, direction: 'out', max_depth: 5 } })], ['r']),
    'invalid_query',
    atPath('.shortest_path.source'),
  );
});

// project_bindings

/** Rows (u = 0, current 1), (u = 0, current 2), (u = 1, current 3). */
const bound = out({ bind: { input: ids(0, 1), name: 'u' } }, 'E');
const pb = (projections: unknown[], distinct: boolean) => read1({ project_bindings: { input: bound, projections, distinct } });
const item = (target: unknown, source: string, alias: string) => ({ property: { target, source, alias } });

test('project_bindings: one object per row from the binding and the current element', async () => {
  assert.deepEqual(
    await pb([item({ binding: 'u' }, 'name', 'from'), item('current', 'name', 'to'), item({ binding: 'u' }, '$id', 'uid')], false),
    [
      { from: 'n0', to: 'n1', uid: 0 },
      { from: 'n0', to: 'n2', uid: 0 },
      { from: 'n1', to: 'n3', uid: 1 },
    ],
  );
});

test('project_bindings distinct false keeps repeated objects; distinct true drops them, first kept', async () => {
  assert.deepEqual(await pb([item({ binding: 'u' }, 'name', 'from')], false), [{ from: 'n0' }, { from: 'n0' }, { from: 'n1' }]);
  assert.deepEqual(await pb([item({ binding: 'u' }, 'name', 'from')], true), [{ from: 'n0' }, { from: 'n1' }]);
  assert.deepEqual(await pb([item('current', 'lvl', 'l')], true), [{ l: 1 }, { l: 2 }]);
  assert.deepEqual(await pb([item('current', 'lvl', 'l'), item('current', 'name', 'n')], true), [
    { l: 1, n: 'n1' },
    { l: 1, n: 'n2' },
    { l: 2, n: 'n3' },
  ]);
});

test('project_bindings property items are omitted when the value or the binding is missing (a stored null is present)', async () => {
  assert.deepEqual(
    await pb([item({ binding: 'u' }, 'nick', 'nick'), item({ binding: 'nobody' }, 'name', 'x'), item('current', 'nick', 'cn')], false),
    [{ nick: null, cn: 'one' }, { nick: null }, { nick: 'one' }],
  );
  assert.deepEqual(await pb([item('current', 'missing', 'm')], true), [{}]);
});

test('project_bindings coalesce takes the first ref that resolves to a non-null value, else omits the item', async () => {
  const coalesce = (refs: [unknown, string][], alias: string) => ({
    coalesce: { refs: refs.map(([target, source]) => ({ target, source })), alias },
  });
  // n0's nick is a stored null, so it falls through to the current name.
  assert.deepEqual(
    await pb(
      [
        coalesce(
          [
            [{ binding: 'u' }, 'nick'],
            ['current', 'name'],
          ],
          'who',
        ),
      ],
      false,
    ),
    [{ who: 'n1' }, { who: 'n2' }, { who: 'one' }],
  );
  assert.deepEqual(
    await pb(
      [
        coalesce(
          [
            [{ binding: 'gone' }, 'name'],
            ['current', 'missing'],
            [{ binding: 'u' }, 'lvl'],
          ],
          'x',
        ),
      ],
      false,
    ),
    [{ x: 0 }, { x: 0 }, { x: 1 }],
  );
  assert.deepEqual(
    await pb(
      [
        coalesce(
          [
            ['current', 'missing'],
            [{ binding: 'u' }, 'nope'],
          ],
          'x',
        ),
        item('current', '$id', 'id'),
      ],
      false,
    ),
    [{ id: 1 }, { id: 2 }, { id: 3 }],
  );
  assert.deepEqual(await pb([coalesce([[{ binding: 'u' }, 'name']], 'who')], true), [{ who: 'n0' }, { who: 'n1' }]);
});

// union, coalesce, optional

test('union is row-major: for each input row, each branch in order', async () => {
  assert.deepEqual(await idsOf({ union: { input: ids(0, 3), traversals: [sub(out(ctx, 'E')), sub(inn(ctx, 'E'))] } }), [1, 2, 4, 1, 2]);
  assert.deepEqual(await idsOf({ union: { input: ids(3, 0), traversals: [sub(inn(ctx, 'E')), sub(out(ctx, 'E'))] } }), [1, 2, 4, 1, 2]);
  assert.deepEqual(
    await idsOf({ union: { input: ids(0, 3), traversals: [sub(ctx), sub(out(ctx, 'E')), sub(ctx)] } }),
    [0, 1, 2, 0, 3, 4, 3],
  );
  assert.deepEqual(await idsOf({ union: { input: ids(5), traversals: [sub(out(ctx)), sub(inn(ctx))] } }), []);
  // Each branch runs on one row at a time: a dedup in a branch does not see other rows.
  assert.deepEqual(
    await idsOf({ union: { input: ids(1, 2), traversals: [sub({ dedup: { input: out(ctx, 'E') } }), sub(ctx)] } }),
    [3, 1, 3, 2],
  );
});

test('coalesce: per row, the first branch with output; rows where every branch is empty vanish', async () => {
  const branches = [sub(out(ctx, 'E')), sub(out(ctx, 'F'))];
  assert.deepEqual(await idsOf({ coalesce: { input: ids(0, 4, 5), traversals: branches } }), [1, 2, 0]);
  assert.deepEqual(await idsOf({ coalesce: { input: ids(4, 0), traversals: branches } }), [0, 1, 2]);
  assert.deepEqual(await idsOf({ coalesce: { input: ids(5, 3), traversals: [sub(out(ctx, 'F')), sub(ctx)] } }), [5, 3]);
  assert.deepEqual(
    await idsOf({ coalesce: { input: ids(0, 1), traversals: [sub(ctx), sub(out(ctx))] } }),
    [0, 1],
    'a later branch never runs once one yields',
  );
});

test('optional: per row, the branch output or the row itself when the branch is empty', async () => {
  assert.deepEqual(await idsOf({ optional: { input: ids(5, 3, 4), traversal: sub(out(ctx, 'E')) } }), [5, 4, 4]);
  assert.deepEqual(await idsOf({ optional: { input: ids(0, 5), traversal: sub(out(ctx, 'E')) } }), [1, 2, 5]);
  assert.deepEqual(await idsOf({ optional: { input: ids(1), traversal: sub({ where: { input: ctx, predicate: lvl('gt', 5) } }) } }), [1]);
});

// choose (reference §5.8, Q6)

test('choose without else: failing rows are dropped; passing rows run through the then-branch', async () => {
  const choose = (input: unknown, then: unknown) => ({ choose: { input, condition: lvl('eq', 1), then_traversal: sub(then) } });
  assert.deepEqual(await idsOf(choose(ids(0, 1, 2, 3, 4), out(ctx, 'E'))), [3, 3]);
  assert.deepEqual(await idsOf(choose(ids(0, 1, 2, 3, 4), ctx)), [1, 2]);
  assert.deepEqual(await idsOf(choose(ids(0, 3), ctx)), []);
  assert.deepEqual(await idsOf(choose(ids(2, 1), ctx)), [2, 1]);
});

test('choose with else: then(passing rows) first, then else(failing rows), each in input order', async () => {
  const choose = (input: unknown, then: unknown, otherwise: unknown) => ({
    choose: { input, condition: lvl('eq', 1), then_traversal: sub(then), else_traversal: sub(otherwise) },
  });
  assert.deepEqual(await idsOf(choose(ids(0, 1, 2, 3, 4), out(ctx, 'E'), ctx)), [3, 3, 0, 3, 4]);
  assert.deepEqual(await idsOf(choose(ids(4, 2, 0, 1), out(ctx, 'E'), ctx)), [3, 3, 4, 0]);
  assert.deepEqual(await idsOf(choose(ids(4, 2, 0, 1), ctx, out(ctx))), [2, 1, 0, 1, 2]);
  assert.deepEqual(await idsOf(choose(ids(1, 2), ctx, out(ctx))), [1, 2], 'all pass: then only');
  assert.deepEqual(await idsOf(choose(ids(3, 0), ctx, out(ctx, 'E'))), [4, 1, 2], 'all fail: else only');
});

test('choose runs each branch on its rows together: a dedup in the branch sees all of them', async () => {
  const root = {
    choose: {
      input: ids(0, 1, 2, 4),
      condition: lvl('eq', 1),
      then_traversal: sub({ dedup: { input: out(ctx, 'E') } }),
      else_traversal: sub({ dedup: { input: out(ctx) } }),
    },
  };
  assert.deepEqual(await idsOf(root), [3, 1, 2, 0]);
});
