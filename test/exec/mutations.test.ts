/** Mutations (reference §5.7, §9): what each writes, what it returns, ids, atomicity. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { GraphError, type ErrorCode } from '../../src/core/errors.js';
import { ci, i, ids, label, openTestDb, prop, q, s, type TestDb } from '../helpers/embedded.js';

const idRows = (...list: number[]) => list.map(($id) => ({ $id }));
const nodeVar = (name: string) => ({ nodes: { reference: { var: name } } });
const edgeIds = (...list: number[]) => ({ edges: { reference: { ids: list } } });
const addN = (l: string, properties: unknown[] = [], input?: unknown) => ({ add_n: { ...(input ? { input } : {}), label: l, properties } });
const addE = (input: unknown, to: unknown, l = 'E', properties: unknown[] = []) => ({ add_e: { input, label: l, to, properties } });

async function withDb(fn: (t: TestDb) => Promise<void>): Promise<void> {
  const t = await openTestDb();
  try {
    await fn(t);
  } finally {
    await t.close();
  }
}

async function rejectsWith(p: Promise<unknown>, code: ErrorCode, where: RegExp): Promise<void> {
  await assert.rejects(p, (err: unknown) => {
    assert.ok(err instanceof GraphError, String(err));
    assert.equal(err.code, code, err.msg);
    assert.equal(err.status, 400);
    assert.match(err.msg, where);
    return true;
  });
}

/** Nodes 0..2 (label P, name a/b/c, n 1/2/3); edges e0 0->1 KNOWS, e1 0->1 LIKES, e2 1->0 KNOWS, e3 0->2 KNOWS. */
async function seed(t: TestDb): Promise<void> {
  await t.write(
    [
      q(
        'a',
        addN('P', [
          ['name', s('a')],
          ['n', i(1)],
        ]),
      ),
      q(
        'b',
        addN('P', [
          ['name', s('b')],
          ['n', i(2)],
        ]),
      ),
      q(
        'c',
        addN('P', [
          ['name', s('c')],
          ['n', i(3)],
        ]),
      ),
      q(null, addE(nodeVar('a'), { var: 'b' }, 'KNOWS')),
      q(null, addE(nodeVar('a'), { var: 'b' }, 'LIKES')),
      q(null, addE(nodeVar('b'), { var: 'a' }, 'KNOWS')),
      q(null, addE(nodeVar('a'), { var: 'c' }, 'KNOWS')),
    ],
    [],
  );
}

const edgeCount = async (t: TestDb) => (await t.read([q('n', { count: { input: { edges: { reference: 'all' } } } })], ['n'])).n[0];

test('set_property on nodes: literal and per-row expression values, rows pass through, later entries see it', async () => {
  await withDb(async (t) => {
    await seed(t);
    const res = await t.write(
      [
        q('set', { set_property: { input: ids(2, 0), name: 'copy', value: { expr: { mul: { left: prop('n'), right: ci(10) } } } } }),
        q('lit', { set_property: { input: ids(1), name: 'name', value: s('B') } }),
        q('seen', { value_map: { input: label('P'), properties: ['name', 'copy'] } }),
      ],
      ['set', 'lit', 'seen'],
    );
    assert.deepEqual(res, {
      set: idRows(2, 0),
      lit: idRows(1),
      seen: [{ name: 'a', copy: 10 }, { name: 'B' }, { name: 'c', copy: 30 }],
    });
  });
});

test('set_property on edges writes the edge; $label on an edge is invalid_query', async () => {
  await withDb(async (t) => {
    await seed(t);
    const res = await t.write(
      [
        q('e', { set_property: { input: edgeIds(1), name: 'w', value: { value: { f64: 0.5 } } } }),
        q('p', { edge_properties: { input: edgeIds(1) } }),
      ],
      ['e', 'p'],
    );
    assert.deepEqual(res, { e: idRows(1), p: [{ $id: 1, $label: 'LIKES', $from: 0, $to: 1, w: 0.5 }] });
    await rejectsWith(
      t.write([q('e', { set_property: { input: edgeIds(0), name: '$label', value: s('X') } })], []),
      'invalid_query',
      /entries\[0\].*set_property/,
    );
  });
});

