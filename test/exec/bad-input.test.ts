/**
 * Issue 3 "Bad input": every client mistake is a 400 with a specific code and a msg that
 * names the place in the request, through the embedded API and over HTTP.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { GraphError, type ErrorCode } from '../../src/core/errors.js';
import { ci, cs, ids, openTestDb, prop, q, s, type TestDb } from '../helpers/embedded.js';
import { post, readRequest, startTestServer, tempDir, writeRequest, type TestServer } from '../helpers/server.js';

let t: TestDb;
before(async () => {
  t = await openTestDb();
  await t.write(
    [
      q('a', {
        add_n: {
          label: 'P',
          properties: [
            ['name', s('a')],
            ['age', { value: { i64: 30 } }],
            ['ok', { value: { bool: true } }],
          ],
        },
      }),
      q('b', { add_n: { label: 'P', properties: [['name', s('b')]] } }),
      q(null, { add_e: { input: { nodes: { reference: { var: 'a' } } }, label: 'K', to: { var: 'b' }, properties: [] } }),
    ],
    [],
  );
});
after(() => t.close());

const ctx = 'context';
const sub = (root: unknown) => ({ root });
const out = (input: unknown) => ({ out: { input } });
const addN = { add_n: { label: 'X', properties: [] } };

async function bad(
  type: 'read' | 'write',
  entries: unknown[],
  code: ErrorCode,
  where: RegExp,
  opts: { returns?: string[]; params?: Record<string, unknown> } = {},
) {
  await assert.rejects(t[type](entries, opts.returns ?? [], opts.params), (err: unknown) => {
    assert.ok(err instanceof GraphError, String(err));
    assert.equal(err.code, code, err.msg);
    assert.equal(err.status, 400, err.code);
    assert.match(err.msg, where);
    return true;
  });
}
const badRead = (root: unknown, code: ErrorCode, where: RegExp, params?: Record<string, unknown>) =>
  bad('read', [q('r', root)], code, where, { params });
const badWrite = (root: unknown, code: ErrorCode, where: RegExp) => bad('write', [q('r', root)], code, where);
const ROOT = 'entries\\[0\\]\\.query\\.root';
const at = (suffix: string) => new RegExp(`${ROOT}${suffix.replace(/[.[\]]/g, (c) => `\\${c}`)}`);

test('wrong arity: union 1 branch, coalesce 0, and/or 0, values [], project [], order_by_multiple []', async () => {
  await badRead({ union: { input: ids(0), traversals: [sub(ctx)] } }, 'invalid_branch_arity', at('.union.traversals'));
  await badRead({ coalesce: { input: ids(0), traversals: [] } }, 'invalid_branch_arity', at('.coalesce.traversals'));
  await badRead(
    { where: { input: ids(0), predicate: { and: { predicates: [] } } } },
    'invalid_predicate_arity',
    at('.where.predicate.and'),
  );
  await badRead(
    { nodes_where: { predicate: { not: { predicate: { or: { predicates: [] } } } } } },
    'invalid_predicate_arity',
    at('.nodes_where.predicate.not.predicate.or'),
  );
  await badRead({ values: { input: ids(0), properties: [] } }, 'invalid_projection_arity', at('.values.properties'));
  await badRead({ project: { input: ids(0), projections: [] } }, 'invalid_projection_arity', at('.project.projections'));
  await badRead({ order_by_multiple: { input: ids(0), orderings: [] } }, 'invalid_order_keys', at('.order_by_multiple.orderings'));
  // Inside a branch body the path goes through the sub-traversal.
  await badRead(
    { optional: { input: ids(0), traversal: sub({ union: { input: ctx, traversals: [sub(ctx)] } }) } },
    'invalid_branch_arity',
    at('.optional.traversal.root.union.traversals'),
  );
});

test('unknown operation, predicate, expression and reference tags are invalid_query_json naming the path', async () => {
  await badRead({ frobnicate: { input: ids(0) } }, 'invalid_query_json', new RegExp(`${ROOT}.*frobnicate`));
  await badRead({ count: { input: { nodes: { reference: 'everything' } } } }, 'invalid_query_json', at('.count.input.nodes.reference'));
  await badRead(
    { where: { input: ids(0), predicate: { like: { left: prop('name'), right: cs('a') } } } },
    'invalid_query_json',
    new RegExp(`${ROOT}\\.where\\.predicate.*like`),
  );
  await badRead(
    { where: { input: ids(0), predicate: { eq: { left: { pow: {} }, right: ci(1) } } } },
    'invalid_query_json',
    new RegExp(`${ROOT}\\.where\\.predicate\\.eq\\.left.*pow`),
  );
  await badRead(
    { union: { input: ids(0), traversals: [sub(ctx), sub({ walk: { input: ctx } })] } },
    'invalid_query_json',
    new RegExp(`${ROOT}\\.union\\.traversals\\[1\\]\\.root.*walk`),
  );
  await badRead({ count: { input: ids(0), extra: 1 } }, 'invalid_query_json', new RegExp(`${ROOT}\\.count.*extra`));
});

test('context outside a sub-traversal is unbound_context; a source inside one is invalid_sub_traversal_operation', async () => {
  await badRead(ctx, 'unbound_context', new RegExp(ROOT));
  await badRead({ count: { input: ctx } }, 'unbound_context', at('.count.input'));
  await badRead(
    { union: { input: ids(0), traversals: [sub(ctx), sub(ids(1))] } },
    'invalid_sub_traversal_operation',
    at('.union.traversals[1].root'),
  );
  await badRead(
    { optional: { input: ids(0), traversal: sub(out({ nodes: { reference: 'all' } })) } },
    'invalid_sub_traversal_operation',
    at('.optional.traversal.root.out.input'),
  );
  await badRead(
    { coalesce: { input: ids(0), traversals: [sub({ inject: { variable: 'r' } })] } },
    'invalid_sub_traversal_operation',
    at('.coalesce.traversals[0].root'),
  );
  await badRead(
    { repeat: { input: ids(0), config: { traversal: sub({ edges: { reference: 'all' } }), emit: 'none', max_depth: 2 } } },
    'invalid_sub_traversal_operation',
    at('.repeat.config.traversal.root'),
  );
  await badWrite(
    { union: { input: ids(0), traversals: [sub(ctx), sub(addN)] } },
    'invalid_sub_traversal_operation',
    at('.union.traversals[1].root'),
  );
  await badRead(
    {
      choose: {
        input: ids(0),
        condition: { is_null: { property: 'x' } },
        then_traversal: sub(ctx),
        else_traversal: sub({ nodes_where: { predicate: { is_null: { property: 'x' } } } }),
      },
    },
    'invalid_sub_traversal_operation',
    at('.choose.else_traversal.root'),
  );
});

test('mutations in read batches are rejected at any depth with one code naming the place', async () => {
  const mutationCode = 'mutation_in_read_batch';
  const cases: [unknown, string][] = [
    [addN, ''],
    [{ count: { input: { drop: { input: ids(0) } } } }, '.count.input'],
    [{ project: { input: addN, projections: [{ property: { source: '$id', alias: 'id' } }] } }, '.project.input'],
    [
      { union: { input: ids(0), traversals: [sub(ctx), sub({ set_property: { input: ctx, name: 'x', value: s('y') } })] } },
      '.union.traversals[1].root',
    ],
    [
      {
        repeat: {
          input: ids(0),
          config: { traversal: sub({ add_e: { input: ctx, label: 'L', to: { ids: [1] }, properties: [] } }), emit: 'none', max_depth: 2 },
        },
      },
      '.repeat.config.traversal.root',
    ],
    [
      { choose: { input: ids(0), condition: { is_null: { property: 'x' } }, then_traversal: sub({ drop: { input: ctx } }) } },
      '.choose.then_traversal.root',
    ],
    [{ optional: { input: ids(0), traversal: sub({ remove_property: { input: ctx, name: 'name' } }) } }, '.optional.traversal.root'],
    [
      { coalesce: { input: ids(0), traversals: [sub(out({ drop_edge: { input: ctx, to: { ids: [1] } } }))] } },
      '.coalesce.traversals[0].root.out.input',
    ],
    [{ drop_edge_by_id: { edges: { ids: [0] } } }, ''],
  ];
  for (const [root, suffix] of cases) await badRead(root, mutationCode, at(suffix));
  await bad(
    'read',
    [{ for_each: { param: 'rows', body: [q(null, ids(0)), q(null, { drop: { input: ids(0) } })] } }],
    mutationCode,
    /entries\[0\]\.for_each\.body\[1\]\.query\.root/,
    { params: { rows: [] } },
  );
  await bad(
    'read',
    [{ for_each: { param: 'rows', body: [{ for_each: { param: 'inner', body: [q(null, addN)] } }] } }],
    mutationCode,
    /entries\[0\]\.for_each\.body\[0\]\.for_each\.body\[0\]\.query\.root/,
    { params: { rows: [], inner: [] } },
  );
  assert.deepEqual(await t.read([q('n', { count: { input: { nodes: { reference: 'all' } } } })], ['n']), { n: [2] });
});

test('bind and project_bindings in write batches are read_only_traversal_in_write_batch', async () => {
  await badWrite({ bind: { input: ids(0), name: 'x' } }, 'read_only_traversal_in_write_batch', new RegExp(ROOT));
  await badWrite(
    { count: { input: out({ bind: { input: ids(0), name: 'x' } }) } },
    'read_only_traversal_in_write_batch',
    at('.count.input.out.input'),
  );
  await badWrite(
    { project_bindings: { input: ids(0), projections: [{ property: { target: 'current', source: '$id', alias: 'i' } }], distinct: false } },
    'read_only_traversal_in_write_batch',
    new RegExp(ROOT),
  );
  await bad(
    'write',
    [{ for_each: { param: 'rows', body: [q(null, { bind: { input: ids(0), name: 'x' } })] } }],
    'read_only_traversal_in_write_batch',
    /for_each\.body\[0\]\.query\.root/,
    { params: { rows: [] } },
  );
});

test('duplicate returns, assignments, aliases, order keys, ids and selections', async () => {
  await bad('read', [q('r', ids(0))], 'duplicate_return_variable', /returns\[1\]/, { returns: ['r', 'r'] });
  await badWrite(
    {
      add_n: {
        label: 'X',
        properties: [
          ['k', s('a')],
          ['k', s('b')],
        ],
      },
    },
    'duplicate_property_assignment',
    at('.add_n.properties[1]'),
  );
  await badWrite(
    {
      add_e: {
        input: ids(0),
        label: 'X',
        to: { ids: [1] },
        properties: [
          ['k', s('a')],
          ['k', s('b')],
        ],
      },
    },
    'duplicate_property_assignment',
    at('.add_e.properties[1]'),
  );
  await badRead(
    {
      project: { input: ids(0), projections: [{ property: { source: 'name', alias: 'n' } }, { expr: { alias: 'n', expr: prop('age') } }] },
    },
    'duplicate_projection_alias',
    at('.project.projections[1]'),
  );
  await badRead(
    {
      order_by_multiple: {
        input: ids(0),
        orderings: [
          ['age', 'asc'],
          ['name', 'asc'],
          ['age', 'desc'],
        ],
      },
    },
    'duplicate_order_key',
    at('.order_by_multiple.orderings[2]'),
  );
  await badRead(ids(0, 1, 0), 'duplicate_element_id', /entries\[0\]\.query\.root\.nodes\.reference/);
  await badRead(
    { value_map: { input: ids(0), properties: ['name', 'name'] } },
    'duplicate_property_selection',
    at('.value_map.properties[1]'),
  );
  await badRead(
    { values: { input: ids(0), properties: ['age', 'name', 'age'] } },
    'duplicate_property_selection',
    at('.values.properties[2]'),
  );
});

test('non-positive and inverted bounds: range, negative constants, repeat and shortest_path counts', async () => {
  await badRead({ range: { input: ids(0), start: { literal: 3 }, end: { literal: 1 } } }, 'invalid_stream_range', at('.range'));
  await badRead(
    { limit: { input: ids(0), count: { expr: { constant: { i64: -1 } } } } },
    'invalid_stream_bound_expression',
    at('.limit.count'),
  );
  await badRead(
    { skip: { input: ids(0), count: { expr: { constant: { string: '1' } } } } },
    'invalid_stream_bound_expression',
    at('.skip.count'),
  );
  await badRead({ limit: { input: ids(0), count: { literal: -1 } } }, 'invalid_query_json', at('.limit.count'));
  const rep = (config: Record<string, unknown>) => ({
    repeat: { input: ids(0), config: { traversal: sub(out(ctx)), emit: 'none', max_depth: 5, ...config } },
  });
  await badRead(rep({ times: 0 }), 'invalid_repeat_count', at('.repeat.config.times'));
  await badRead(rep({ max_depth: 0 }), 'invalid_repeat_count', at('.repeat.config.max_depth'));
  await badRead(
    { shortest_path: { source: { ids: [0] }, target: { ids: [1] }, direction: 'out', max_depth: 0 } },
    'invalid_shortest_path_count',
    at('.shortest_path.max_depth'),
  );
  // A parameter bound is checked when it runs: a negative value is still a 400.
  await badRead({ limit: { input: ids(0), count: { expr: { param: 'n' } } } }, 'invalid_query', at('.limit.count'), { n: -2 });
  await badRead({ range: { input: ids(0), start: { expr: { param: 's' } }, end: { literal: 1 } } }, 'invalid_stream_range', at('.range'), {
    s: 4,
  });
});

test('unknown variables: statically unbound is unknown_variable; bound by a skipped entry is invalid_query', async () => {
  await badRead({ select: { input: ids(0), name: 'v' } }, 'unknown_variable', at('.select.name'));
  await badRead({ inject: { variable: 'v' } }, 'unknown_variable', at('.inject.variable'));
  await badRead({ within: { input: ids(0), variable: 'v' } }, 'unknown_variable', at('.within.variable'));
  await badRead({ without: { input: ids(0), variable: 'v' } }, 'unknown_variable', at('.without.variable'));
  await badRead({ nodes: { reference: { var: 'v' } } }, 'unknown_variable', at('.nodes.reference.var'));
  await bad('read', [q('c', ids(0), { var_empty: 'nope' })], 'unknown_variable', /entries\[0\]\.query\.condition/);
  const skipped = [q('none', ids()), q('v', ids(0), 'prev_not_empty')];
  await bad(
    'read',
    [...skipped, q('r', { within: { input: ids(0), variable: 'v' } })],
    'invalid_query',
    /entries\[2\]\.query\.root\.within.*"v" is not bound/,
  );
  await bad(
    'read',
    [...skipped, q('r', { without: { input: ids(0), variable: 'v' } })],
    'invalid_query',
    /entries\[2\]\.query\.root\.without.*"v" is not bound/,
  );
  await bad('read', [...skipped, q('r', { inject: { variable: 'v' } })], 'invalid_query', /entries\[2\]\.query\.root.*"v" is not bound/);
  await bad(
    'write',
    [...skipped, q('r', { add_e: { input: ids(0), label: 'L', to: { var: 'v' }, properties: [] } })],
    'invalid_query',
    /entries\[2\]\.query\.root\.add_e\.to.*"v" is not bound/,
  );
  // An unbound variable as a plain source is an empty stream, not an error.
  assert.deepEqual(await t.read([...skipped, q('r', { nodes: { reference: { var: 'v' } } })], ['r']), { r: [] });
});

test('comparisons against stored values of another kind are false; known operands without an order are a 400', async () => {
  const keep = async (predicate: unknown) =>
    (await t.read([q('r', { id: { input: { where: { input: ids(0, 1), predicate } } } })], ['r'])).r;
  for (const op of ['gt', 'gte', 'lt', 'lte']) {
    // A property may hold any kind, so these run and simply do not match.
    assert.deepEqual(await keep({ [op]: { left: prop('name'), right: ci(1) } }), [], `${op} string vs i64`);
    assert.deepEqual(await keep({ [op]: { left: ci(1), right: prop('name') } }), [], `${op} i64 vs string`);
    assert.deepEqual(await keep({ [op]: { left: prop('missing'), right: ci(0) } }), [], `${op} missing vs i64`);
    assert.deepEqual(await keep({ [op]: { left: prop('age'), right: { constant: { date_time: 0 } } } }), [], `${op} i64 vs date_time`);
    assert.deepEqual(await keep({ [op]: { left: prop('ok'), right: prop('age') } }), [], `${op} bool property vs i64 property`);
    // An operand known before execution that has no order can never match: a client bug.
    await badRead(
      { where: { input: ids(0), predicate: { [op]: { left: prop('ok'), right: { constant: { bool: false } } } } } },
      'incompatible_comparison',
      at(`.where.predicate.${op}.right`),
    );
    await badRead(
      { where: { input: ids(0), predicate: { [op]: { left: { constant: 'null' }, right: prop('age') } } } },
      'incompatible_comparison',
      at(`.where.predicate.${op}.left`),
    );
    await badRead(
      { where: { input: ids(0), predicate: { [op]: { left: ci(1), right: cs('1') } } } },
      'incompatible_comparison',
      at(`.where.predicate.${op}`),
    );
  }
  await badRead(
    { where: { input: ids(0), predicate: { between: { value: prop('age'), min: ci(1), max: { constant: { string_array: ['z'] } } } } } },
    'incompatible_comparison',
    at('.where.predicate.between.max'),
  );
  await badRead(
    { where: { input: ids(0), predicate: { gt: { left: prop('age'), right: { param: 'p' } } } } },
    'incompatible_comparison',
    at('.where.predicate.gt.right'),
    { p: true },
  );
  await badRead(
    { where: { input: ids(0), predicate: { starts_with: { value: prop('name'), prefix: ci(3) } } } },
    'incompatible_comparison',
    at('.where.predicate.starts_with.prefix'),
  );
  await badRead(
    { where: { input: ids(0), predicate: { contains: { value: { constant: { string_array: ['a'] } }, substring: cs('a') } } } },
    'incompatible_comparison',
    at('.where.predicate.contains.value'),
  );
  // Their negation therefore keeps every row, and starts_with on a non-string property is false.
  assert.deepEqual(await keep({ not: { predicate: { gt: { left: prop('name'), right: ci(1) } } } }), [0, 1]);
  assert.deepEqual(await keep({ starts_with: { value: prop('age'), prefix: cs('3') } }), []);
  assert.deepEqual(
    (
      await t.read(
        [q('r', { count: { input: { nodes_where: { predicate: { lt: { left: prop('name'), right: { constant: { f64: 1.5 } } } } } } } })],
        ['r'],
      )
    ).r,
    [0],
  );
  // eq and neq compare any kinds.
  assert.deepEqual(await keep({ eq: { left: prop('ok'), right: { constant: { bool: true } } } }), [0]);
  assert.deepEqual(await keep({ neq: { left: prop('age'), right: { constant: 'null' } } }), [0]);
});

test('deep and wide requests: JSON nesting, operation nesting, entries, branches, plan size, repeat and shortest_path depth', async () => {
  const nest = (n: number) => {
    let deep: unknown = ids(0);
    for (let k = 0; k < n; k++) deep = out(deep);
    return deep;
  };
  // 300 chained steps nest JSON 600+ levels: refused as the request is read, before any plan
  // exists (this embedded request is an object; test/http covers the text's parser).
  await bad(
    'read',
    [q('r', nest(300))],
    'limit_exceeded',
    /^the request object nests arrays and objects deeper than 255 levels at query\.read\.entries\[0\]\.query\.root\.out\.input\.out/,
    { returns: ['r'] },
  );
  // The same request as text: the JSON reader refuses it, naming the line and column.
  const text = JSON.stringify({ request_type: 'read', query: { read: { entries: [q('r', nest(300))], returns: ['r'] } } });
  await assert.rejects(t.db.query(text), { code: 'limit_exceeded', msg: /^JSON nesting deeper than 255 levels at line 1 column \d+$/ });
  // 110 steps fit the JSON limit but not the operation nesting limit of 100.
  await bad(
    'read',
    [q('r', nest(110))],
    'limit_exceeded',
    /entries\[0\]\.query\.root(\.out\.input){101}\.out: operations nest deeper than 100 levels/,
    { returns: ['r'] },
  );
  assert.deepEqual(await t.read([q('r', { count: { input: nest(99) } })], ['r']), { r: [0] });
  const many = Array.from({ length: 10_001 }, () => q(null, ids(0)));
  await bad('read', many, 'limit_exceeded', /entries\[10000\]\.query: a batch may hold at most 10000 entries/);
  const branches = Array.from({ length: 1001 }, () => sub(ctx));
  await badRead({ union: { input: ids(0), traversals: branches } }, 'limit_exceeded', at('.union.traversals'));
  const wide = {
    where: {
      input: ids(0),
      predicate: { or: { predicates: Array.from({ length: 50_000 }, () => ({ eq: { left: prop('age'), right: ci(1) } })) } },
    },
  };
  await badRead(wide, 'limit_exceeded', /at most 100000 operations, predicates and expressions/);
  await badRead(
    { repeat: { input: ids(0), config: { traversal: sub(out(ctx)), emit: 'none', max_depth: 10_001 } } },
    'limit_exceeded',
    at('.repeat.config.max_depth'),
  );
  await badRead(
    { shortest_path: { source: { ids: [0] }, target: { ids: [1] }, direction: 'out', max_depth: 10_001 } },
    'limit_exceeded',
    at('.shortest_path.max_depth'),
  );
});

test('for_each loops past the per-request iteration limit are limit_exceeded', async () => {
  // 1001 outer x 1000 inner iterations of an empty read: just over the 1,000,000 limit.
  const inner = Array.from({ length: 1000 }, () => ({}));
  const rows = Array.from({ length: 1001 }, () => ({}));
  await bad(
    'read',
    [{ for_each: { param: 'rows', body: [{ for_each: { param: 'inner', body: [q(null, ids())] } }] } }],
    'limit_exceeded',
    /entries\[0\]\.for_each\.body\[0\]\.for_each\.param/,
    { params: { rows, inner } },
  );
});

test('over HTTP: bad input is a 400 with exactly {error, msg} and the msg names the place', async () => {
  const dir = tempDir('trellis-bad-http-');
  let server: TestServer | undefined;
  try {
    server = await startTestServer(['--data', dir.path]);
    const url = `${server.url}/v2/query`;
    const check = async (body: unknown, code: string, where: RegExp) => {
      const res = await post(url, body);
      assert.equal(res.status, 400, res.text);
      assert.deepEqual(Object.keys(res.body).sort(), ['error', 'msg']);
      assert.equal(res.body.error, code, res.text);
      assert.match(res.body.msg, where);
    };
    await check(
      readRequest([q('r', { union: { input: ids(0), traversals: [sub(ctx)] } })], ['r']),
      'invalid_branch_arity',
      at('.union.traversals'),
    );
    await check(readRequest([q('r', { count: { input: { drop: { input: ids(0) } } } })]), 'mutation_in_read_batch', at('.count.input'));
    await check(readRequest([q('r', { frobnicate: {} })]), 'invalid_query_json', /frobnicate/);
    await check(writeRequest([q('r', { bind: { input: ids(0), name: 'x' } })]), 'read_only_traversal_in_write_batch', new RegExp(ROOT));
    await check(readRequest([q('r', { within: { input: ids(0), variable: 'v' } })]), 'unknown_variable', at('.within.variable'));
    await check(readRequest([q('r', ids(0))], ['r', 'r']), 'duplicate_return_variable', /returns\[1\]/);
    let deep: unknown = ids(0);
    for (let k = 0; k < 300; k++) deep = out(deep);
    const res = await post(url, readRequest([q('r', deep)], ['r']));
    assert.equal(res.status, 400, res.text);
    assert.equal(res.body.error, 'limit_exceeded');
    // Runtime client mistakes are 400 as well.
    await check(
      { ...(readRequest([q('r', { limit: { input: ids(0), count: { expr: { param: 'n' } } } })]) as object), parameters: { n: -1 } },
      'invalid_query',
      at('.limit.count'),
    );
  } finally {
    await server?.stop();
    dir.remove();
  }
});

test('labels and property names longer than 512 bytes are limit_exceeded where they are written; a read for a long label finds nothing', async () => {
  const long = 'é'.repeat(257); // 514 bytes of UTF-8
  await badWrite({ add_n: { label: long, properties: [] } }, 'limit_exceeded', at('.add_n.label'));
  await badWrite({ add_e: { input: ids(0), label: long, to: { ids: [1] }, properties: [] } }, 'limit_exceeded', at('.add_e.label'));
  await badWrite(
    { set_property: { input: ids(0), name: '$label', value: { value: { string: long } } } },
    'limit_exceeded',
    at('.set_property.value'),
  );
  await badRead({ has_label: { input: ids(0), label: long } }, 'limit_exceeded', at('.has_label.label'));
  await badWrite({ add_n: { label: 'X', properties: [[long, s('v')]] } }, 'limit_exceeded', at('.add_n.properties[0][0]'));
  await badWrite({ set_property: { input: ids(0), name: long, value: s('v') } }, 'limit_exceeded', at('.set_property.name'));
  const longer = 'x'.repeat(3000);
  const byLabel = { count: { input: { nodes_where: { predicate: { eq: { left: prop('$label'), right: cs(longer) } } } } } };
  assert.deepEqual(await t.read([q('r', byLabel)], ['r']), { r: [0] });
  // 512 bytes exactly is fine.
  const ok = await t.write([q('r', { label: { input: { add_n: { label: 'é'.repeat(256), properties: [] } } } })], ['r']);
  assert.deepEqual(ok, { r: ['é'.repeat(256)] });
  await t.write(
    [q(null, { drop: { input: { nodes_where: { predicate: { eq: { left: prop('$label'), right: cs('é'.repeat(256)) } } } } } })],
    [],
  );
});

test('an object key "__proto__" is refused in values and parameters instead of being renamed', async () => {
  const withProto = JSON.parse('{"object":{"__proto__":{"i64":1}}}');
  assert.deepEqual(Object.keys(withProto.object), ['__proto__']);
  await badWrite(
    { add_n: { label: 'X', properties: [['o', { value: withProto }]] } },
    'invalid_query_json',
    at('.add_n.properties[0][1].value.object'),
  );
  const text =
    '{"request_type":"read","query":{"read":{"entries":[{"query":{"name":"r","root":{"count":{"input":{"nodes":{"reference":"all"}}}}}}],"returns":["r"]}},"parameters":{"p":{"__proto__":1}}}';
  await assert.rejects(
    t.db.queryText(text),
    (err: unknown) =>
      err instanceof GraphError && err.code === 'invalid_query_json' && /parameters\.p: an object key cannot be "__proto__"/.test(err.msg),
  );
});

test('a mutation target naming a variable that is not bound yet is an error, not a silent no-op', async () => {
  const entries = [q(null, { drop_edge: { input: ids(0), to: { var: 'later' } } }), q('later', ids(1))];
  await bad('write', entries, 'invalid_query', /entries\[0\]\.query\.root\.drop_edge\.to: variable "later" is not bound/);
  await bad(
    'write',
    [q(null, { drop_edge_by_id: { edges: { var: 'later' } } }), q('later', { edges: { reference: 'all' } })],
    'invalid_query',
    /drop_edge_by_id\.edges: variable "later" is not bound/,
  );
  // Nothing was deleted by the failed batches.
  assert.deepEqual(await t.read([q('r', { count: { input: { edges: { reference: 'all' } } } })], ['r']), { r: [1] });
});
