/**
 * Conformance: every expression form (reference §4.3, §6.2) with the exact JSON text it
 * prints, read through `project` expression items with `db.queryText`.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { atPath, ci, cs, i, idRows, ids, openTestDb, prop, q, rejects400, requestText, s, type TestDb } from '../helpers/embedded.js';
import { GraphError } from '../../src/core/errors.js';

let t: TestDb;

const cf = (v: number) => ({ constant: { f64: v } });
const add = (left: unknown, right: unknown) => ({ add: { left, right } });
const subtract = (left: unknown, right: unknown) => ({ sub: { left, right } });
const mul = (left: unknown, right: unknown) => ({ mul: { left, right } });
const div = (left: unknown, right: unknown) => ({ div: { left, right } });
const mod = (left: unknown, right: unknown) => ({ mod: { left, right } });
const neg = (expr: unknown) => ({ neg: { expr } });

const I64_MAX = 9223372036854775807n;
const I64_MIN = -9223372036854775808n;

/*
 * Node 0 (X): a 4, b 1, x 2.5, z 0, fz 0.0, s "str", big i64::MAX, min i64::MIN, tiny f32 0.1,
 *             obj {inner: {deep "v", n 7}, list [1] (i64_array)}, "dot.ted" "direct", dot {ted "walked"}
 * Node 1 (X): a -3, s "other"
 * Edge 0: 0 -L-> 1 {w 5}
 */
before(async () => {
  t = await openTestDb();
  const made = await t.write(
    [
      q('n0', {
        add_n: {
          label: 'X',
          properties: [
            ['a', i(4)],
            ['b', i(1)],
            ['x', { value: { f64: 2.5 } }],
            ['z', i(0)],
            ['fz', { value: { f64: 0 } }],
            ['s', s('str')],
            ['big', { value: { i64: I64_MAX } }],
            ['min', { value: { i64: I64_MIN } }],
            ['tiny', { value: { f32: 0.1 } }],
            ['obj', { value: { object: { inner: { object: { deep: { string: 'v' }, n: { i64: 7 } } }, list: { i64_array: [1] } } } }],
            ['dot.ted', s('direct')],
            ['dot', { value: { object: { ted: { string: 'walked' } } } }],
          ],
        },
      }),
      q('n1', {
        add_n: {
          label: 'X',
          properties: [
            ['a', i(-3)],
            ['s', s('other')],
          ],
        },
      }),
      q('e', { add_e: { input: { nodes: { reference: { var: 'n0' } } }, label: 'L', to: { var: 'n1' }, properties: [['w', i(5)]] } }),
    ],
    ['n0', 'n1', 'e'],
  );
  assert.deepEqual(made, { n0: idRows(0), n1: idRows(1), e: idRows(0) });
});
after(() => t.close());

const project = (input: unknown, items: [string, unknown][]) => ({
  project: { input, projections: items.map(([alias, expr]) => ({ expr: { alias, expr } })) },
});
const text = (root: unknown, parameters?: Record<string, unknown>) =>
  t.db.queryText(requestText('read', [q('r', root)], ['r'], parameters));

/** The JSON text of one expression evaluated on one row (node 0 unless told). */
async function one(expr: unknown, input: unknown = ids(0), parameters?: Record<string, unknown>): Promise<string> {
  const body = await text(project(input, [['v', expr]]), parameters);
  const m = /^\{"r":\[\{"v":(.*)\}\]\}$/s.exec(body);
  assert.ok(m, `unexpected response ${body}`);
  return m[1]!;
}

const PROJ0 = '.project.projections[0]';
const badExpr = (expr: unknown, code: string, parameters?: Record<string, unknown>) =>
  rejects400(t.read([q('r', project(ids(0), [['v', expr]]))], ['r'], parameters), code, atPath(PROJ0));

// timestamp and date_time_now

test('timestamp is the current epoch milliseconds as an i64', async () => {
  const before = Date.now();
  const v = await one('timestamp');
  const after = Date.now();
  assert.match(v, /^\d+$/, 'an integer token, not a float');
  const ms = Number(v);
  assert.ok(ms >= before && ms <= after, `${ms} not within [${before}, ${after}]`);
});

