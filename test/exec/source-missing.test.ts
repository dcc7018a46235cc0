/**
 * `missing` on the `nodes` and `edges` sources: "skip" (the default, the contract's
 * behaviour) drops ids that name no element; "error" fails the request with
 * node_not_found / edge_not_found naming the id and the JSON path, for literal ids,
 * parameters and variables, and a write batch that fails this way commits nothing (the
 * generic path and the bulk-insert fast path of for_each alike).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { atPath, elementCounts, openPathGraph, q, rejects400, type TestDb } from '../helpers/embedded.js';

let t: TestDb;

// Nodes 0 a, 1 b, 2 c (label P); edges e0 0->1 K, e1 1->2 K.
before(async () => {
  t = await openPathGraph();
});
after(() => t.close());

const R = 'query.read.entries[0].query.root';
const W = 'query.write.entries[0].query.root';
const nodes = (reference: unknown, missing?: string) => ({ nodes: { reference, ...(missing ? { missing } : {}) } });
const edges = (reference: unknown, missing?: string) => ({ edges: { reference, ...(missing ? { missing } : {}) } });
const idsOf = async (source: unknown, parameters?: Record<string, unknown>) =>
  (await t.read([q('r', { id: { input: source } })], ['r'], parameters)).r;
const counts = () => elementCounts(t);
/** The exact msg: the path, then what does not exist. */
const msg = (path: string, what: string) => new RegExp(`^${path.replace(/[.[\]]/g, '\\$&')}: ${what} does not exist$`);

test('missing "skip" (the default) drops ids that name no element, in the given order', async () => {
  assert.deepEqual(await idsOf(nodes({ ids: [2, 99, 0] })), [2, 0]);
  assert.deepEqual(await idsOf(nodes({ ids: [2, 99, 0] }, 'skip')), [2, 0]);
  assert.deepEqual(await idsOf(edges({ ids: [1, 99] }, 'skip')), [1]);
  assert.deepEqual(await idsOf(nodes({ param: 'p' }, 'skip'), { p: [99, 1] }), [1]);
  // null is the default too, like every optional field.
  assert.deepEqual(await idsOf({ nodes: { reference: { ids: [99, 1] }, missing: null } }), [1]);
});

test('missing "error": ids that all exist give the same rows as "skip"', async () => {
  assert.deepEqual(await idsOf(nodes({ ids: [2, 0] }, 'error')), [2, 0]);
  assert.deepEqual(await idsOf(nodes({ ids: [] }, 'error')), []);
  assert.deepEqual(await idsOf(nodes('all', 'error')), [0, 1, 2]);
  assert.deepEqual(await idsOf(edges('all', 'error')), [0, 1]);
  assert.deepEqual(await idsOf(edges({ ids: [1, 0] }, 'error')), [1, 0]);
  assert.deepEqual(await idsOf(nodes({ param: 'p' }, 'error'), { p: 1 }), [1]);
  assert.deepEqual(await idsOf(edges({ param: 'p' }, 'error'), { p: [0] }), [0]);
  const viaVar = await t.read(
    [q('x', { out: { input: nodes({ ids: [0] }) } }), q('r', { id: { input: nodes({ var: 'x' }, 'error') } })],
    ['r'],
  );
  assert.deepEqual(viaVar.r, [1]);
});

test('missing "error": a literal id that names no node or edge is node_not_found / edge_not_found with the path', async () => {
  const read = (root: unknown) => t.read([q('r', root)], ['r']);
  await rejects400(read(nodes({ ids: [7] }, 'error')), 'node_not_found', msg(`${R}.nodes.reference`, 'node 7'));
  await rejects400(read(nodes({ ids: [0, 7, 1] }, 'error')), 'node_not_found', msg(`${R}.nodes.reference`, 'node 7'));
  await rejects400(read(edges({ ids: [1, 9] }, 'error')), 'edge_not_found', msg(`${R}.edges.reference`, 'edge 9'));
  // Deeper in a traversal, the path is the source's.
  await rejects400(
    read({ count: { input: { out: { input: nodes({ ids: [5] }, 'error') } } } }),
    'node_not_found',
    msg(`${R}.count.input.out.input.nodes.reference`, 'node 5'),
  );
  // An id beyond 2^53 cannot exist.
  const body =
    '{"request_type":"read","query":{"read":{"entries":[{"query":{"name":"r","root":{"nodes":' +
    '{"reference":{"ids":[18446744073709551615]},"missing":"error"}}}}],"returns":["r"]}}}';
  await rejects400(t.db.queryText(body), 'node_not_found', msg(`${R}.nodes.reference`, 'node with an id beyond 2\\^53'));
});

test('missing "error": a parameter id that names no node or edge is an error', async () => {
  const read = (root: unknown, p: unknown) => t.read([q('r', root)], ['r'], { p });
  await rejects400(read(nodes({ param: 'p' }, 'error'), 42), 'node_not_found', msg(`${R}.nodes.reference`, 'node 42'));
  await rejects400(read(nodes({ param: 'p' }, 'error'), [2, 42]), 'node_not_found', msg(`${R}.nodes.reference`, 'node 42'));
  await rejects400(read(edges({ param: 'p' }, 'error'), [0, 8]), 'edge_not_found', msg(`${R}.edges.reference`, 'edge 8'));
});

