/** The issue-2 operation set and batch semantics, run in-process on a real LMDB folder. */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { type GraphError } from '../../src/core/errors.js';
import { all, ci, cs, i, ids, label, openTestDb, prop, q, s, type TestDb } from '../helpers/embedded.js';

let t: TestDb;

// Graph: 0 alice(30) -KNOWS-> 1 bob(25) -KNOWS-> 2 carol(35); 0 -LIKES-> 2; 3 acme (Company)
before(async () => {
  t = await openTestDb();
  const person = (name: string, age: number) => ({
    add_n: {
      label: 'Person',
      properties: [
        ['name', s(name)],
        ['age', i(age)],
      ],
    },
  });
  const edge = (from: string, to: string, l: string, since?: number) => ({
    add_e: { input: { nodes: { reference: { var: from } } }, label: l, to: { var: to }, properties: since ? [['since', i(since)]] : [] },
  });
  await t.write(
    [
      q('a', person('alice', 30)),
      q('b', person('bob', 25)),
      q('c', person('carol', 35)),
      q('acme', { add_n: { label: 'Company', properties: [['name', s('acme')]] } }),
      q(null, edge('a', 'b', 'KNOWS', 2020)),
      q(null, edge('b', 'c', 'KNOWS')),
      q(null, edge('a', 'c', 'LIKES')),
    ],
    [],
  );
});
after(() => t.close());

test('nodes: all in id order, ids in the given order, missing ids dropped', async () => {
  assert.deepEqual(await t.read([q('n', all)], ['n']), { n: [{ $id: 0 }, { $id: 1 }, { $id: 2 }, { $id: 3 }] });
  assert.deepEqual(await t.read([q('n', ids(2, 0, 99))], ['n']), { n: [{ $id: 2 }, { $id: 0 }] });
  assert.deepEqual(await t.read([q('n', { nodes: { reference: { param: 'p' } } })], ['n'], { p: [3, 1] }), { n: [{ $id: 3 }, { $id: 1 }] });
});

test('nodes_where on $label uses the label and count returns [n]', async () => {
  assert.deepEqual(await t.read([q('c', { count: { input: label('Person') } })], ['c']), { c: [3] });
  assert.deepEqual(await t.read([q('c', { count: { input: label('Nobody') } })], ['c']), { c: [0] });
});

test('where with comparison and logic predicates', async () => {
  const where = (predicate: unknown) => ({ value_map: { input: { where: { input: label('Person'), predicate } }, properties: ['name'] } });
  assert.deepEqual(await t.read([q('r', where({ gte: { left: prop('age'), right: ci(30) } }))], ['r']), {
    r: [{ name: 'alice' }, { name: 'carol' }],
  });
  assert.deepEqual(
    await t.read(
      [
        q(
          'r',
          where({
            and: {
              predicates: [
                { gt: { left: prop('age'), right: ci(20) } },
                { not: { predicate: { eq: { left: prop('name'), right: cs('bob') } } } },
              ],
            },
          }),
        ),
      ],
      ['r'],
    ),
    { r: [{ name: 'alice' }, { name: 'carol' }] },
  );
  assert.deepEqual(
    await t.read(
      [
        q(
          'r',
          where({
            or: {
              predicates: [
                { starts_with: { value: prop('name'), prefix: cs('car') } },
                { lt: { left: prop('age'), right: { constant: { f64: 26.5 } } } },
              ],
            },
          }),
        ),
      ],
      ['r'],
    ),
    {
      r: [{ name: 'bob' }, { name: 'carol' }],
    },
  );
  // Incomparable types are false, not errors.
  assert.deepEqual(await t.read([q('r', where({ gt: { left: prop('name'), right: ci(1) } }))], ['r']), { r: [] });
});

test('has, has_label and limit', async () => {
  assert.deepEqual(await t.read([q('r', { has: { input: all, property: 'name', value: { string: 'acme' } } })], ['r']), {
    r: [{ $id: 3 }],
  });
  assert.deepEqual(
    await t.read([q('r', { limit: { input: { has_label: { input: all, label: 'Person' } }, count: { literal: 2 } } })], ['r']),
    { r: [{ $id: 0 }, { $id: 1 }] },
  );
  assert.deepEqual(await t.read([q('r', { limit: { input: all, count: { expr: { param: 'n' } } } })], ['r'], { n: 1 }), {
    r: [{ $id: 0 }],
  });
});

test('out, in, both: distinct neighbours in ascending id order, label filter', async () => {
  const hop = (op: string, from: number, lbl?: string) => q('r', { [op]: { input: ids(from), ...(lbl ? { label: lbl } : {}) } });
  assert.deepEqual(await t.read([hop('out', 0)], ['r']), { r: [{ $id: 1 }, { $id: 2 }] });
  assert.deepEqual(await t.read([hop('out', 0, 'KNOWS')], ['r']), { r: [{ $id: 1 }] });
  assert.deepEqual(await t.read([hop('in', 2)], ['r']), { r: [{ $id: 0 }, { $id: 1 }] });
  assert.deepEqual(await t.read([hop('both', 1)], ['r']), { r: [{ $id: 0 }, { $id: 2 }] });
  assert.deepEqual(await t.read([hop('out', 3)], ['r']), { r: [] });
});