test('date_time_now is the current time, printed as RFC 3339 UTC with milliseconds', async () => {
  const before = Date.now();
  const v = await one('date_time_now');
  const after = Date.now();
  assert.match(v, /^"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z"$/);
  const ms = Date.parse(JSON.parse(v));
  assert.ok(ms >= before && ms <= after, `${v} not within [${before}, ${after}]`);
});

test('timestamp and date_time_now are one instant for the whole request (docs/queries.md)', async () => {
  const body = await text(
    project(ids(0, 1), [
      ['t', 'timestamp'],
      ['d', 'date_time_now'],
    ]),
  );
  const m = /^\{"r":\[\{"t":(\d+),"d":"([^"]+)"\},\{"t":(\d+),"d":"([^"]+)"\}\]\}$/.exec(body);
  assert.ok(m, body);
  assert.equal(m[1], m[3]);
  assert.equal(m[2], m[4]);
  assert.equal(Date.parse(m[2]!), Number(m[1]));
  // A date_time_now is a real date_time: it compares with stored date_times.
  const res = await t.read(
    [
      q('r', {
        id: { input: { where: { input: ids(0), predicate: { gt: { left: 'date_time_now', right: { constant: { date_time: 0 } } } } } } },
      }),
    ],
    ['r'],
  );
  assert.deepEqual(res, { r: [0] });
});

// Arithmetic

test('add, sub, mul and div always yield f64: 4 + 1 prints 5.0', async () => {
  assert.equal(await one(add(ci(4), ci(1))), '5.0');
  assert.equal(await one(add(prop('a'), prop('b'))), '5.0');
  assert.equal(await one(add(prop('a'), prop('x'))), '6.5');
  assert.equal(await one(subtract(prop('a'), prop('b'))), '3.0');
  assert.equal(await one(subtract(prop('b'), prop('a'))), '-3.0');
  assert.equal(await one(mul(prop('a'), prop('x'))), '10.0');
  assert.equal(await one(mul(prop('a'), prop('b'))), '4.0');
  assert.equal(await one(div(prop('a'), prop('b'))), '4.0');
  assert.equal(await one(div(prop('b'), prop('a'))), '0.25');
  assert.equal(await one(div(prop('a'), prop('x'))), '1.6');
  assert.equal(await one(add(prop('tiny'), prop('z'))), '0.10000000149011612', 'an f32 operand widens to f64');
  assert.equal(await one(add(cf(0.5), { param: 'p' }), ids(0), { p: 2 }), '2.5');
  assert.equal(await one(mul(add(prop('a'), ci(1)), subtract(ci(10), prop('b')))), '45.0', 'nested');
});

test('division by zero gives infinity or NaN, printed as null', async () => {
  assert.equal(await one(div(prop('a'), prop('z'))), 'null');
  assert.equal(await one(div(neg(prop('a')), prop('z'))), 'null');
  assert.equal(await one(div(prop('z'), prop('z'))), 'null');
  assert.equal(await one(div(prop('a'), prop('fz'))), 'null');
  assert.equal(await one(div(prop('x'), ci(0))), 'null');
});

test('arithmetic on a non-number is a 400 invalid_query', async () => {
  await badExpr(add(prop('s'), ci(1)), 'invalid_query');
  await badExpr(mul(ci(2), prop('missing')), 'invalid_query');
  await badExpr(subtract(ci(2), { constant: { bool: true } }), 'invalid_query');
  await badExpr(div(ci(2), { constant: { i64_array: [1] } }), 'invalid_query');
});

test('mod takes two i64 and yields an i64 with the sign of the dividend', async () => {
  assert.equal(await one(mod(ci(7), ci(3))), '1');
  assert.equal(await one(mod(ci(-7), ci(3))), '-1');
  assert.equal(await one(mod(ci(7), ci(-3))), '1');
  assert.equal(await one(mod(prop('a'), prop('b'))), '0');
  assert.equal(await one(mod(prop('big'), ci(10))), '7', 'exact beyond 2^53');
  assert.equal(await one(mod(prop('min'), ci(10))), '-8');
});

test('mod by zero and mod of a non-i64 are 400 invalid_query', async () => {
  await badExpr(mod(prop('a'), prop('z')), 'invalid_query');
  await badExpr(mod(ci(4), ci(0)), 'invalid_query');
  await badExpr(mod(prop('x'), ci(2)), 'invalid_query');
  await badExpr(mod(ci(4), cf(2)), 'invalid_query');
  await badExpr(mod(prop('s'), ci(2)), 'invalid_query');
});

