/**
 * Conformance: edge_has, edge_has_label, exists, in_e and both_e (reference §5.2, §5.3,
 * §5.6), exact results and order, on a real embedded database.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ci, cs, f, i, idRows, ids, openTestDb, prop, q, s, type TestDb } from '../helpers/embedded.js';

let t: TestDb;

/*
 * Nodes: 0 a (P), 1 b (P), 2 c (P), 3 d (Q)
 * Edges: e0 0->1 KNOWS {w: 1, tag: "x"}
 *        e1 0->1 LIKES {w: 2}            (parallel to e0, another label)
 *        e2 2->0 KNOWS {w: 1.0 (f64)}
 *        e3 0->0 KNOWS {w: 3}            (self-loop)
 *        e4 1->2 KNOWS {w: "one"}
 *        e5 3->0 LIKES {}                (no w)
 *        e6 1->2 KNOWS {w: null}         (parallel to e4, stored null)
 */
before(async () => {
  t = await openTestDb();
  const node = (l: string, name: string) => ({ add_n: { label: l, properties: [['name', s(name)]] } });
  const edge = (from: string, to: string, l: string, props: [string, unknown][]) => ({
    add_e: { input: { nodes: { reference: { var: from } } }, label: l, to: { var: to }, properties: props },
  });
  const made = await t.write(
    [
      q('a', node('P', 'a')),
      q('b', node('P', 'b')),
      q('c', node('P', 'c')),
      q('d', node('Q', 'd')),
      q(
        'e0',
        edge('a', 'b', 'KNOWS', [
          ['w', i(1)],
          ['tag', s('x')],
        ]),
      ),
      q('e1', edge('a', 'b', 'LIKES', [['w', i(2)]])),
      q('e2', edge('c', 'a', 'KNOWS', [['w', f(1)]])),
      q('e3', edge('a', 'a', 'KNOWS', [['w', i(3)]])),
      q('e4', edge('b', 'c', 'KNOWS', [['w', s('one')]])),
      q('e5', edge('d', 'a', 'LIKES', [])),
      q('e6', edge('b', 'c', 'KNOWS', [['w', { value: 'null' }]])),
    ],
    ['a', 'b', 'c', 'd', 'e0', 'e1', 'e2', 'e3', 'e4', 'e5', 'e6'],
  );
  // The fixture relies on fresh ids; check them once so every expectation below is meaningful.
  assert.deepEqual(made, {
    a: idRows(0),
    b: idRows(1),
    c: idRows(2),
    d: idRows(3),
    e0: idRows(0),
    e1: idRows(1),
    e2: idRows(2),
    e3: idRows(3),
    e4: idRows(4),
    e5: idRows(5),
    e6: idRows(6),
  });
});
after(() => t.close());

const allEdges = { edges: { reference: 'all' } };
const read1 = async (root: unknown, parameters?: Record<string, unknown>) => (await t.read([q('r', root)], ['r'], parameters)).r;
const edgeIds = (root: unknown, parameters?: Record<string, unknown>) => read1({ id: { input: root } }, parameters);

// edge_has

test('edge_has with a literal value: typed equality, 1 == 1.0, strings, stored null vs missing', async () => {
  const has = (property: string, value: unknown) => edgeIds({ edge_has: { input: allEdges, property, value: { value } } });
  assert.deepEqual(await has('w', { i64: 1 }), [0, 2], 'i64 1 matches i64 1 and f64 1.0');
  assert.deepEqual(await has('w', { f64: 1 }), [0, 2], 'f64 1.0 matches both as well');
  assert.deepEqual(await has('w', { string: 'one' }), [4]);
  assert.deepEqual(await has('w', { string: '1' }), [], 'a numeric string is not a number');
  assert.deepEqual(await has('tag', { string: 'x' }), [0]);
  // A missing property evaluates to null, so null matches both stored null and missing.
  assert.deepEqual(await has('w', 'null'), [5, 6]);
  assert.deepEqual(await has('nope', { i64: 1 }), []);
  // Virtual names resolve on edges too.
  assert.deepEqual(await has('$from', { i64: 0 }), [0, 1, 3]);
  assert.deepEqual(await has('$to', { i64: 0 }), [2, 3, 5]);
  assert.deepEqual(await has('$label', { string: 'LIKES' }), [1, 5]);
  assert.deepEqual(await has('$id', { i64: 4 }), [4]);
});