test('missing "error": a variable naming an element deleted earlier in the batch is an error; nothing commits', async () => {
  const before = await counts();
  await rejects400(
    t.write(
      [
        q('x', { add_n: { label: 'Tmp', properties: [] } }),
        q(null, { drop: { input: nodes({ var: 'x' }) } }),
        q('r', { id: { input: nodes({ var: 'x' }, 'error') } }),
      ],
      ['r'],
    ),
    'node_not_found',
    msg('query.write.entries[2].query.root.id.input.nodes.reference', 'node 3'),
  );
  await rejects400(
    t.write(
      [
        q('e', { add_e: { input: nodes({ ids: [2] }), label: 'Tmp', to: { ids: [0] }, properties: [] } }),
        q(null, { drop_edge_by_id: { edges: { var: 'e' } } }),
        q('r', { id: { input: edges({ var: 'e' }, 'error') } }),
      ],
      ['r'],
    ),
    'edge_not_found',
    msg('query.write.entries[2].query.root.id.input.edges.reference', 'edge 2'),
  );
  // Both batches were rolled back.
  assert.deepEqual(await counts(), before);
});

test('missing "error": a variable that is not bound (its entry was skipped) is empty, not an error', async () => {
  const res = await t.read(
    [
      q('none', { has: { input: nodes('all'), property: 'name', value: { string: 'zzz' } } }),
      q('skipped', nodes({ ids: [0] }), { var_not_empty: 'none' }),
      q('r', { id: { input: nodes({ var: 'skipped' }, 'error') } }),
    ],
    ['r'],
  );
  assert.deepEqual(res.r, []);
});

test('missing "error" in a write batch: the failing entry and every write before it are rolled back', async () => {
  const before = await counts();
  await rejects400(
    t.write(
      [
        q('n', { add_n: { label: 'Tmp', properties: [] } }),
        q(null, { set_property: { input: nodes({ ids: [0] }), name: 'touched', value: { value: { bool: true } } } }),
        q(null, { add_e: { input: nodes({ ids: [0, 99] }, 'error'), label: 'Tmp', to: { var: 'n' }, properties: [] } }),
      ],
      [],
    ),
    'node_not_found',
    msg('query.write.entries[2].query.root.add_e.input.nodes.reference', 'node 99'),
  );
  await rejects400(
    t.write([q(null, { drop: { input: edges({ param: 'e' }, 'error') } })], [], { e: [0, 77] }),
    'edge_not_found',
    atPath('.drop.input.edges.reference', W),
  );
  assert.deepEqual(await counts(), before);
  const zero = await t.read([q('r', { value_map: { input: nodes({ ids: [0] }), properties: ['touched'] } })], ['r']);
  assert.deepEqual(zero.r, [{}]);
});

test('missing "error" in a for_each bulk insert (add_e from {param} to {param}): a missing source fails and nothing commits', async () => {
  const before = await counts();
  const bulk = (missing: string, rows: unknown[]) =>
    t.write(
      [
        {
          for_each: {
            param: 'rows',
            body: [q(null, { add_e: { input: nodes({ param: 'from' }, missing), label: 'Tmp', to: { param: 'to' }, properties: [] } })],
          },
        },
      ],
      [],
      { rows },
    );
  const rows = [
    { from: 0, to: 1 },
    { from: 99, to: 1 },
  ];
  await rejects400(
    bulk('error', rows),
    'node_not_found',
    msg('query.write.entries[0].for_each.body[0].query.root.add_e.input.nodes.reference', 'node 99'),
  );
  assert.deepEqual(await counts(), before, 'the first row was created, then rolled back');
  // An element the fast path hands to the generic path (an id list) fails the same way.
  await rejects400(
    bulk('error', [
      { from: 0, to: 1 },
      { from: [1, 98], to: 1 },
    ]),
    'node_not_found',
    msg('query.write.entries[0].for_each.body[0].query.root.add_e.input.nodes.reference', 'node 98'),
  );
  assert.deepEqual(await counts(), before);
  // "skip" drops the missing source: one edge, kept.
  await bulk('skip', rows);
  const after = await counts();
  assert.deepEqual(after, { n: before.n, e: [before.e[0] + 1] });
  await t.write([q(null, { drop: { input: { has_label: { input: edges('all'), label: 'Tmp' } } } })], []);
  assert.deepEqual(await counts(), before);
});

test('missing: only "skip" or "error", and only on nodes and edges', async () => {
  await rejects400(
    t.read([q('r', nodes({ ids: [0] }, 'ignore'))], ['r']),
    'invalid_query_json',
    /^query\.read\.entries\[0\]\.query\.root\.nodes\.missing: expected one of "skip", "error", got the string "ignore"$/,
  );
  await rejects400(t.read([q('r', { edges: { reference: 'all', missing: true } })], ['r']), 'invalid_query_json', atPath('.edges.missing'));
  await rejects400(
    t.read([q('r', { nodes_where: { predicate: { has_key: { property: 'name' } }, missing: 'error' } })], ['r']),
    'invalid_query_json',
    /^query\.read\.entries\[0\]\.query\.root\.nodes_where: unknown key "missing"/,
  );
  await rejects400(
    t.read([q('r', { nodes: { reference: 'all', misssing: 'error' } })], ['r']),
    'invalid_query_json',
    /^query\.read\.entries\[0\]\.query\.root\.nodes: unknown key "misssing" \(expected "reference", "missing"\)$/,
  );
});