test('neg: i64 stays i64, f64 stays f64, f32 widens', async () => {
  assert.equal(await one(neg(prop('a'))), '-4');
  assert.equal(await one(neg(prop('x'))), '-2.5');
  assert.equal(await one(neg(cf(3))), '-3.0');
  assert.equal(await one(neg(ci(0))), '0');
  assert.equal(await one(neg(cf(0))), '-0.0', 'negative zero keeps its sign');
  assert.equal(await one(neg(neg(prop('a')))), '4');
  assert.equal(await one(neg(prop('big'))), '-9223372036854775807');
  assert.equal(await one(neg(prop('tiny'))), '-0.10000000149011612');
  assert.equal(await one(neg(add(ci(1), ci(2)))), '-3.0');
});

test('neg of a non-number is a 400 invalid_query', async () => {
  await badExpr(neg(prop('s')), 'invalid_query');
  await badExpr(neg(prop('missing')), 'invalid_query');
  await badExpr(neg({ constant: { bool: true } }), 'invalid_query');
});

test('neg of i64::MIN overflows: 400 invalid_query', async () => {
  await badExpr(neg(prop('min')), 'invalid_query');
  await badExpr(neg({ constant: { i64: I64_MIN } }), 'invalid_query');
});

// case

test('case: the first matching branch wins; else_expr when none matches', async () => {
  const sign = {
    case: {
      when_then: [
        { when: { gt: { left: prop('a'), right: ci(0) } }, then: cs('pos') },
        { when: { gt: { left: prop('a'), right: ci(1) } }, then: cs('big') },
        { when: { lt: { left: prop('a'), right: ci(0) } }, then: cs('neg') },
      ],
      else_expr: cs('zero'),
    },
  };
  assert.equal(await text(project(ids(0, 1), [['v', sign]])), '{"r":[{"v":"pos"},{"v":"neg"}]}');
  const computed = {
    case: { when_then: [{ when: { eq: { left: prop('s'), right: cs('str') } }, then: mul(prop('a'), ci(2)) }], else_expr: prop('a') },
  };
  assert.equal(await text(project(ids(0, 1), [['v', computed]])), '{"r":[{"v":8.0},{"v":-3}]}');
});

test('case without else_expr (or with else_expr null) is null when no branch matches', async () => {
  const positive = { when: { gt: { left: prop('a'), right: ci(0) } }, then: cs('pos') };
  assert.equal(await text(project(ids(0, 1), [['v', { case: { when_then: [positive] } }]])), '{"r":[{"v":"pos"},{"v":null}]}');
  assert.equal(
    await text(project(ids(0, 1), [['v', { case: { when_then: [positive], else_expr: null } }]])),
    '{"r":[{"v":"pos"},{"v":null}]}',
  );
});

// constant, param, id

test('constant yields the literal, printed untagged', async () => {
  assert.equal(await one(cs('k')), '"k"');
  assert.equal(await one(ci(7)), '7');
  assert.equal(await one(cf(7)), '7.0');
  assert.equal(await one({ constant: 'null' }), 'null');
  assert.equal(await one({ constant: { bool: false } }), 'false');
  assert.equal(await one({ constant: { date_time: 0 } }), '"1970-01-01T00:00:00.000Z"');
  assert.equal(await one({ constant: { i64_array: [1, 2] } }), '[1,2]');
  assert.equal(await one({ constant: { i64: I64_MIN } }), '-9223372036854775808');
});

