/** The ordering guarantees (reference §9 table, §5.4, D10), each on data built to tell orders apart. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ids, label, openTestDb, q, s, type TestDb } from '../helpers/embedded.js';

let t: TestDb;

/*
 * S nodes 0..5, created in order; node 6 is created and dropped, node 7+ come after.
 * Edges from node 0 are added to 5, 4, 3 (ids e0, e1, e2), then 1 -> 3 (e3), 0 -> 5 again (e4).
 * O nodes (label O) carry the sort values below.
 */
before(async () => {
  t = await openTestDb();
  const n = (l: string, props: unknown[] = []) => ({ add_n: { label: l, properties: props } });
  const e = (from: number, to: number, l = 'L') => ({ add_e: { input: ids(from), label: l, to: { ids: [to] }, properties: [] } });
  await t.write([0, 1, 2, 3, 4, 5].map(() => q(null, n('S'))).concat([q(null, n('Gone'))]), []);
  await t.write([q(null, e(0, 5)), q(null, e(0, 4)), q(null, e(0, 3)), q(null, e(1, 3)), q(null, e(0, 5, 'M'))], []);
  await t.write([q(null, { drop: { input: ids(6) } })], []);
  const v = (x: unknown) => ({ value: x });
  const o = (props: [string, unknown][]) =>
    q(
      null,
      n(
        'O',
        props.map(([k, x]) => [k, v(x)]),
      ),
    );
  await t.write(
    [
      o([
        ['k', { i64: 2 }],
        ['s', { string: 'b' }],
        ['g', { i64: 1 }],
      ]), // 7
      o([
        ['s', { string: 'a' }],
        ['g', { i64: 2 }],
      ]), // 8: k missing
      o([
        ['k', { i64: 1 }],
        ['s', { string: 'a' }],
        ['g', { i64: 1 }],
      ]), // 9
      o([
        ['k', { f64: 2.0 }],
        ['s', { string: 'a' }],
        ['g', { i64: 2 }],
      ]), // 10
      o([
        ['s', { string: 'b' }],
        ['g', { i64: 1 }],
      ]), // 11: k missing
    ],
    [],
  );
  await t.write(
    [
      ['string', { string: 'a' }],
      ['i64', { i64: 3 }],
      ['f64', { f64: -1.5 }],
      ['true', { bool: true }],
      ['false', { bool: false }],
      ['null', 'null'],
      ['dt', { date_time: 0 }],
      ['missing', null],
      ['emoji', { string: '\u{1f600}' }],
      ['fullwidth', { string: '\uff5e' }],
    ].map(([name, x]) => q(null, n('M', [['name', s(name as string)], ...(x === null ? [] : [['m', v(x)]])]))),
    [],
  );
});
after(() => t.close());

const read1 = async (root: unknown) => (await t.read([q('r', root)], ['r'])).r;
const idsOf = (root: unknown) => read1({ id: { input: root } });
const orderBy = (input: unknown, property: string, order: 'asc' | 'desc') => ({ order_by: { input, property, order } });
const sub = (root: unknown) => ({ root });

test('nodes all and edges all come in ascending id, dropped ids leave gaps; ids come in the given order', async () => {
  assert.deepEqual(await idsOf(label('S')), [0, 1, 2, 3, 4, 5]);
  const allIds: number[] = await idsOf({ nodes: { reference: 'all' } });
  assert.deepEqual(allIds.slice(0, 7), [0, 1, 2, 3, 4, 5, 7]);
  assert.deepEqual(
    allIds,
    [...allIds].sort((a, b) => a - b),
  );
  assert.deepEqual(await idsOf({ edges: { reference: 'all' } }), [0, 1, 2, 3, 4]);
  assert.deepEqual(await idsOf(ids(5, 0, 3, 42, 1)), [5, 0, 3, 1]);
  assert.deepEqual(await idsOf({ edges: { reference: { ids: [3, 0, 2] } } }), [3, 0, 2]);
});

test('navigation is per input row, neighbours ascending by node id, edges ascending by edge id', async () => {
  // Edges to 5, 4, 3 were created in that order; neighbours still come out ascending.
  assert.deepEqual(await idsOf({ out: { input: ids(0) } }), [3, 4, 5]);
  assert.deepEqual(await idsOf({ out_e: { input: ids(0) } }), [0, 1, 2, 4]);
  assert.deepEqual(await idsOf({ in_n: { input: { in_e: { input: ids(3) } } } }), [0, 1]);
  assert.deepEqual(await idsOf({ out: { input: ids(1, 0) } }), [3, 3, 4, 5]);
  assert.deepEqual(await idsOf({ in: { input: ids(5, 3) } }), [0, 0, 1]);
  assert.deepEqual(await idsOf({ out_n: { input: { out_e: { input: ids(0) } } } }), [5, 4, 3, 5]);
  assert.deepEqual(await idsOf({ both: { input: ids(3) } }), [0, 1]);
});