test('set_property $label relabels a node; a non-string or empty label is invalid_query and nothing commits', async () => {
  await withDb(async (t) => {
    await seed(t);
    await t.write([q(null, { set_property: { input: ids(1), name: '$label', value: s('Q') } })], []);
    const after = await t.read([q('p', { id: { input: label('P') } }), q('q', { value_map: { input: label('Q') } })], ['p', 'q']);
    assert.deepEqual(after, { p: [0, 2], q: [{ $id: 1, $label: 'Q', name: 'b', n: 2 }] });
    for (const value of [i(5), { value: 'null' }, s('')]) {
      await rejectsWith(
        t.write(
          [
            q(null, { set_property: { input: ids(0), name: 'n', value: i(99) } }),
            q(null, { set_property: { input: ids(2), name: '$label', value } }),
          ],
          [],
        ),
        'invalid_query',
        /entries\[1\].*set_property/,
      );
    }
    assert.deepEqual(await t.read([q('r', { values: { input: ids(0, 2), properties: ['$label', 'n'] } })], ['r']), {
      r: [
        { $label: 'P', n: 1 },
        { $label: 'P', n: 3 },
      ],
    });
  });
});

test('remove_property removes from nodes and edges, ignores missing keys, passes rows; $label is a 400', async () => {
  await withDb(async (t) => {
    await seed(t);
    await t.write([q(null, { set_property: { input: edgeIds(0), name: 'w', value: i(1) } })], []);
    const res = await t.write(
      [
        q('r', { remove_property: { input: ids(0, 1), name: 'n' } }),
        q('none', { remove_property: { input: ids(2), name: 'absent' } }),
        q(null, { remove_property: { input: edgeIds(0), name: 'w' } }),
        q('v', { value_map: { input: label('P') } }),
        q('e', { edge_properties: { input: edgeIds(0) } }),
      ],
      ['r', 'none', 'v', 'e'],
    );
    assert.deepEqual(res, {
      r: idRows(0, 1),
      none: idRows(2),
      v: [
        { $id: 0, $label: 'P', name: 'a' },
        { $id: 1, $label: 'P', name: 'b' },
        { $id: 2, $label: 'P', name: 'c', n: 3 },
      ],
      e: [{ $id: 0, $label: 'KNOWS', $from: 0, $to: 1 }],
    });
    await rejectsWith(
      t.write([q(null, { remove_property: { input: ids(0), name: '$label' } })], []),
      'invalid_property_name',
      /entries\[0\]\.query\.root\.remove_property\.name/,
    );
  });
});

test('drop_edge deletes every edge from input to target in that direction only; drop_edge_labeled only one label', async () => {
  await withDb(async (t) => {
    await seed(t);
    assert.deepEqual(await t.write([q('d', { drop_edge_labeled: { input: ids(0), to: { ids: [1] }, label: 'LIKES' } })], ['d']), { d: [] });
    assert.deepEqual(await t.read([q('e', { id: { input: { out_e: { input: ids(0) } } } })], ['e']), { e: [0, 3] });
    assert.deepEqual(await t.write([q('d', { drop_edge: { input: ids(0), to: { ids: [1, 2] } } })], ['d']), { d: [] });
    // 1 -> 0 is the other direction and stays.
    assert.deepEqual(await t.read([q('e', { id: { input: { edges: { reference: 'all' } } } })], ['e']), { e: [2] });
    // Empty input: nothing happens even if the target is missing.
    assert.deepEqual(await t.write([q('d', { drop_edge: { input: ids(), to: { ids: [99] } } })], ['d']), { d: [] });
    assert.equal(await edgeCount(t), 1);
  });
});

