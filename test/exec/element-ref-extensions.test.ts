/**
 * The element references Trellis adds to NodeRef/EdgeRef (docs/queries.md):
 * - `{"variable": {"name", "property"?}}`: the ids a variable of values holds (each item, or
 *   that entry of each object; null entries name nothing), in order: what the query
 *   language's `N<T>(x)` and `::From(x)` read when `x <- u::ID`;
 * - `{"outer": {"depth": n}}`: the element the traversal expression `n` levels out started
 *   from: a path's end at an enclosing item (`|u|{... ::To(u)}`).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ids, label, openTestDb, q, rejects400, s, type TestDb } from '../helpers/embedded.js';

let t: TestDb;

// Nodes (label U): 0 ann, 1 bob, 2 cy; edges K: 0 -> 1, 1 -> 2.
before(async () => {
  t = await openTestDb();
  const user = (name: string) => q(name, { add_n: { label: 'U', properties: [['name', s(name)]] } });
  const knows = (from: string, to: string) =>
    q(null, { add_e: { input: { nodes: { reference: { var: from } } }, label: 'K', to: { var: to }, properties: [] } });
  await t.write([user('ann'), user('bob'), user('cy'), knows('ann', 'bob'), knows('bob', 'cy')], []);
});
after(() => t.close());

const project = (input: unknown, items: Record<string, unknown>) => ({
  project: { input, projections: Object.entries(items).map(([alias, expr]) => ({ expr: { alias, expr } })) },
});
const names = (input: unknown) => ({ values: { input, properties: ['name'] } });
const fromVariable = (name: string, property?: string) => ({
  nodes: { reference: { variable: { name, ...(property === undefined ? {} : { property }) } } },
});

test('variable reference: the ids a list of objects or of values holds, in order; missing entries name nothing', async () => {
  const r = await t.read(
    [
      q('picked', project(ids(2, 0), { uid: 'id' })),
      q('byEntry', names(fromVariable('picked', 'uid'))),
      q('path', { shortest_path: { source: { ids: [0] }, target: { ids: [2] }, label: 'K', direction: 'out', max_depth: 5 } }),
      q('onPath', names(fromVariable('path'))),
      q('byMissingEntry', names(fromVariable('picked', 'nothing'))),
      q('none', ids(99)),
      q('fromEmpty', names(fromVariable('none'))),
    ],
    ['byEntry', 'onPath', 'byMissingEntry', 'fromEmpty'],
  );
  assert.deepEqual(r.byEntry, [{ name: 'cy' }, { name: 'ann' }]);
  // A path's ids, as plain values.
  assert.deepEqual(r.onPath, [{ name: 'ann' }, { name: 'bob' }, { name: 'cy' }]);
  assert.deepEqual(r.byMissingEntry, []);
  assert.deepEqual(r.fromEmpty, []);
});

test("variable reference: a path's end read from a variable of one id; a variable of elements gives their ids, and no entry of them", async () => {
  const r = await t.read(
    [
      q('target', project(ids(2), { id: 'id' })),
      q('path', {
        shortest_path: {
          source: { ids: [0] },
          target: { variable: { name: 'target', property: 'id' } },
          label: 'K',
          direction: 'out',
          max_depth: 5,
        },
      }),
      q('bob', ids(1)),
      q('again', names(fromVariable('bob'))),
    ],
    ['path', 'again'],
  );
  assert.deepEqual(r.path, [0, 1, 2]);
  assert.deepEqual(r.again, [{ name: 'bob' }]);
  await rejects400(
    t.read([q('bob', ids(1)), q('r', fromVariable('bob', 'name'))], ['r']),
    'invalid_query',
    /variable "bob" holds nodes or edges; name them with \{"var": \.\.\.\}/,
  );
});

test('variable reference: an edge between ids read from variables; an id that does not exist is 404 for add_e', async () => {
  const made = await t.write(
    [
      q('a', project(ids(2), { id: 'id' })),
      q('b', project(ids(0), { id: 'id' })),
      q('e', { add_e: { input: fromVariable('a', 'id'), label: 'L', to: { variable: { name: 'b', property: 'id' } }, properties: [] } }),
      q('ends', { values: { input: { edges: { reference: { var: 'e' } } }, properties: ['$from', '$to'] } }),
    ],
    ['ends'],
  );
  assert.deepEqual(made.ends, [{ $from: 2, $to: 0 }]);
  await assert.rejects(
    t.write(
      [
        q('b', project(ids(0), { id: { constant: { i64: 77 } } })),
        q(null, { add_e: { input: ids(0), label: 'L', to: { variable: { name: 'b', property: 'id' } }, properties: [] } }),
      ],
      [],
    ),
    (err: unknown) => (err as { code: string }).code === 'node_not_found',
  );
});

test('variable reference: values that are not ids are 400 invalid_query naming the variable and what it holds', async () => {
  await rejects400(
    t.read([q('n', names(label('U'))), q('r', fromVariable('n', 'name'))], ['r']),
    'invalid_query',
    /entry "name" of variable "n" holds a string, not an id/,
  );
  await rejects400(
    t.read([q('n', { count: { input: label('U') } }), q('r', fromVariable('n'))], ['r']),
    'invalid_query',
    /holds a count, not ids/,
  );
  await rejects400(t.read([q('r', fromVariable('nope'))], ['r']), 'unknown_variable', /variable "nope" is not bound/);
  await rejects400(t.read([q('r', { nodes: { reference: { variable: { name: 'x', depth: 1 } } } })], ['r']), 'invalid_query_json', /depth/);
});

test('outer reference: a path from each element to the nodes a traversal from it reaches, inside a projection', async () => {
  // From each element's K-neighbours (the input end) to the element itself (outer, depth 1), any direction.
  const back = {
    traversal: {
      root: {
        shortest_path: {
          input: { out: { input: 'context', label: 'K' } },
          source: 'input',
          target: { outer: { depth: 1 } },
          label: 'K',
          direction: 'both',
          max_depth: 5,
        },
      },
    },
  };
  const r = await t.read([q('r', project(ids(0, 1, 2), { back }))], ['r']);
  // ann -> bob: bob's way back is [bob, ann]; bob -> cy: [cy, bob]; cy follows no one.
  assert.deepEqual(r.r, [{ back: [[1, 0]] }, { back: [[2, 1]] }, { back: [] }]);
});

test('outer reference: deeper than the traversal expressions around it, or at the top, is 400 invalid_query', async () => {
  const path = (depth: number, input?: unknown) => ({
    shortest_path: {
      ...(input === undefined ? { source: { ids: [0] } } : { input, source: 'input' }),
      target: { outer: { depth } },
      direction: 'out',
      max_depth: 3,
    },
  });
  await rejects400(
    t.read([q('r', path(1))], ['r']),
    'invalid_query',
    /"outer" reads the row a traversal expression started from, and is not inside one/,
  );
  await rejects400(
    t.read([q('r', project(ids(0), { p: { traversal: { root: path(2, 'context') } } }))], ['r']),
    'invalid_query',
    /"outer" reaches 2 traversal expressions out, but 1 enclose it/,
  );
  await rejects400(t.read([q('r', path(0))], ['r']), 'invalid_query_json', /depth counts enclosing traversal expressions from 1/);
});