test('param yields the parameter value; an unbound parameter is a 400 invalid_query naming the place', async () => {
  assert.equal(await one({ param: 'p' }, ids(0), { p: 5 }), '5');
  assert.equal(await one({ param: 'p' }, ids(0), { p: 2.5 }), '2.5');
  assert.equal(await one({ param: 'p' }, ids(0), { p: 'p' }), '"p"');
  assert.equal(await one({ param: 'p' }, ids(0), { p: [1, 'a', null] }), '[1,"a",null]');
  assert.equal(await one({ param: 'p' }, ids(0), { p: { k: [true] } }), '{"k":[true]}');
  assert.equal(await one({ param: 'p' }, ids(0), { p: null }), 'null');
  // A float token stays a float even when it is integral.
  const body = await t.db.queryText(
    `{"request_type":"read","query":{"read":{"entries":[{"query":{"name":"r","root":{"project":{"input":{"nodes":{"reference":{"ids":[0]}}},` +
      `"projections":[{"expr":{"alias":"v","expr":{"param":"p"}}}]}}}}],"returns":["r"]}},"parameters":{"p":2.0}}`,
  );
  assert.equal(body, '{"r":[{"v":2.0}]}');
  await rejects400(
    t.read([q('r', project(ids(0), [['v', { param: 'nope' }]]))], ['r']),
    'invalid_query',
    atPath(`${PROJ0}.expr.expr.param`),
  );
});

test('id yields the current element id as an i64, for nodes and edges', async () => {
  assert.equal(await text(project(ids(1, 0), [['v', 'id']])), '{"r":[{"v":1},{"v":0}]}');
  assert.equal(await one('id', { edges: { reference: 'all' } }), '0');
  assert.equal(await one(add('id', ci(1)), ids(1)), '2.0');
  assert.deepEqual(
    await t.read(
      [q('r', { id: { input: { where: { input: { nodes: { reference: 'all' } }, predicate: { eq: { left: 'id', right: ci(1) } } } } } })],
      ['r'],
    ),
    { r: [1] },
  );
});

// property

test('property with a dotted path walks into object values; anything unresolvable is null', async () => {
  assert.equal(await one(prop('obj.inner.deep')), '"v"');
  assert.equal(await one(prop('obj.inner.n')), '7');
  assert.equal(await one(prop('obj.inner')), '{"deep":"v","n":7}');
  assert.equal(await one(prop('obj.list')), '[1]');
  assert.equal(await one(prop('obj.list.0')), 'null', 'no array indexing');
  assert.equal(await one(prop('obj.missing')), 'null');
  assert.equal(await one(prop('obj.inner.deep.more')), 'null', 'a string has no fields');
  assert.equal(await one(prop('s.length')), 'null');
  assert.equal(await one(prop('missing.x')), 'null');
  assert.equal(await one(add(prop('obj.inner.n'), ci(1))), '8.0');
});

test('a stored property whose name contains a dot wins over the dotted path', async () => {
  assert.equal(await one(prop('dot.ted')), '"direct"');
  assert.equal(await one(prop('dot')), '{"ted":"walked"}');
});

test('property on edges: $from/$to ids and dotted paths through the endpoint nodes', async () => {
  const e = { edges: { reference: 'all' } };
  assert.equal(
    await text(
      project(e, [
        ['from', prop('$from')],
        ['to', prop('$to')],
        ['w', prop('w')],
        ['fs', prop('$from.s')],
        ['ta', prop('$to.a')],
        ['fid', prop('$from.$id')],
        ['deep', prop('$from.obj.inner.deep')],
        ['lbl', prop('$label')],
        ['none', prop('$to.obj')],
      ]),
    ),
    '{"r":[{"from":0,"to":1,"w":5,"fs":"str","ta":-3,"fid":0,"deep":"v","lbl":"L","none":null}]}',
  );
});

test('project property items are omitted when missing; expr items are always present', async () => {
  const body = await text({
    project: {
      input: ids(0, 1),
      projections: [
        { property: { source: 'obj.inner.n', alias: 'n' } },
        { expr: { alias: 'e', expr: prop('obj.inner.n') } },
        { property: { source: 'x', alias: 'x' } },
      ],
    },
  });
  assert.equal(body, '{"r":[{"n":7,"e":7,"x":2.5},{"e":null}]}');
});

// math (a Trellis extension; the query language's POW, ROUND, SUM...)

const math = (fn: string, ...args: unknown[]) => ({ math: { function: fn, args } });

test('math functions: every result a float, ROUND half away from zero, LOG of a base, a domain error null', async () => {
  assert.equal(await one(math('pow', prop('a'), ci(2))), '16.0');
  assert.equal(await one(math('round', cf(2.5))), '3.0');
  assert.equal(await one(math('round', cf(-2.5))), '-3.0', 'half away from zero, as Rust (Math.round gives -2)');
  assert.equal(await one(math('round', cf(-2.4))), '-2.0');
  assert.equal(await one(math('log', ci(8), ci(2))), '3.0');
  assert.equal(await one(math('ln', math('e'))), '1.0');
  assert.equal(await one(math('min', prop('a'), prop('x'))), '2.5');
  assert.equal(await one(math('max', prop('a'), prop('x'))), '4.0');
  assert.equal(await one(math('abs', prop('a')), ids(1)), '3.0');
  assert.equal(await one(math('sqrt', ci(-1))), 'null');
});