test('edge_has with an expression value: parameters and per-row expressions', async () => {
  const has = (property: string, expr: unknown, parameters?: Record<string, unknown>) =>
    edgeIds({ edge_has: { input: allEdges, property, value: { expr } } }, parameters);
  assert.deepEqual(await has('w', { param: 'w' }, { w: 2 }), [1]);
  assert.deepEqual(await has('w', { param: 'w' }, { w: 'one' }), [4]);
  assert.deepEqual(await has('w', { add: { left: ci(1), right: ci(2) } }), [3], 'the f64 3.0 equals the stored i64 3');
  // Evaluated against each row: a self-loop has $from == $to.
  assert.deepEqual(await has('$to', prop('$from')), [3]);
  // w == w holds on every row, also where w is missing or null (null == null).
  assert.deepEqual(await has('w', prop('w')), [0, 1, 2, 3, 4, 5, 6]);
  assert.deepEqual(await has('tag', { constant: { string: 'x' } }), [0]);
  // The property may be an endpoint's property ($to.<name>).
  assert.deepEqual(await edgeIds({ edge_has: { input: allEdges, property: '$to.name', value: { expr: cs('c') } } }), [4, 6]);
});

test('edge_has filters the rows it gets, keeping their order; on nodes it behaves as has', async () => {
  const fromNodes = { out_e: { input: ids(1, 0) } };
  assert.deepEqual(await edgeIds(fromNodes), [4, 6, 0, 1, 3]);
  assert.deepEqual(await edgeIds({ edge_has: { input: fromNodes, property: 'w', value: { value: { i64: 1 } } } }), [0]);
  assert.deepEqual(await edgeIds({ edge_has: { input: fromNodes, property: '$to', value: { value: { i64: 2 } } } }), [4, 6]);
  assert.deepEqual(
    await edgeIds({ edge_has: { input: { nodes: { reference: 'all' } }, property: 'name', value: { value: { string: 'c' } } } }),
    [2],
  );
  assert.deepEqual(await edgeIds({ edge_has: { input: ids(), property: 'w', value: { value: 'null' } } }), []);
});

// edge_has_label

test('edge_has_label keeps the edges with that exact (case-sensitive) label', async () => {
  const withLabel = (input: unknown, label: string) => edgeIds({ edge_has_label: { input, label } });
  assert.deepEqual(await withLabel(allEdges, 'KNOWS'), [0, 2, 3, 4, 6]);
  assert.deepEqual(await withLabel(allEdges, 'LIKES'), [1, 5]);
  assert.deepEqual(await withLabel(allEdges, 'knows'), []);
  assert.deepEqual(await withLabel(allEdges, 'NOPE'), []);
  assert.deepEqual(await withLabel({ both_e: { input: ids(0) } }, 'LIKES'), [1, 5]);
  assert.deepEqual(await withLabel({ edges: { reference: { ids: [5, 4, 1] } } }, 'LIKES'), [5, 1], 'input order is kept');
  // On node rows it is has_label.
  assert.deepEqual(await withLabel({ nodes: { reference: 'all' } }, 'Q'), [3]);
});

// exists