test('union is row-major; choose puts then-rows before else-rows', async () => {
  const outs = { out: { input: 'context' } };
  assert.deepEqual(
    await idsOf({ union: { input: ids(1, 0, 2), traversals: [sub(outs), sub('context'), sub(outs)] } }),
    [3, 1, 3, 3, 4, 5, 0, 3, 4, 5, 2],
  );
  const isZero = { eq: { left: { property: '$id' }, right: { constant: { i64: 0 } } } };
  assert.deepEqual(
    await idsOf({ choose: { input: ids(2, 0, 1), condition: isZero, then_traversal: sub(outs), else_traversal: sub('context') } }),
    [3, 4, 5, 2, 1],
  );
});

test('order_by: missing first ascending and last descending, ties by element ascending either way, stable', async () => {
  assert.deepEqual(await idsOf(orderBy(label('O'), 'k', 'asc')), [8, 11, 9, 7, 10]);
  assert.deepEqual(await idsOf(orderBy(label('O'), 'k', 'desc')), [7, 10, 9, 8, 11]);
  // Starting from a reversed stream does not change the tie order.
  assert.deepEqual(await idsOf(orderBy(ids(11, 10, 9, 8, 7), 'k', 'desc')), [7, 10, 9, 8, 11]);
  assert.deepEqual(await idsOf(orderBy(ids(11, 10, 9, 8, 7), 's', 'asc')), [8, 9, 10, 7, 11]);
  // The same element on several rows stays together.
  assert.deepEqual(await idsOf(orderBy({ out: { input: ids(0, 1) } }, 'zz', 'desc')), [3, 3, 4, 5]);
  // Nodes before edges on ties, whatever the direction.
  const mixed = { union: { input: ids(1, 0), traversals: [sub({ out_e: { input: 'context' } }), sub('context')] } };
  const expected = [{ $id: 0 }, { $id: 1 }, { $id: 0 }, { $id: 1 }, { $id: 2 }, { $id: 3 }, { $id: 4 }];
  assert.deepEqual(await read1(orderBy(mixed, 'zz', 'asc')), expected);
  assert.deepEqual(await read1(orderBy(mixed, 'zz', 'desc')), expected);
  assert.deepEqual(await read1({ value_map: { input: orderBy(mixed, 'zz', 'asc'), properties: ['$from'] } }), [
    {},
    {},
    { $from: 0 },
    { $from: 0 },
    { $from: 0 },
    { $from: 1 },
    { $from: 0 },
  ]);
});

test('order_by across types: null < bool < number < date_time < string (UTF-8 byte order)', async () => {
  const names = async (order: 'asc' | 'desc') =>
    (await read1({ values: { input: orderBy(label('M'), 'm', order), properties: ['name'] } })).map((x: { name: string }) => x.name);
  const asc = ['missing', 'null', 'false', 'true', 'f64', 'i64', 'dt', 'string', 'fullwidth', 'emoji'];
  assert.deepEqual(await names('asc'), asc);
  assert.deepEqual(await names('desc'), [...asc.slice(1).reverse(), 'missing']);
});

test('order_by_multiple: lexicographic over keys, each with its own direction, ties by element', async () => {
  const om = (input: unknown, orderings: [string, string][]) => idsOf({ order_by_multiple: { input, orderings } });
  assert.deepEqual(
    await om(label('O'), [
      ['g', 'asc'],
      ['k', 'desc'],
    ]),
    [7, 9, 11, 10, 8],
  );
  assert.deepEqual(
    await om(ids(11, 10, 9, 8, 7), [
      ['s', 'desc'],
      ['g', 'asc'],
    ]),
    [7, 11, 9, 8, 10],
  );
  assert.deepEqual(
    await om(ids(11, 10, 9, 8, 7), [
      ['g', 'desc'],
      ['zz', 'asc'],
    ]),
    [8, 10, 7, 9, 11],
  );
  // One key behaves as order_by.
  assert.deepEqual(await om(label('O'), [['k', 'asc']]), await idsOf(orderBy(label('O'), 'k', 'asc')));
});

test('order_by an expression (a Trellis extension) sorts by its value, under a limit or range over a scan too', async () => {
  const byG = { order_by: { input: label('O'), expr: { neg: { expr: { property: 'g' } } }, order: 'asc' } };
  // -g ascending: the g 2 nodes (8, 10) first, then the g 1 nodes, each group stable in id order.
  assert.deepEqual(await idsOf(byG), [8, 10, 7, 9, 11]);
  assert.deepEqual(await idsOf({ limit: { input: byG, count: { literal: 2 } } }), [8, 10]);
  assert.deepEqual(await idsOf({ range: { input: byG, start: { literal: 1 }, end: { literal: 3 } } }), [10, 7]);
});