test('drop_edge_by_id: without input, with a non-empty guard, with an empty guard; "all" is a 400', async () => {
  await withDb(async (t) => {
    await seed(t);
    assert.deepEqual(await t.write([q('d', { drop_edge_by_id: { edges: { ids: [0] } } })], ['d']), { d: [] });
    assert.deepEqual(await t.write([q('d', { drop_edge_by_id: { input: ids(), edges: { ids: [1] } } })], ['d']), { d: [] });
    assert.equal(await edgeCount(t), 3);
    await t.write([q('d', { drop_edge_by_id: { input: ids(2), edges: { ids: [1, 3] } } })], ['d']);
    assert.deepEqual(await t.read([q('e', { id: { input: { edges: { reference: 'all' } } } })], ['e']), { e: [2] });
    await rejectsWith(
      t.write([q('d', { drop_edge_by_id: { edges: 'all' } })], []),
      'unsupported_edge_all_target',
      /entries\[0\]\.query\.root\.drop_edge_by_id\.edges/,
    );
    await rejectsWith(
      t.write([q('d', { drop_edge_by_id: { input: ids(0), edges: 'all' } })], []),
      'unsupported_edge_all_target',
      /drop_edge_by_id\.edges/,
    );
  });
});

test('add_n with input: one node per input row, ids contiguous, expressions evaluated against each row', async () => {
  await withDb(async (t) => {
    await seed(t);
    const res = await t.write(
      [
        q(
          'made',
          addN(
            'Copy',
            [
              ['from', { expr: { property: 'name' } }],
              ['twice', { expr: { add: { left: prop('n'), right: prop('n') } } }],
              ['k', s('x')],
            ],
            ids(2, 0),
          ),
        ),
        q('all', { value_map: { input: label('Copy') } }),
      ],
      ['made', 'all'],
    );
    assert.deepEqual(res.made, idRows(3, 4));
    assert.deepEqual(res.all, [
      { $id: 3, $label: 'Copy', from: 'c', twice: 6, k: 'x' },
      { $id: 4, $label: 'Copy', from: 'a', twice: 2, k: 'x' },
    ]);
    assert.deepEqual(await t.write([q('none', addN('Copy', [], ids()))], ['none']), { none: [] });
  });
});

test('add_e: one edge per source x target, properties evaluated per source row; empty input is empty, not an error', async () => {
  await withDb(async (t) => {
    await seed(t);
    const res = await t.write(
      [
        q('made', addE(ids(1, 2), { ids: [0, 2] }, 'R', [['src', { expr: { property: 'name' } }]])),
        q('props', { edge_properties: { input: { edges: { reference: { var: 'made' } } } } }),
        q('none', addE(ids(), { ids: [99] })),
        q('none2', addE({ has: { input: ids(0), property: 'name', value: { string: 'zz' } } }, { ids: [0] })),
      ],
      ['made', 'props', 'none', 'none2'],
    );
    assert.deepEqual(res.made, idRows(4, 5, 6, 7));
    assert.deepEqual(res.props, [
      { $id: 4, $label: 'R', $from: 1, $to: 0, src: 'b' },
      { $id: 5, $label: 'R', $from: 1, $to: 2, src: 'b' },
      { $id: 6, $label: 'R', $from: 2, $to: 0, src: 'c' },
      { $id: 7, $label: 'R', $from: 2, $to: 2, src: 'c' },
    ]);
    assert.deepEqual(res.none, []);
    assert.deepEqual(res.none2, []);
    // Source rows but no target node at all: invalid_query naming the target.
    await rejectsWith(t.write([q(null, addE(ids(0), { ids: [] }))], []), 'invalid_query', /add_e\.to/);
  });
});

