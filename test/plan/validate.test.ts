/**
 * Static validation of plans (src/plan/validate.ts; reference §5.5, §8.2, §10): the 400
 * codes a plan gets before anything runs, each with its exact code and a msg that starts
 * with the JSON path of the offending place, through the embedded database so that the
 * plans are the ones a request decodes to. (Runtime codes: test/exec/codes-conformance.test.ts.)
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  atPath,
  ctx,
  elementCounts,
  idRows,
  ids,
  openPathGraph,
  prop,
  q,
  rejects400,
  s,
  sub,
  rootRejects,
  withFreshDb,
  WRITE_ROOT,
  type TestDb,
} from '../helpers/embedded.js';

let t: TestDb;

// Nodes 0 a, 1 b, 2 c (label P); edges e0 0->1 K, e1 1->2 K.
before(async () => {
  t = await openPathGraph();
});
after(() => t.close());

const { badRead, badWrite } = rootRejects(() => t);
const bind = (input: unknown, name = 'u') => ({ bind: { input, name } });
const out = (input: unknown) => ({ out: { input } });
const counts = () => elementCounts(t);

// invalid_after_bind_operation

test('invalid_after_bind_operation: order_by and value_map after bind, directly and after other steps', async () => {
  await badRead({ order_by: { input: bind(ids(0, 1)), property: 'name', order: 'asc' } }, 'invalid_after_bind_operation', '.order_by');
  await badRead(
    { order_by: { input: out(bind(ids(0, 1))), property: 'name', order: 'desc' } },
    'invalid_after_bind_operation',
    '.order_by',
  );
  await badRead({ value_map: { input: bind(ids(0)) } }, 'invalid_after_bind_operation', '.value_map');
  await badRead(
    { value_map: { input: { limit: { input: out(bind(ids(0))), count: { literal: 1 } } }, properties: ['name'] } },
    'invalid_after_bind_operation',
    '.value_map',
  );
  // The place is named even when the bind is deep inside the input chain.
  await badRead(
    { count: { input: { order_by: { input: { dedup: { input: bind(ids(0)) } }, property: 'name', order: 'asc' } } } },
    'invalid_after_bind_operation',
    '.count.input.order_by',
  );
});

test('invalid_after_bind_operation: the other operations the reference lists', async () => {
  const b = bind(ids(0));
  await badRead({ order_by_multiple: { input: b, orderings: [['name', 'asc']] } }, 'invalid_after_bind_operation', '.order_by_multiple');
  await badRead(
    { choose: { input: b, condition: { is_null: { property: 'x' } }, then_traversal: sub(ctx) } },
    'invalid_after_bind_operation',
    '.choose',
  );
  await badRead(
    { repeat: { input: b, config: { traversal: sub(out(ctx)), emit: 'none', max_depth: 2 } } },
    'invalid_after_bind_operation',
    '.repeat',
  );
  await badRead({ id: { input: b } }, 'invalid_after_bind_operation', '.id');
  await badRead({ label: { input: b } }, 'invalid_after_bind_operation', '.label');
  await badRead({ values: { input: b, properties: ['name'] } }, 'invalid_after_bind_operation', '.values');
  await badRead(
    { project: { input: b, projections: [{ property: { source: 'name', alias: 'n' } }] } },
    'invalid_after_bind_operation',
    '.project',
  );
  await badRead({ edge_properties: { input: { out_e: { input: b } } } }, 'invalid_after_bind_operation', '.edge_properties');
});

test('edge_has and edge_has_label after bind are invalid unless the current element is an edge', async () => {
  await badRead({ edge_has_label: { input: bind(ids(0)), label: 'K' } }, 'invalid_after_bind_operation', '.edge_has_label');
  await badRead(
    { edge_has: { input: out(bind(ids(0))), property: 'name', value: { value: { string: 'b' } } } },
    'invalid_after_bind_operation',
    '.edge_has',
  );
  const ok = await t.read(
    [q('r', { count: { input: { edge_has_label: { input: { out_e: { input: bind(ids(0)) } }, label: 'K' } } } })],
    ['r'],
  );
  assert.deepEqual(ok, { r: [1] });
});

test('after bind, navigation, filters, dedup, bounds, branches, count, exists and project_bindings are allowed', async () => {
  const b = bind(ids(0, 1));
  const res = await t.read(
    [
      q('count', {
        count: {
          input: {
            dedup: {
              input: {
                limit: { input: { where: { input: out(b), predicate: { is_not_null: { property: 'name' } } } }, count: { literal: 5 } },
              },
            },
          },
        },
      }),
      q('exists', { exists: { input: { union: { input: b, traversals: [sub(ctx), sub(out(ctx))] } } } }),
      q('pb', {
        project_bindings: {
          input: { optional: { input: out(b), traversal: sub(out(ctx)) } },
          projections: [{ property: { target: { binding: 'u' }, source: 'name', alias: 'u' } }],
          distinct: false,
        },
      }),
    ],
    ['count', 'exists', 'pb'],
  );
  assert.deepEqual(res, { count: [2], exists: [true], pb: [{ u: 'a' }, { u: 'b' }] });
});

// invalid_repeat_emit, invalid_repeat_count, invalid_shortest_path_count

const repeat = (config: Record<string, unknown>) => ({
  repeat: { input: ids(0), config: { traversal: sub(out(ctx)), emit: 'none', max_depth: 5, ...config } },
});

test('invalid_repeat_emit: emit_predicate with emit none, before or all', async () => {
  const pred = { is_not_null: { property: 'name' } };
  for (const emit of ['none', 'before', 'all']) {
    await badRead(repeat({ emit, emit_predicate: pred }), 'invalid_repeat_emit', '.repeat.config');
  }
  assert.deepEqual((await t.read([q('r', { id: { input: repeat({ emit: 'after', emit_predicate: pred }) } })], ['r'])).r, [1, 2]);
});

test('invalid_repeat_count: times 0 and max_depth 0, also inside a branch', async () => {
  await badRead(repeat({ times: 0 }), 'invalid_repeat_count', '.repeat.config.times');
  await badRead(repeat({ max_depth: 0 }), 'invalid_repeat_count', '.repeat.config.max_depth');
  await badRead(repeat({ times: 0, max_depth: 0, emit: 'after' }), 'invalid_repeat_count', '.repeat.config');
  await badRead(
    {
      union: {
        input: ids(0),
        traversals: [sub(ctx), sub({ repeat: { input: ctx, config: { traversal: sub(out(ctx)), emit: 'none', max_depth: 0 } } })],
      },
    },
    'invalid_repeat_count',
    '.union.traversals[1].root.repeat.config.max_depth',
  );
  // Nested repeat bodies are checked too.
  await badRead(
    repeat({ traversal: sub({ repeat: { input: ctx, config: { traversal: sub(out(ctx)), emit: 'none', times: 0, max_depth: 3 } } }) }),
    'invalid_repeat_count',
    '.repeat.config.traversal.root.repeat.config.times',
  );
});

test('invalid_shortest_path_count: max_depth 0, at the root and in a for_each body', async () => {
  const sp = { shortest_path: { source: { ids: [0] }, target: { ids: [1] }, direction: 'both', max_depth: 0 } };
  await badRead(sp, 'invalid_shortest_path_count', '.shortest_path.max_depth');
  await rejects400(
    t.read([{ for_each: { param: 'rows', body: [q('r', sp)] } }], [], { rows: [] }),
    'invalid_shortest_path_count',
    atPath('.shortest_path.max_depth', 'query.read.entries[0].for_each.body[0].query.root'),
  );
});

// node_not_found (add_e to a missing node)

test('unbound_context: "context" outside a sub-traversal, in reads, writes and for_each bodies', async () => {
  await badRead(ctx, 'unbound_context', '');
  await badRead({ count: { input: ctx } }, 'unbound_context', '.count.input');
  await badRead(
    { value_map: { input: out({ has_label: { input: ctx, label: 'P' } }) } },
    'unbound_context',
    '.value_map.input.out.input.has_label.input',
  );
  await badWrite({ add_n: { input: ctx, label: 'X', properties: [] } }, 'unbound_context', '.add_n.input');
  await rejects400(
    t.read([q(null, ids(0)), { for_each: { param: 'rows', body: [q('r', out(ctx))] } }], [], { rows: [] }),
    'unbound_context',
    atPath('.out.input', 'query.read.entries[1].for_each.body[0].query.root'),
  );
});

// invalid_sub_traversal_operation

test('invalid_sub_traversal_operation: a source or project_bindings inside a branch or repeat body', async () => {
  await badRead(
    { union: { input: ids(0), traversals: [sub(ctx), sub(out({ nodes: { reference: 'all' } }))] } },
    'invalid_sub_traversal_operation',
    '.union.traversals[1].root.out.input',
  );
  await badRead(
    { coalesce: { input: ids(0), traversals: [sub({ edges_where: { predicate: { is_null: { property: 'x' } } } })] } },
    'invalid_sub_traversal_operation',
    '.coalesce.traversals[0].root',
  );
  await badRead(
    { optional: { input: ids(0), traversal: sub({ inject: { variable: 'r' } }) } },
    'invalid_sub_traversal_operation',
    '.optional.traversal.root',
  );
  await badRead(
    {
      repeat: {
        input: ids(0),
        config: {
          traversal: sub({ shortest_path: { source: { ids: [0] }, target: { ids: [1] }, direction: 'out', max_depth: 2 } }),
          emit: 'none',
          max_depth: 2,
        },
      },
    },
    'invalid_sub_traversal_operation',
    '.repeat.config.traversal.root',
  );
  await badRead(
    {
      union: {
        input: ids(0),
        traversals: [
          sub(ctx),
          sub({
            project_bindings: {
              input: bind(ctx),
              projections: [{ property: { target: 'current', source: '$id', alias: 'i' } }],
              distinct: false,
            },
          }),
        ],
      },
    },
    'invalid_sub_traversal_operation',
    '.union.traversals[1].root',
  );
  await badWrite(
    { union: { input: ids(0), traversals: [sub(ctx), sub({ add_n: { label: 'X', properties: [] } })] } },
    'invalid_sub_traversal_operation',
    '.union.traversals[1].root',
  );
});

test('invalid_sub_traversal_operation: a source, or any mutation, inside a traversal expression (test/exec/traversal-expr.test.ts has more)', async () => {
  const countOf = (root: unknown) => ({
    gt: { left: { traversal: { root: { count: { input: root } } } }, right: { constant: { i64: 0 } } },
  });
  await badRead(
    { where: { input: ids(0), predicate: countOf({ nodes: { reference: 'all' } }) } },
    'invalid_sub_traversal_operation',
    '.where.predicate.gt.left.traversal.root.count.input.nodes',
  );
  await badWrite(
    { where: { input: ids(0), predicate: countOf({ drop: { input: out(ctx) } }) } },
    'invalid_sub_traversal_operation',
    '.where.predicate.gt.left.traversal.root.count.input.drop',
  );
});

test('invalid_sub_traversal_operation: a terminal as the root of a branch or repeat body, even if the branch never runs', async () => {
  const cases: [unknown, string][] = [
    [{ union: { input: ids(0), traversals: [sub(ctx), sub({ count: { input: ctx } })] } }, '.union.traversals[1].root'],
    [{ coalesce: { input: ids(0), traversals: [sub(ctx), sub({ value_map: { input: ctx } })] } }, '.coalesce.traversals[1].root'],
    [{ optional: { input: ids(), traversal: sub({ id: { input: ctx } }) } }, '.optional.traversal.root'],
    [
      { choose: { input: ids(), condition: { is_null: { property: 'x' } }, then_traversal: sub({ exists: { input: ctx } }) } },
      '.choose.then_traversal.root',
    ],
    [
      {
        choose: {
          input: ids(0),
          condition: { is_not_null: { property: 'name' } },
          then_traversal: sub(ctx),
          else_traversal: sub({ label: { input: ctx } }),
        },
      },
      '.choose.else_traversal.root',
    ],
    [
      {
        repeat: {
          input: ids(),
          config: { traversal: sub({ values: { input: out(ctx), properties: ['name'] } }), emit: 'none', max_depth: 2 },
        },
      },
      '.repeat.config.traversal.root',
    ],
    [
      {
        union: {
          input: ids(),
          traversals: [sub({ project: { input: ctx, projections: [{ property: { source: 'name', alias: 'n' } }] } }), sub(ctx)],
        },
      },
      '.union.traversals[0].root',
    ],
    [
      { optional: { input: ids(0), traversal: sub({ edge_properties: { input: { out_e: { input: ctx } } } }) } },
      '.optional.traversal.root',
    ],
    [
      { coalesce: { input: ids(0), traversals: [sub(ctx), sub({ group_count: { input: ctx, property: 'name' } })] } },
      '.coalesce.traversals[1].root',
    ],
    [
      { union: { input: ids(0), traversals: [sub(ctx), sub({ aggregate_by: { input: ctx, function: 'count', property: 'name' } })] } },
      '.union.traversals[1].root',
    ],
  ];
  for (const [root, suffix] of cases) await badRead({ count: { input: root } }, 'invalid_sub_traversal_operation', `.count.input${suffix}`);
});

// read_only_traversal_in_write_batch

test('read_only_traversal_in_write_batch: bind and project_bindings anywhere in a write batch', async () => {
  const pb = {
    project_bindings: {
      input: bind(ids(0)),
      projections: [{ property: { target: { binding: 'u' }, source: 'name', alias: 'n' } }],
      distinct: true,
    },
  };
  await badWrite(bind(ids(0)), 'read_only_traversal_in_write_batch', '');
  await badWrite(pb, 'read_only_traversal_in_write_batch', '');
  await badWrite({ count: { input: out(bind(ids(0))) } }, 'read_only_traversal_in_write_batch', '.count.input.out.input');
  await badWrite(
    { union: { input: ids(0), traversals: [sub(ctx), sub(bind(ctx))] } },
    'read_only_traversal_in_write_batch',
    '.union.traversals[1].root',
  );
  await badWrite({ add_n: { input: bind(ids(0)), label: 'X', properties: [] } }, 'read_only_traversal_in_write_batch', '.add_n.input');
  await rejects400(
    t.write([{ for_each: { param: 'rows', body: [q(null, ids(0)), q('r', pb)] } }], [], { rows: [] }),
    'read_only_traversal_in_write_batch',
    atPath('', 'query.write.entries[0].for_each.body[1].query.root'),
  );
  assert.deepEqual(await counts(), { n: [3], e: [2] });
});

// duplicate_element_id

test('invalid_stream_range: a literal (or constant) range with start above end', async () => {
  const range = (start: unknown, end: unknown) => ({ range: { input: { nodes: { reference: 'all' } }, start, end } });
  await badRead(range({ literal: 3 }, { literal: 1 }), 'invalid_stream_range', '.range');
  await badRead(range({ expr: { constant: { i64: 5 } } }, { literal: 2 }), 'invalid_stream_range', '.range');
  await badRead(range({ literal: 2 }, { expr: { constant: { i64: 1 } } }), 'invalid_stream_range', '.range');
  await badRead(
    { union: { input: ids(0), traversals: [sub(ctx), sub({ range: { input: out(ctx), start: { literal: 1 }, end: { literal: 0 } } })] } },
    'invalid_stream_range',
    '.union.traversals[1].root.range',
  );
  // start == end is an empty range, not an error.
  assert.deepEqual((await t.read([q('r', range({ literal: 1 }, { literal: 1 }))], ['r'])).r, []);
  assert.deepEqual((await t.read([q('r', range({ literal: 1 }, { literal: 2 }))], ['r'])).r, idRows(1));
});

test('mutation_in_read_batch: a mutation anywhere in a read batch', async () => {
  const addN = { add_n: { label: 'X', properties: [] } };
  await badRead(addN, 'mutation_in_read_batch', '');
  await badRead({ count: { input: { drop: { input: ids(0) } } } }, 'mutation_in_read_batch', '.count.input');
  await badRead(
    { union: { input: ids(0), traversals: [sub(ctx), sub({ set_property: { input: ctx, name: 'x', value: { value: { i64: 1 } } } })] } },
    'mutation_in_read_batch',
    '.union.traversals[1].root',
  );
  await badRead({ drop_edge_by_id: { edges: { ids: [0] } } }, 'mutation_in_read_batch', '');
  await badRead({ add_e: { input: ids(0), label: 'K', to: { ids: [1] }, properties: [] } }, 'mutation_in_read_batch', '');
  await rejects400(
    t.read([{ for_each: { param: 'rows', body: [q(null, ids(0)), q(null, { remove_property: { input: ids(0), name: 'name' } })] } }], [], {
      rows: [],
    }),
    'mutation_in_read_batch',
    atPath('', 'query.read.entries[0].for_each.body[1].query.root'),
  );
  assert.deepEqual(await counts(), { n: [3], e: [2] });
});

// invalid_property_name (lead's decision)

test('invalid_property_name: $id, $from, $to, $distance and $score cannot be assigned', async () => {
  // A fresh database, so writes that wrongly succeed do not disturb the other tests.
  await withFreshDb(async (t) => {
    await t.write(
      [
        q('a', { add_n: { label: 'P', properties: [['name', s('a')]] } }),
        q('b', { add_n: { label: 'P', properties: [] } }),
        q(null, { add_e: { input: { nodes: { reference: { var: 'a' } } }, label: 'K', to: { var: 'b' }, properties: [] } }),
      ],
      [],
    );
    const bad = (root: unknown, suffix: string) =>
      rejects400(t.write([q('r', root)], []), 'invalid_property_name', atPath(suffix, WRITE_ROOT));
    for (const name of ['$id', '$from', '$to', '$distance', '$score']) {
      await bad(
        {
          add_n: {
            label: 'X',
            properties: [
              ['ok', { value: { i64: 1 } }],
              [name, { value: { i64: 1 } }],
            ],
          },
        },
        '.add_n.properties[1]',
      );
      await bad(
        { add_e: { input: ids(0), label: 'K', to: { ids: [1] }, properties: [[name, { value: { i64: 1 } }]] } },
        '.add_e.properties[0]',
      );
      await bad({ set_property: { input: ids(0), name, value: { value: { i64: 1 } } } }, '.set_property');
      await bad({ set_property: { input: { edges: { reference: { ids: [0] } } }, name, value: { expr: prop('name') } } }, '.set_property');
    }
    assert.deepEqual(await elementCounts(t), { n: [2], e: [1] });
  });
});