test('math over a list: SUM, AVG and COUNT of an array, a scalar counting as one, COUNT of null 0', async () => {
  const list = { constant: { i64_array: [1, 2, 6] } };
  assert.equal(await one(math('sum', list)), '9.0');
  assert.equal(await one(math('avg', list)), '3.0');
  assert.equal(await one(math('count', list)), '3.0');
  assert.equal(await one(math('sum', prop('a'))), '4.0');
  assert.equal(await one(math('count', prop('a'))), '1.0');
  assert.equal(await one(math('count', prop('nope'))), '0.0');
});

// cast (a Trellis extension; the query language's migrations cast with it: `age AS U32`)

const cast = (expr: unknown, to: string) => ({ cast: { expr, to } });

test('cast to integers: integers in range as they are, floats truncated toward zero, null stays null', async () => {
  assert.equal(await one(cast(prop('a'), 'u8')), '4');
  assert.equal(await one(cast(prop('a'), 'i8'), ids(1)), '-3');
  assert.equal(await one(cast(cf(2.9), 'i32')), '2');
  assert.equal(await one(cast(cf(-2.9), 'i64')), '-2');
  assert.equal(await one(cast(prop('big'), 'u64')), '9223372036854775807');
  assert.equal(await one(cast(prop('nope'), 'u32')), 'null');
});

test('cast to floats and strings; strings and date-times to date_time', async () => {
  assert.equal(await one(cast(prop('a'), 'f64')), '4.0');
  assert.equal(await one(cast(prop('x'), 'f32')), '2.5');
  assert.equal(await one(cast(prop('tiny'), 'f64')), await one(prop('tiny')));
  assert.equal(await one(cast(prop('a'), 'string')), '"4"');
  assert.equal(await one(cast(prop('x'), 'string')), '"2.5"');
  assert.equal(await one(cast(cf(3), 'string')), '"3"');
  assert.equal(await one(cast({ constant: { bool: true } }, 'string')), '"true"');
  assert.equal(await one(cast(prop('s'), 'string')), '"str"');
  assert.equal(await one(cast(cs('2024-02-03'), 'date_time')), '"2024-02-03T00:00:00.000Z"');
  assert.equal(await one(cast(cs('2024-02-03T10:00:00+02:00'), 'date_time')), '"2024-02-03T08:00:00.000Z"');
  assert.equal(await one(cast(cast(cs('2024-02-03'), 'date_time'), 'string')), '"2024-02-03T00:00:00.000Z"');
});

test('a value that cannot cast is 400 invalid_query naming the value and its element; an unknown target invalid_query_json', async () => {
  const cannot = (expr: unknown, input: unknown, what: RegExp) =>
    assert.rejects(t.read([q('r', project(input, [['v', expr]]))], ['r']), (err: unknown) => {
      assert.ok(err instanceof GraphError, String(err));
      assert.equal(err.code, 'invalid_query');
      assert.match(err.msg, what);
      return true;
    });
  await cannot(cast(prop('a'), 'u32'), ids(1), /cannot cast -3 \(node 1\) to u32: out of its range, 0 to 4294967295/);
  await cannot(cast(prop('big'), 'i32'), ids(0), /cannot cast 9223372036854775807 \(node 0\) to i32/);
  await cannot(cast(prop('s'), 'i64'), ids(0), /cannot cast "str" \(node 0\) to i64: only numbers/);
  await cannot(cast(prop('s'), 'date_time'), ids(0), /cannot cast "str" \(node 0\) to date_time: it is not a date/);
  await cannot(cast(prop('obj'), 'string'), ids(0), /cannot cast an object \(node 0\) to string/);
  await cannot(cast(cf(1e300), 'f32'), ids(0), /to f32: out of its range/);
  await badExpr(cast(prop('a'), 'u128'), 'invalid_query_json');
});