test('exists is [true] on a non-empty stream and [false] on an empty one', async () => {
  const ex = (input: unknown, parameters?: Record<string, unknown>) => read1({ exists: { input } }, parameters);
  assert.deepEqual(await ex({ nodes: { reference: 'all' } }), [true]);
  assert.deepEqual(await ex(allEdges), [true]);
  assert.deepEqual(await ex(ids()), [false]);
  assert.deepEqual(await ex(ids(99)), [false], 'missing ids are dropped, so the stream is empty');
  assert.deepEqual(await ex({ edges: { reference: { ids: [] } } }), [false]);
  assert.deepEqual(await ex({ in_e: { input: ids(3) } }), [false]);
  assert.deepEqual(await ex({ out: { input: ids(3) } }), [true]);
});

test('exists after filters, bounds and navigation', async () => {
  const ex = (input: unknown, parameters?: Record<string, unknown>) => read1({ exists: { input } }, parameters);
  const all = { nodes: { reference: 'all' } };
  assert.deepEqual(await ex({ has_label: { input: all, label: 'Q' } }), [true]);
  assert.deepEqual(await ex({ has_label: { input: all, label: 'Z' } }), [false]);
  assert.deepEqual(await ex({ where: { input: all, predicate: { eq: { left: prop('name'), right: cs('b') } } } }), [true]);
  assert.deepEqual(await ex({ where: { input: all, predicate: { eq: { left: prop('name'), right: cs('zz') } } } }), [false]);
  assert.deepEqual(await ex({ edge_has: { input: allEdges, property: 'w', value: { value: { i64: 3 } } } }), [true]);
  assert.deepEqual(await ex({ edge_has: { input: allEdges, property: 'w', value: { value: { i64: 4 } } } }), [false]);
  assert.deepEqual(await ex({ edge_has_label: { input: { in_e: { input: ids(1) } }, label: 'LIKES' } }), [true]);
  assert.deepEqual(await ex({ edge_has_label: { input: { in_e: { input: ids(2) } }, label: 'LIKES' } }), [false]);
  assert.deepEqual(await ex({ limit: { input: all, count: { literal: 0 } } }), [false]);
  assert.deepEqual(await ex({ skip: { input: all, count: { literal: 4 } } }), [false]);
  assert.deepEqual(await ex({ skip: { input: all, count: { literal: 3 } } }), [true]);
  assert.deepEqual(await ex({ limit: { input: all, count: { expr: { param: 'n' } } } }, { n: 0 }), [false]);
});

test('exists results drive conditions: [false] has size 0, [true] size 1', async () => {
  const res = await t.read(
    [
      q('yes', { exists: { input: ids(0) } }),
      q('no', { exists: { input: ids() } }),
      q('ran_yes', { count: { input: ids(0, 1) } }, { var_not_empty: 'yes' }),
      q('ran_no', { count: { input: ids(0, 1) } }, { var_not_empty: 'no' }),
      q('empty_no', { count: { input: ids(0, 1) } }, { var_empty: 'no' }),
    ],
    ['yes', 'no', 'ran_yes', 'ran_no', 'empty_no'],
  );
  assert.deepEqual(res, { yes: [true], no: [false], ran_yes: [2], ran_no: [], empty_no: [2] });
});

// in_e and both_e

test('in_e: incoming edges per row in ascending edge id; label filter; self-loops count as incoming', async () => {
  assert.deepEqual(await edgeIds({ in_e: { input: ids(0) } }), [2, 3, 5]);
  assert.deepEqual(await edgeIds({ in_e: { input: ids(0), label: 'KNOWS' } }), [2, 3]);
  assert.deepEqual(await edgeIds({ in_e: { input: ids(0), label: 'LIKES' } }), [5]);
  assert.deepEqual(await edgeIds({ in_e: { input: ids(1) } }), [0, 1], 'parallel edges are distinct edges');
  assert.deepEqual(await edgeIds({ in_e: { input: ids(2) } }), [4, 6]);
  assert.deepEqual(await edgeIds({ in_e: { input: ids(3) } }), []);
  assert.deepEqual(await edgeIds({ in_e: { input: ids(1), label: 'NOPE' } }), []);
});

