/**
 * The variable expression `{"variable": {"name": "v", "property"?: "p"}}` (a Trellis
 * extension): the value a batch variable holds, read where an expression stands. A count
 * or an exists as itself; otherwise its first item: a stream's first element id (or with
 * `property` that element's property, `$id` too), a list's first value (or with `property`
 * that entry of the first object). Empty is null; a variable bound by no entry is 400
 * `unknown_variable`; one whose entry was skipped is 400 `invalid_query` when read.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { atPath, ids, i, label, openTestDb, prop, q, rejects400, s, type TestDb } from '../helpers/embedded.js';

let t: TestDb;

// Nodes (label U): 0 ann {age 30}, 1 bob {age 25}, 2 cy {age 35}.
before(async () => {
  t = await openTestDb();
  const user = (name: string, age: number) =>
    q(null, {
      add_n: {
        label: 'U',
        properties: [
          ['name', s(name)],
          ['age', i(age)],
        ],
      },
    });
  await t.write([user('ann', 30), user('bob', 25), user('cy', 35)], []);
});
after(() => t.close());

const v = (name: string, property?: string) => ({ variable: { name, ...(property === undefined ? {} : { property }) } });
const project = (input: unknown, items: Record<string, unknown>) => ({
  project: { input, projections: Object.entries(items).map(([alias, expr]) => ({ expr: { alias, expr } })) },
});
const count = (input: unknown) => ({ count: { input } });
const values = (input: unknown, ...properties: string[]) => ({ values: { input, properties } });

test('variable: a count, a first element id and property, a first object entry, a first value', async () => {
  const r = await t.read(
    [
      q('n', count(label('U'))),
      q('bob', ids(1)),
      q('names', values(ids(2, 0), 'name')),
      q('none', ids(99)),
      q('out', project(ids(0), { n: v('n'), id: v('bob'), age: v('bob', 'age'), $id: v('bob', '$id'), name: v('names', 'name') })),
      q('more', project(ids(0), { first: v('names'), missing: v('names', 'nothing'), empty: v('none'), emptyProp: v('none', 'age') })),
    ],
    ['out', 'more'],
  );
  assert.deepEqual(r.out, [{ n: 3, id: 1, age: 25, $id: 1, name: 'cy' }]);
  assert.deepEqual(r.more, [{ first: { name: 'cy' }, missing: null, empty: null, emptyProp: null }]);
});

test('variable: a value read from an earlier entry is stored, compared and bounds a scan', async () => {
  await t.write(
    [
      q('oldest', { limit: { input: { order_by: { input: label('U'), property: 'age', order: 'desc' } }, count: { literal: 1 } } }),
      q('n', count(label('U'))),
      q('made', {
        add_n: {
          label: 'Stat',
          properties: [
            ['users', { expr: v('n') }],
            ['oldest', { expr: v('oldest', 'name') }],
          ],
        },
      }),
    ],
    [],
  );
  const r = await t.read(
    [
      q('stat', label('Stat')),
      q('shown', values({ nodes: { reference: { var: 'stat' } } }, 'users', 'oldest')),
      q('bob', ids(1)),
      // A scan compares with the variable's value: the users older than bob.
      q('older', values({ where: { input: label('U'), predicate: { gt: { left: prop('age'), right: v('bob', 'age') } } } }, 'name')),
      q('scan', values({ nodes_where: { predicate: { gt: { left: prop('age'), right: v('bob', 'age') } } } }, 'name')),
    ],
    ['shown', 'older', 'scan'],
  );
  assert.deepEqual(r.shown, [{ users: 3, oldest: 'cy' }]);
  assert.deepEqual(r.older, [{ name: 'ann' }, { name: 'cy' }]);
  assert.deepEqual(r.scan, [{ name: 'ann' }, { name: 'cy' }]);
});

test('variable: a name bound by no entry is 400 unknown_variable; a skipped entry is 400 invalid_query when read', async () => {
  await rejects400(
    t.read([q('r', project(ids(0), { x: v('nope') }))], ['r']),
    'unknown_variable',
    atPath('.project.projections[0].expr.expr.variable.name'),
  );
  await rejects400(
    t.read([q('none', ids(99)), q('skipped', ids(0), 'prev_not_empty'), q('r', project(ids(0), { x: v('skipped') }))], ['r']),
    'invalid_query',
    /variable "skipped" is not bound \(yet\)/,
  );
  await rejects400(t.read([q('r', project(ids(0), { x: { variable: { name: 'n', depth: 1 } } }))], ['r']), 'invalid_query_json', /depth/);
});
