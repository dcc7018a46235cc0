/**
 * Conformance: 400 error codes found while decoding or running (reference §8.2, §10;
 * docs/errors.md), each with its exact code and a msg that starts with the JSON path of the
 * offending place. The codes of static plan validation are in test/plan/validate.test.ts.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import {
  atPath,
  elementCounts,
  idRows,
  ids,
  openPathGraph,
  q,
  rejects400,
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
const out = (input: unknown) => ({ out: { input } });
const counts = () => elementCounts(t);

test('node_not_found: add_e to a node that does not exist, by literal id, parameter or among others; nothing commits', async () => {
  const before = await counts();
  const addE = (to: unknown) => ({ add_e: { input: ids(0), label: 'K', to, properties: [] } });
  await badWrite(addE({ ids: [999] }), 'node_not_found', '.add_e.to');
  await badWrite(addE({ ids: [1, 999] }), 'node_not_found', '.add_e.to');
  await badWrite(addE({ param: 'to' }), 'node_not_found', '.add_e.to', { to: 999 });
  await badWrite(addE({ param: 'to' }), 'node_not_found', '.add_e.to', { to: [2, 999] });
  // An earlier entry's writes roll back with the failing one.
  await rejects400(
    t.write(
      [
        q('n', { add_n: { label: 'Tmp', properties: [] } }),
        q(null, { add_e: { input: { nodes: { reference: { var: 'n' } } }, label: 'K', to: { ids: [999] }, properties: [] } }),
      ],
      [],
    ),
    'node_not_found',
    atPath('.add_e.to', 'query.write.entries[1].query.root'),
  );
  assert.deepEqual(await counts(), before);
});

test('node_not_found: add_e to a u64 id that cannot exist', async () => {
  const body =
    '{"request_type":"write","query":{"write":{"entries":[{"query":{"root":{"add_e":{"input":{"nodes":{"reference":{"ids":[0]}}},' +
    '"label":"K","to":{"ids":[18446744073709551615]},"properties":[]}}}}],"returns":[]}}}';
  await rejects400(t.db.queryText(body), 'node_not_found', atPath('.add_e.to', WRITE_ROOT));
});

test('node_not_found: add_e to a variable whose node was dropped earlier in the batch', async () => {
  // A fresh database: if the edge were created, it must not disturb the other tests.
  await withFreshDb(async (t) => {
    await t.write([q(null, { add_n: { label: 'P', properties: [] } })], []);
    await rejects400(
      t.write(
        [
          q('x', { add_n: { label: 'Tmp', properties: [] } }),
          q(null, { drop: { input: { nodes: { reference: { var: 'x' } } } } }),
          q(null, { add_e: { input: ids(0), label: 'K', to: { var: 'x' }, properties: [] } }),
        ],
        [],
      ),
      'node_not_found',
      atPath('.add_e.to', 'query.write.entries[2].query.root'),
    );
    assert.deepEqual(await elementCounts(t), { n: [1], e: [0] });
  });
});

// unbound_context

test('duplicate_element_id: a repeated id in any ids reference', async () => {
  await badRead(ids(0, 1, 0), 'duplicate_element_id', '.nodes.reference.ids[2]');
  await badRead({ edges: { reference: { ids: [1, 1] } } }, 'duplicate_element_id', '.edges.reference.ids[1]');
  await badRead(out(ids(2, 2)), 'duplicate_element_id', '.out.input.nodes.reference.ids[1]');
  await badRead(
    { shortest_path: { source: { ids: [0] }, target: { ids: [2, 2] }, direction: 'out', max_depth: 3 } },
    'duplicate_element_id',
    '.shortest_path.target.ids[1]',
  );
  await badWrite(
    { add_e: { input: ids(0), label: 'K', to: { ids: [1, 2, 1] }, properties: [] } },
    'duplicate_element_id',
    '.add_e.to.ids[2]',
  );
  await badWrite({ drop_edge_by_id: { edges: { ids: [0, 0] } } }, 'duplicate_element_id', '.drop_edge_by_id.edges.ids[1]');
  await badWrite({ drop_edge: { input: ids(0), to: { ids: [1, 1] } } }, 'duplicate_element_id', '.drop_edge.to.ids[1]');
  assert.deepEqual(await counts(), { n: [3], e: [2] });
});

// invalid_stream_range and invalid_stream_bound_expression

test('invalid_stream_bound_expression: a constant bound other than a non-negative i64', async () => {
  const all = { nodes: { reference: 'all' } };
  await badRead({ limit: { input: all, count: { expr: { constant: { i64: -1 } } } } }, 'invalid_stream_bound_expression', '.limit.count');
  await badRead(
    { limit: { input: all, count: { expr: { constant: { bool: true } } } } },
    'invalid_stream_bound_expression',
    '.limit.count',
  );
  await badRead({ skip: { input: all, count: { expr: { constant: { string: '1' } } } } }, 'invalid_stream_bound_expression', '.skip.count');
  await badRead({ skip: { input: all, count: { expr: { constant: 'null' } } } }, 'invalid_stream_bound_expression', '.skip.count');
  await badRead(
    { range: { input: all, start: { literal: 0 }, end: { expr: { constant: { f64: 2 } } } } },
    'invalid_stream_bound_expression',
    '.range.end',
  );
  await badRead(
    { range: { input: all, start: { expr: { constant: { i64_array: [1] } } }, end: { literal: 2 } } },
    'invalid_stream_bound_expression',
    '.range.start',
  );
  // A non-negative i64 constant is a literal.
  assert.deepEqual((await t.read([q('r', { limit: { input: all, count: { expr: { constant: { i64: 2 } } } } })], ['r'])).r, idRows(0, 1));
});

// mutation_in_read_batch (lead's decision)

test('other $-prefixed property names are ordinary properties', async () => {
  const res = await t.write(
    [
      q('x', {
        add_n: {
          label: 'X',
          properties: [
            ['$custom', { value: { i64: 1 } }],
            ['$ID', { value: { string: 'up' } }],
          ],
        },
      }),
      q('r', { value_map: { input: { nodes: { reference: { var: 'x' } } }, properties: ['$custom', '$ID'] } }),
      q(null, { drop: { input: { nodes: { reference: { var: 'x' } } } } }),
    ],
    ['r'],
  );
  assert.deepEqual(res, { r: [{ $custom: 1, $ID: 'up' }] });
  assert.deepEqual(await counts(), { n: [3], e: [2] });
});

test('set_property $label still relabels a node (not an invalid_property_name)', async () => {
  const res = await t.write(
    [
      q('x', { add_n: { label: 'X', properties: [] } }),
      q('r', {
        label: {
          input: { set_property: { input: { nodes: { reference: { var: 'x' } } }, name: '$label', value: { value: { string: 'Y' } } } },
        },
      }),
      q(null, { drop: { input: { nodes: { reference: { var: 'x' } } } } }),
    ],
    ['r'],
  );
  assert.deepEqual(res, { r: ['Y'] });
});