test('in_e and both_e go row by row: input order first, then ascending edge id within a row', async () => {
  assert.deepEqual(await edgeIds({ in_e: { input: ids(2, 0, 1) } }), [4, 6, 2, 3, 5, 0, 1]);
  assert.deepEqual(await edgeIds({ both_e: { input: ids(3, 1) } }), [5, 0, 1, 4, 6]);
  // A node that appears twice in the input yields its edges twice (dedup is per row).
  // out of 0 and 2 is the rows 0, 1 (from node 0), then 0 (from node 2).
  assert.deepEqual(await edgeIds({ in_e: { input: { out: { input: ids(0, 2) } } } }), [2, 3, 5, 0, 1, 2, 3, 5]);
});

test('both_e: the union of in and out edges per row, deduplicated (a self-loop once), ascending edge id', async () => {
  assert.deepEqual(await edgeIds({ both_e: { input: ids(0) } }), [0, 1, 2, 3, 5]);
  assert.deepEqual(await edgeIds({ both_e: { input: ids(0), label: 'KNOWS' } }), [0, 2, 3]);
  assert.deepEqual(await edgeIds({ both_e: { input: ids(0), label: 'LIKES' } }), [1, 5]);
  assert.deepEqual(await edgeIds({ both_e: { input: ids(1) } }), [0, 1, 4, 6]);
  assert.deepEqual(await edgeIds({ both_e: { input: ids(2) } }), [2, 4, 6]);
  assert.deepEqual(await edgeIds({ both_e: { input: ids(3), label: 'KNOWS' } }), []);
  assert.deepEqual(await read1({ count: { input: { both_e: { input: ids(0) } } } }), [5]);
});

test('in_e and both_e skip edge rows in their input', async () => {
  assert.deepEqual(await edgeIds({ in_e: { input: allEdges } }), []);
  assert.deepEqual(await edgeIds({ both_e: { input: { edges: { reference: { ids: [3] } } } } }), []);
});

test('edges reached by in_e and both_e carry their data: edge_properties and value_map', async () => {
  assert.deepEqual(await read1({ edge_properties: { input: { in_e: { input: ids(0), label: 'KNOWS' } } } }), [
    { $id: 2, $label: 'KNOWS', $from: 2, $to: 0, w: 1 },
    { $id: 3, $label: 'KNOWS', $from: 0, $to: 0, w: 3 },
  ]);
  assert.deepEqual(await read1({ value_map: { input: { both_e: { input: ids(2) } }, properties: ['$from', '$to', 'w'] } }), [
    { $from: 2, $to: 0, w: 1 },
    { $from: 1, $to: 2, w: 'one' },
    { $from: 1, $to: 2, w: null },
  ]);
  // The f64 1.0 on e2 stays a float and the i64 3 on e3 an integer.
  const text = await t.db.queryText({
    request_type: 'read',
    query: {
      read: { entries: [q('r', { values: { input: { in_e: { input: ids(0), label: 'KNOWS' } }, properties: ['w'] } })], returns: ['r'] },
    },
  });
  assert.equal(text, '{"r":[{"w":1.0},{"w":3}]}');
});

test('value_map without a list on edge rows has $id, $label, $from, $to and the stored properties (D9)', async () => {
  assert.deepEqual(await read1({ value_map: { input: { edges: { reference: { ids: [0, 5] } } } } }), [
    { $id: 0, $label: 'KNOWS', $from: 0, $to: 1, w: 1, tag: 'x' },
    { $id: 5, $label: 'LIKES', $from: 3, $to: 0 },
  ]);
  assert.deepEqual(await read1({ value_map: { input: { in_e: { input: ids(2) } }, properties: [] } }), [
    { $id: 4, $label: 'KNOWS', $from: 1, $to: 2, w: 'one' },
    { $id: 6, $label: 'KNOWS', $from: 1, $to: 2, w: null },
  ]);
});