test('value_map without a list has $id and $label; edge_properties has endpoints', async () => {
  assert.deepEqual(await t.read([q('r', { value_map: { input: ids(1) } })], ['r']), {
    r: [{ $id: 1, $label: 'Person', name: 'bob', age: 25 }],
  });
  assert.deepEqual(await t.read([q('r', { edge_properties: { input: { edges: { reference: { ids: [0] } } } } })], ['r']), {
    r: [{ $id: 0, $label: 'KNOWS', $from: 0, $to: 1, since: 2020 }],
  });
  assert.deepEqual(
    await t.read(
      [
        q('r', {
          value_map: {
            input: { edges_where: { predicate: { eq: { left: prop('$label'), right: cs('LIKES') } } } },
            properties: ['$from', '$to'],
          },
        }),
      ],
      ['r'],
    ),
    {
      r: [{ $from: 0, $to: 2 }],
    },
  );
});

test('conditions: var_not_empty, var_empty, var_min_size, prev_not_empty chains skips', async () => {
  const res = await t.read(
    [
      q('none', label('Nobody')),
      q('people', label('Person')),
      q('a', { count: { input: all } }, { var_not_empty: 'people' }),
      q('b', { count: { input: all } }, { var_empty: 'people' }),
      q('c', { count: { input: all } }, 'prev_not_empty'),
      q('d', { count: { input: all } }, { var_min_size: ['people', 3] }),
      q('e', { count: { input: all } }, { var_min_size: ['people', 4] }),
      q('f', { count: { input: all } }, { var_empty: 'none' }),
    ],
    ['none', 'a', 'b', 'c', 'd', 'e', 'f'],
  );
  assert.deepEqual(res, { none: [], a: [4], b: [], c: [], d: [4], e: [], f: [4] });
});

test('for_each binds element fields as parameters and keeps the last iteration', async () => {
  const res = await t.write(
    [
      {
        for_each: {
          param: 'rows',
          body: [
            q('made', {
              add_n: {
                label: 'Event',
                properties: [
                  ['code', { expr: { param: 'code' } }],
                  ['n', { expr: { param: 'n' } }],
                ],
              },
            }),
          ],
        },
      },
      q('events', { value_map: { input: label('Event'), properties: ['code', 'n'] } }),
    ],
    ['made', 'events'],
    {
      rows: [
        { code: 'x', n: 1 },
        { code: 'y', n: 2.5 },
      ],
      code: 'shadowed',
    },
  );
  assert.equal(res.made.length, 1);
  assert.deepEqual(res.events, [
    { code: 'x', n: 1 },
    { code: 'y', n: 2.5 },
  ]);
  await assert.rejects(
    t.write([{ for_each: { param: 'rows', body: [q(null, { add_n: { label: 'E', properties: [] } })] } }], [], { rows: [1] }),
    (err: GraphError) => err.code === 'invalid_query' && /element 0/.test(err.msg),
  );
});

test('drop removes nodes with their edges and edge rows; results are []', async () => {
  const made = await t.write(
    [
      q('x', { add_n: { label: 'Tmp', properties: [] } }),
      q('y', { add_n: { label: 'Tmp', properties: [] } }),
      q('e', { add_e: { input: { nodes: { reference: { var: 'x' } } }, label: 'TMP', to: { var: 'y' }, properties: [] } }),
    ],
    ['x', 'e'],
  );
  const edgeId = made.e[0].$id;
  const dropped = await t.write([q('gone', { drop: { input: { nodes: { reference: { ids: [made.x[0].$id] } } } } })], ['gone']);
  assert.deepEqual(dropped, { gone: [] });
  const after = await t.read([q('n', { count: { input: label('Tmp') } }), q('e', { edges: { reference: { ids: [edgeId] } } })], ['n', 'e']);
  assert.deepEqual(after, { n: [1], e: [] });
  await t.write([q(null, { drop: { input: label('Tmp') } })], []);
  assert.deepEqual(await t.read([q('n', { count: { input: label('Tmp') } })], ['n']), { n: [0] });
});

test('add_e to a missing node is node_not_found (400) and nothing commits', async () => {
  await assert.rejects(
    t.write(
      [
        q('n', { add_n: { label: 'Orphan', properties: [] } }),
        q(null, { add_e: { input: { nodes: { reference: { var: 'n' } } }, label: 'X', to: { ids: [999] }, properties: [] } }),
      ],
      [],
    ),
    (err: GraphError) => err.code === 'node_not_found' && err.status === 400,
  );
  assert.deepEqual(await t.read([q('n', { count: { input: label('Orphan') } })], ['n']), { n: [0] });
});