test('ids are sequential from 0, separate for nodes and edges, and never reused after a drop or a rollback', async () => {
  await withDb(async (t) => {
    const first = await t.write(
      [q('a', addN('T')), q('b', addN('T')), q('e', addE(nodeVar('a'), { var: 'b' })), q('f', addE(nodeVar('b'), { var: 'a' }))],
      ['a', 'b', 'e', 'f'],
    );
    assert.deepEqual(first, { a: idRows(0), b: idRows(1), e: idRows(0), f: idRows(1) });
    await t.write([q(null, { drop: { input: ids(1) } })], []);
    assert.equal(await edgeCount(t), 0);
    const second = await t.write([q('c', addN('T')), q('g', addE(ids(0), { ids: [0] }))], ['c', 'g']);
    assert.ok(second.c[0].$id >= 2, `node id ${second.c[0].$id} was reused`);
    assert.ok(second.g[0].$id >= 2, `edge id ${second.g[0].$id} was reused`);
    await rejectsWith(t.write([q(null, addN('T')), q(null, addE(ids(0), { ids: [999] }))], []), 'node_not_found', /999/);
    const third = await t.write([q('d', addN('T'))], ['d']);
    assert.ok(third.d[0].$id > second.c[0].$id);
    assert.deepEqual(await t.read([q('n', { id: { input: { nodes: { reference: 'all' } } } })], ['n']), {
      n: [0, second.c[0].$id, third.d[0].$id],
    });
  });
});

test('read-your-writes inside a write batch, across entries and within one traversal', async () => {
  await withDb(async (t) => {
    const res = await t.write(
      [
        q('x', addN('W', [['v', i(1)]])),
        q('c1', { count: { input: label('W') } }),
        q('y', addN('W', [['v', i(2)]], { set_property: { input: nodeVar('x'), name: 'v', value: i(5) } })),
        q('e', addE(nodeVar('x'), { var: 'y' })),
        q('walk', { value_map: { input: { out: { input: nodeVar('x') } }, properties: ['v'] } }),
        q('both', { values: { input: label('W'), properties: ['v'] } }),
      ],
      ['c1', 'walk', 'both'],
    );
    assert.deepEqual(res, { c1: [1], walk: [{ v: 2 }], both: [{ v: 5 }, { v: 2 }] });
  });
});

test('a failing entry rolls back every write before it, in earlier entries and for_each bodies', async () => {
  await withDb(async (t) => {
    await seed(t);
    await rejectsWith(
      t.write(
        [
          { for_each: { param: 'rows', body: [q(null, addN('R', [['k', { expr: { param: 'k' } }]]))] } },
          q(null, { set_property: { input: ids(0), name: 'name', value: s('changed') } }),
          q(null, { drop: { input: ids(2) } }),
          q(null, { drop_edge_by_id: { edges: { ids: [0] } } }),
          q(null, { set_property: { input: ids(1), name: 'x', value: { expr: { mod: { left: ci(1), right: ci(0) } } } } }),
        ],
        [],
        { rows: [{ k: 1 }, { k: 2 }] },
      ),
      'invalid_query',
      /entries\[4\].*mod/,
    );
    const res = await t.read(
      [
        q('r', { count: { input: label('R') } }),
        q('p', { values: { input: label('P'), properties: ['name'] } }),
        q('e', { id: { input: { edges: { reference: 'all' } } } }),
      ],
      ['r', 'p', 'e'],
    );
    assert.deepEqual(res, { r: [0], p: [{ name: 'a' }, { name: 'b' }, { name: 'c' }], e: [0, 1, 2, 3] });
  });
});

test('the mutations in one traversal see each other: add_e from freshly relabelled nodes', async () => {
  await withDb(async (t) => {
    await seed(t);
    const res = await t.write(
      [
        q('e', addE({ set_property: { input: label('P'), name: '$label', value: s('Z') } }, { ids: [0] }, 'SELF')),
        q('z', { count: { input: label('Z') } }),
      ],
      ['e', 'z'],
    );
    assert.deepEqual(res, { e: idRows(4, 5, 6), z: [3] });
    assert.deepEqual(
      await t.read(
        [q('p', { count: { input: label('P') } }), q('in', { id: { input: { in: { input: ids(0), label: 'SELF' } } } })],
        ['p', 'in'],
      ),
      { p: [0], in: [0, 1, 2] },
    );
  });
});
