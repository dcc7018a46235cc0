/**
 * for_each bulk inserts (the add_n / add_e-from-parameters pattern) run on a fast path;
 * every element must behave exactly as the generic path would: shadowing, missing
 * sources, missing targets, id lists, missing parameters, the loop's result.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { GraphError } from '../../src/core/errors.js';
import { openTestDb, q, type TestDb } from '../helpers/embedded.js';
import { bulkInsertOf } from '../../src/exec/bulk.js';
import { tableOf } from '../../src/core/row-table.js';
import { decodeImportRequest, encodeImportBatch } from '../../src/wire/import-request.js';
import type { Entry, QueryPlan } from '../../src/plan/batch.js';

let t: TestDb;
before(async () => {
  t = await openTestDb();
  await t.write(
    [{ for_each: { param: 'rows', body: [q(null, { add_n: { label: 'P', properties: [['i', { expr: { param: 'i' } }]] } })] } }],
    [],
    {
      rows: Array.from({ length: 5 }, (_, i) => ({ i })),
    },
  );
});
after(() => t.close());

const param = (name: string) => ({ expr: { param: name } });
const edgeBody = (properties: unknown[] = [['w', param('w')]]) => ({
  add_e: { input: { nodes: { reference: { param: 'a' } } }, label: 'E', to: { param: 'b' }, properties },
});
const loop = (body: unknown) => ({ for_each: { param: 'rows', body: [q(null, body)] } });
const edges = async () => (await t.read([q('e', { edge_properties: { input: { edges: { reference: 'all' } } } })], ['e'])).e;

test('edges from parameters: fields shadow outer parameters, a missing source adds nothing, the loop yields the last edge', async () => {
  const before = (await edges()).length;
  const res = await t.write([loop(edgeBody()), q('n', { count: { input: { edges: { reference: 'all' } } } })], ['n'], {
    w: 'outer',
    rows: [
      { a: 0, b: 1 },
      { a: 1, b: 2, w: 'inner' },
      { a: 99, b: 3 },
      { a: 3, b: 4 },
    ],
  });
  assert.deepEqual(res, { n: [before + 3] });
  const added = (await edges()).slice(before);
  assert.deepEqual(
    added.map((e: any) => [e.$from, e.$to, e.w]),
    [
      [0, 1, 'outer'],
      [1, 2, 'inner'],
      [3, 4, 'outer'],
    ],
  );
  // The for_each entry's result is the body's last result: prev_not_empty sees it.
  const chained = await t.write(
    [loop(edgeBody()), q('after', { count: { input: { nodes: { reference: 'all' } } } }, 'prev_not_empty')],
    ['after'],
    { w: 1, rows: [{ a: 4, b: 0 }] },
  );
  assert.deepEqual(chained, { after: [5] });
  const empty = await t.write(
    [loop(edgeBody()), q('after', { count: { input: { nodes: { reference: 'all' } } } }, 'prev_not_empty')],
    ['after'],
    {
      w: 1,
      rows: [{ a: 77, b: 0 }],
    },
  );
  assert.deepEqual(empty, { after: [] });
});

test('elements the fast path does not take still work: id lists, and errors name the place', async () => {
  const before = (await edges()).length;
  await t.write([loop(edgeBody([]))], [], {
    rows: [
      { a: [0, 1], b: 2 },
      { a: 2, b: [3, 4] },
    ],
  });
  assert.deepEqual(
    (await edges()).slice(before).map((e: any) => [e.$from, e.$to]),
    [
      [0, 2],
      [1, 2],
      [2, 3],
      [2, 4],
    ],
  );
  const fails = async (rows: unknown[], code: string, msg: RegExp) =>
    assert.rejects(
      t.write([loop(edgeBody())], [], { w: 1, rows }),
      (err: unknown) => err instanceof GraphError && err.code === code && msg.test(err.msg),
    );
  await fails(
    [
      { a: 0, b: 1 },
      { a: 0, b: 50 },
    ],
    'node_not_found',
    /for_each\.body\[0\]\.query\.root\.add_e\.to: node 50 does not exist/,
  );
  await fails([{ a: 0 }], 'invalid_query', /add_e\.to\.param: parameter "b" is not bound/);
  await fails(
    [
      { a: 0, b: 1, w: 2 },
      { a: -1, b: 1 },
    ],
    'invalid_query',
    /add_e\.input\.nodes\.reference\.param: parameter "a" must hold a non-negative integer id/,
  );
  await assert.rejects(
    t.write([loop(edgeBody([['w', param('missing')]]))], [], { rows: [{ a: 0, b: 1 }] }),
    /parameter "missing" is not bound/,
  );
  // Nothing of the failed batches was kept.
  assert.equal((await edges()).length, before + 4);
});

test('nodes from parameters, literals and constants, with shadowing', async () => {
  const res = await t.write(
    [
      {
        for_each: {
          param: 'rows',
          body: [
            q(null, {
              add_n: {
                label: 'Q',
                properties: [
                  ['x', param('x')],
                  ['k', { value: { string: 'lit' } }],
                  ['c', { expr: { constant: { i64: 7 } } }],
                  ['o', param('o')],
                ],
              },
            }),
          ],
        },
      },
    ],
    [],
    { o: 'outer', rows: [{ x: 1 }, { x: 2.5, o: 'inner' }] },
  );
  assert.deepEqual(res, {});
  const nodes = await t.read(
    [
      q('q', {
        value_map: {
          input: { nodes_where: { predicate: { eq: { left: { property: '$label' }, right: { constant: { string: 'Q' } } } } } },
        },
      }),
    ],
    ['q'],
  );
  assert.deepEqual(
    nodes.q.map((n: any) => [n.x, n.k, n.c, n.o]),
    [
      [1, 'lit', 7, 'outer'],
      [2.5, 'lit', 7, 'inner'],
    ],
  );
  // The array parameter itself is hidden inside the body.
  await assert.rejects(
    t.write([{ for_each: { param: 'rows', body: [q(null, { add_n: { label: 'Q', properties: [['r', param('rows')]] } })] } }], [], {
      rows: [{}],
    }),
    /parameter "rows" is not bound/,
  );
});

test('a table of rows (64 or more, every property a column) is stored many at a time, answering as row by row', async () => {
  const count = async (root: unknown) => (await t.read([q('n', { count: { input: root } })], ['n'])).n[0];
  const nodesBefore = await count({ nodes: { reference: 'all' } });
  const edgesBefore = (await edges()).length;
  // 100 nodes: the loop's result is the last one (prev_not_empty sees it), ids follow one by one.
  const made = await t.write(
    [
      {
        for_each: {
          param: 'rows',
          body: [
            q(null, {
              add_n: {
                label: 'T',
                properties: [
                  ['k', param('k')],
                  ['s', param('s')],
                ],
              },
            }),
          ],
        },
      },
      q('after', { count: { input: { nodes: { reference: 'all' } } } }, 'prev_not_empty'),
    ],
    ['after'],
    { rows: Array.from({ length: 100 }, (_, k) => ({ k, s: `s${k}` })) },
  );
  assert.deepEqual(made, { after: [nodesBefore + 100] });
  const labelT = { nodes_where: { predicate: { eq: { left: { property: '$label' }, right: { constant: { string: 'T' } } } } } };
  const ids = (await t.read([q('t', { value_map: { input: labelT } })], ['t'])).t.map((n: any) => [n.$id, n.k, n.s]);
  assert.equal(ids.length, 100);
  ids.forEach(([id, k, s]: [number, number, string], i: number) => assert.deepEqual([id - ids[0][0], k, s], [i, i, `s${i}`]));
  const first = ids[0][0] as number;
  const rows = (n: number, change: (k: number) => { a: number; b: number } | null = () => null) =>
    Array.from({ length: n }, (_, k) => ({ ...(change(k) ?? { a: first + k, b: first + ((k * 3) % 100) }), w: k }));
  // 100 edges; a source that is no node adds nothing (as row by row); then a target that is
  // no node is an error naming it, and nothing of that batch is kept.
  await t.write([loop(edgeBody())], [], { rows: rows(100) });
  await t.write([loop(edgeBody())], [], { rows: rows(100, (k) => (k === 40 ? { a: 999_999, b: first } : null)) });
  await assert.rejects(
    t.write([loop(edgeBody())], [], { rows: rows(100, (k) => (k === 70 ? { a: first, b: 999_999 } : null)) }),
    (err: unknown) => err instanceof GraphError && err.code === 'node_not_found' && /add_e\.to: node 999999 does not exist/.test(err.msg),
  );
  const added = (await edges()).slice(edgesBefore);
  assert.equal(added.length, 199);
  assert.deepEqual(
    added.slice(0, 3).map((e: any) => [e.$from - first, e.$to - first, e.w]),
    [
      [0, 0, 0],
      [1, 3, 1],
      [2, 6, 2],
    ],
  );
  assert.deepEqual(
    added.slice(139, 141).map((e: any) => [e.$from - first, e.$to - first, e.w]),
    [
      [39, 17, 39],
      [41, 23, 41],
    ],
    'the row whose source is no node is skipped',
  );
});

test('an import batch takes the column path (whole tables); a body with a literal property does not', () => {
  const forEachOf = (plan: QueryPlan) => plan.batch.entries.find((e) => e.kind === 'for_each') as Extract<Entry, { kind: 'for_each' }>;
  const wholeOf = (plan: QueryPlan) => {
    const entry = forEachOf(plan);
    return bulkInsertOf(entry, false)?.whole?.(tableOf(plan.params.get(entry.param)!)!) ?? null;
  };
  const nodes = decodeImportRequest(
    encodeImportBatch({ label: 'N', element: 'node', columns: [{ name: 'k', kind: 'int', values: Float64Array.from([1, 2, 3]) }] }),
  );
  assert.notEqual(wholeOf(nodes), null);
  const edgesPlan = decodeImportRequest(
    encodeImportBatch({
      label: 'E',
      element: 'edge',
      from: Float64Array.from([0, 1, 2]),
      to: Float64Array.from([1, 2, 0]),
      columns: [{ name: 'w', kind: 'any', values: ['a', 'b', 'c'] }],
    }),
  );
  assert.notEqual(wholeOf(edgesPlan), null);
  // The same loop with a literal property: row by row.
  const literal = forEachOf(nodes);
  const root = (literal.body[0] as Extract<Entry, { kind: 'query' }>).root as unknown as { properties: unknown[] };
  const withLiteral = {
    ...literal,
    body: [{ ...literal.body[0]!, root: { ...root, properties: [...root.properties, ['c', { kind: 'value', value: 1n }]] } }],
  };
  assert.equal(bulkInsertOf(withLiteral as never, false)?.whole?.(tableOf(nodes.params.get(literal.param)!)!) ?? null, null);
});
