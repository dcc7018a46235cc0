/**
 * Scans over property columns (src/exec/scan.ts) against the generic executors on the same
 * data: a node source given as an explicit id list is never a scan, so `where` over it,
 * `count` of it and `limit(order_by(...))` of it take the row-by-row path. Over several
 * column blocks, labels mixed and uniform, values of every chunk kind, random predicates
 * (compiled and residual) must give the same answers, in the same order, nodes without a
 * label among them.
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { openTestDb, q, type TestDb } from '../helpers/embedded.js';
import { scanKeysOfOneKind } from '../../src/exec/scan/column-facts.js';
import type { ScanSpec } from '../../src/exec/scan/recognise.js';
import { Exec } from '../../src/exec/context.js';
import { EXECUTORS } from '../../src/exec/registry.js';

let t: TestDb;
const N = 2600; // three blocks of 1024 ids
let allIds: number[] = [];

/** Deterministic mixed data: block 0 all label A, blocks 1-2 mixed A/B; property kinds vary by block. */
function row(i: number): Record<string, unknown> {
  const block = Math.floor(i / 1024);
  const r: Record<string, unknown> = { label: block === 0 || i % 3 !== 0 ? 'A' : 'B' };
  if (i % 7 !== 0) r.n = block === 2 && i % 11 === 0 ? `s${i % 5}` : i % 5 === 0 ? (i % 13) + 0.5 : i % 13;
  if (i % 5 !== 1) r.s = ['x', 'y', 'z', 'xy', ''][i % 5];
  if (block === 1 && i % 17 === 0) r.s = i % 2 ? null : true;
  if (i % 4 === 0) r.f = i % 8 === 0 ? 1.5 : i % 3;
  return r;
}

before(async () => {
  t = await openTestDb();
  const rows = Array.from({ length: N }, (_, i) => row(i));
  const props = (keys: string[]) => keys.map((k) => [k, { expr: { param: k } }]);
  // Each row is its own one-element for_each, so ids follow i while every row has exactly its own keys.
  const body = (r: Record<string, unknown>) => ({
    add_n: { label: r.label, properties: props(Object.keys(r).filter((k) => k !== 'label')) },
  });
  for (let start = 0; start < N; start += 200) {
    const entries = rows.slice(start, start + 200).map((r, k) => ({ for_each: { param: `r${k}`, body: [q(null, body(r))] } }));
    const parameters = Object.fromEntries(
      rows.slice(start, start + 200).map((r, k) => [`r${k}`, [Object.fromEntries(Object.entries(r).filter(([key]) => key !== 'label'))]]),
    );
    await t.write(entries, [], parameters);
  }
  // Nodes without a label (D22; only Cypher makes them): '$label' reads null on both paths.
  await t.db.cypherText({ query: "CREATE ({n: 3, s: 'x'}), ({f: 1.5}), (), ({n: 's1'})" });
  // Delete a few, so blocks have holes.
  await t.write([q(null, { drop: { input: { nodes: { reference: { ids: [5, 1030, 2000, 2599] } } } } })], []);
  allIds = (await t.read([q('r', { id: { input: { nodes: { reference: 'all' } } } })], ['r'])).r;
});
after(() => t.close());

const prop = (p: string) => ({ property: p });
const constArb = fc.oneof(
  fc.integer({ min: -1, max: 14 }).map((v) => ({ constant: { i64: v } })),
  fc.constantFrom(0.5, 1.5, 5.5, 12.5).map((v) => ({ constant: { f64: v } })),
  fc.constantFrom('x', 'xy', 'y', 'z', '', 's1').map((v) => ({ constant: { string: v } })),
);
const nameArb = fc.constantFrom('n', 's', 'f', 'missing', '$id', '$label');
const leafArb = fc.oneof(
  fc
    .record({ op: fc.constantFrom('eq', 'neq', 'gt', 'gte', 'lt', 'lte'), name: nameArb, c: constArb, flip: fc.boolean() })
    .map(({ op, name, c, flip }) => ({ [op]: flip ? { left: c, right: prop(name) } : { left: prop(name), right: c } })),
  fc
    .record({ op: fc.constantFrom('has_key', 'is_null', 'is_not_null'), name: nameArb })
    .map(({ op, name }) => ({ [op]: { property: name } })),
  fc.record({ op: fc.constantFrom('starts_with', 'ends_with', 'contains'), s: fc.constantFrom('x', 'y', '') }).map(({ op, s }) => ({
    [op]: {
      value: prop('s'),
      [op === 'starts_with' ? 'prefix' : op === 'ends_with' ? 'suffix' : 'substring']: { constant: { string: s } },
    },
  })),
  fc.constantFrom('A', 'B', 'C').map((l) => ({ eq: { left: prop('$label'), right: { constant: { string: l } } } })),
  // Not compilable: a comparison between two properties is evaluated on records.
  fc.constant({ gt: { left: prop('n'), right: prop('f') } }),
  fc
    .record({ lo: fc.integer({ min: 0, max: 12 }), hi: fc.integer({ min: 0, max: 12 }) })
    .map(({ lo, hi }) => ({ between: { value: prop('n'), min: { constant: { i64: lo } }, max: { constant: { i64: hi } } } })),
  fc.constant({ is_in: { value: prop('s'), values: { constant: { string_array: ['x', 'z'] } } } }),
);
const predArb: fc.Arbitrary<unknown> = fc.letrec<{ p: unknown }>((tie) => ({
  p: fc.oneof(
    { depthSize: 'small' },
    leafArb,
    fc.array(tie('p'), { minLength: 1, maxLength: 3 }).map((ps) => ({ and: { predicates: ps } })),
    fc.array(tie('p'), { minLength: 1, maxLength: 3 }).map((ps) => ({ or: { predicates: ps } })),
    tie('p').map((p) => ({ not: { predicate: p } })),
  ),
})).p;

/** A legal comparison (the static checks refuse constants of two kinds); others are skipped. */
async function both(scanRoot: unknown, genericRoot: unknown): Promise<void> {
  let scan: unknown;
  try {
    scan = (await t.read([q('r', scanRoot)], ['r'])).r;
  } catch (err) {
    await assert.rejects(t.read([q('r', genericRoot)], ['r']), { message: (err as Error).message });
    return;
  }
  assert.deepEqual(scan, (await t.read([q('r', genericRoot)], ['r'])).r);
}

const scanSource = { nodes: { reference: 'all' } };
const listSource = () => ({ nodes: { reference: { ids: allIds } } });

test('property: filters, counts and ordered pages over columns equal the row-by-row executors', async () => {
  await fc.assert(
    fc.asyncProperty(
      predArb,
      predArb,
      fc.constantFrom('n', 's', 'f', 'missing'),
      fc.constantFrom('asc', 'desc'),
      fc.nat(40),
      fc.integer({ min: 1, max: 30 }),
      fc.nat(2700),
      async (p1, p2, key, order, start, size, deep) => {
        const scanWhere = { where: { input: { nodes_where: { predicate: p1 } }, predicate: p2 } };
        const listWhere = { where: { input: { where: { input: listSource(), predicate: p1 } }, predicate: p2 } };
        await both({ id: { input: scanWhere } }, { id: { input: listWhere } });
        await both({ count: { input: scanWhere } }, { count: { input: listWhere } });
        const page = (input: unknown) => ({
          id: {
            input: {
              range: {
                input: {
                  order_by_multiple: {
                    input,
                    orderings: [
                      [key, order],
                      ['n', 'asc'],
                    ],
                  },
                },
                start: { literal: start },
                end: { literal: start + size },
              },
            },
          },
        });
        await both(page(scanWhere), page(listWhere));
        await both(
          { id: { input: { limit: { input: { order_by: { input: scanSource, property: key, order } }, count: { literal: size } } } } },
          {
            id: { input: { limit: { input: { order_by: { input: listSource(), property: key, order } }, count: { literal: size } } } },
          },
        );
        // Deep pages of one key take the sorted-copy path when the key is numeric.
        const deepPage = (input: unknown) => ({
          id: {
            input: {
              range: { input: { order_by: { input, property: key, order } }, start: { literal: deep }, end: { literal: deep + size } },
            },
          },
        });
        await both(deepPage(scanWhere), deepPage(listWhere));
        await both(deepPage(scanSource), deepPage(listSource()));
      },
    ),
    { numRuns: Number(process.env.TRELLIS_PROPERTY_RUNS ?? 150) },
  );
});

test("a top-k skips blocks and rows only when they cannot win: ties on the heap's worst key, missing keys, a string second key", async () => {
  // A fresh database: ids 0 to 3071 fill three whole blocks of 1024, every key present in
  // every slot (dense chunks) except where a row lacks t3 on purpose.
  const own = await openTestDb();
  try {
    await own.db.cypherText({
      query: `UNWIND range(0, 3071) AS i WITH i, i / 1024 AS b, 'b' + toString(1000 + i % 500) AS varied
        CREATE (:S {uid: i, n: CASE WHEN i = 1500 THEN -1 ELSE i % 7 END,
          t1: CASE b WHEN 0 THEN varied WHEN 1 THEN 'b1000' ELSE 'c' END,
          t2: CASE b WHEN 0 THEN varied WHEN 1 THEN 'b1499' ELSE 'a' END,
          k: i % 512, t4: 'x' + toString((i * 7919) % 3072)})`,
    });
    await own.db.cypherText({
      query: "MATCH (u:S) WHERE u.uid <> 1600 SET u.t3 = CASE WHEN u.uid < 1024 THEN 'b' + toString(1000 + u.uid % 500) ELSE 'c' END",
    });
    const top = async (...orderings: [string, 'asc' | 'desc'][]) =>
      (
        await own.read(
          [
            q('r', {
              id: {
                input: {
                  limit: { input: { order_by_multiple: { input: { nodes: { reference: 'all' } }, orderings } }, count: { literal: 1 } },
                },
              },
            }),
          ],
          ['r'],
        )
      ).r;
    // Block 1's best t1 equals the heap's worst after block 0: its row with a better n wins.
    assert.deepEqual(await top(['t1', 'asc'], ['n', 'asc']), [1500]);
    // Descending, block 1's best t2 equals the heap's worst: the same.
    assert.deepEqual(await top(['t2', 'desc'], ['n', 'asc']), [1500]);
    // Block 1's strings are all worse than block 0's, but one row lacks t3: missing sorts first ascending.
    assert.deepEqual(await top(['t3', 'asc']), [1600]);
    // The same on a second key: block 1's t1 all tie the heap's worst (b1000) and its t3
    // strings are worse, so the block's zones alone would drop it, but row 1600 lacks t3.
    assert.deepEqual(await top(['t1', 'asc'], ['t3', 'asc']), [1600]);
    // Descending: block 1's t2 all tie the heap's worst (row 499: b1499, b1499) and its t3
    // 'c' is better, so the zones must keep the block; its first row wins.
    assert.deepEqual(await top(['t2', 'desc'], ['t3', 'desc']), [1024]);
    // Two rows per block tie on k = 0 with the heap's worst: few slots, so their t4 strings
    // are compared one by one; the largest t4 among the six wins.
    const t4 = (i: number) => `x${(i * 7919) % 3072}`;
    const best = [0, 512, 1024, 1536, 2048, 2560].reduce((a, b) => (t4(b) > t4(a) ? b : a));
    assert.deepEqual(await top(['k', 'asc'], ['t4', 'desc']), [best]);
  } finally {
    await own.close();
  }
});

test("scanKeysOfOneKind: true only when the nodes of the scan's label that hold a key hold it as numbers only or strings only, as of the last commit", async () => {
  // A fresh database: ids 0 to 2047 fill two whole blocks. The last node of each block is
  // of label O and holds other kinds under K's names: those must not count, though they
  // turn the blocks' chunks into general ones.
  const own = await openTestDb();
  try {
    const kNodes = (from: number, to: number) =>
      own.db.cypherText({
        query: `UNWIND range(${from}, ${to}) AS i CREATE (:K {num: i, str: 'k' + toString(i), tag: 't' + toString(i % 3),
          split: CASE WHEN i < 1024 THEN i ELSE 's' END, holey: CASE WHEN i = 1500 THEN null ELSE i END,
          nan: CASE WHEN i = 7 THEN 0.0 / 0.0 ELSE 1.5 END})`,
      });
    const oNode = () => own.db.cypherText({ query: "CREATE (:O {num: 'o', str: 1})" });
    await kNodes(0, 1022);
    await oNode();
    await kNodes(1024, 2046);
    await oNode();
    const kindsOf = (name: string) => own.db.store.read((reader) => [...reader.nodeColumns([name])].map((b) => b.columns[0]?.kind));
    assert.deepEqual(kindsOf('num'), ['gen', 'gen'], 'the O nodes make general chunks');
    assert.deepEqual(kindsOf('split'), ['num', 'str']);
    assert.deepEqual(kindsOf('tag'), ['str', 'str']);
    const label = (l: string): ScanSpec => ({
      predicates: [
        {
          p: 'compare',
          op: 'eq',
          path: '$',
          left: { e: 'property', name: '$label', path: '$' },
          right: { e: 'constant', value: l, path: '$' },
        },
      ],
    });
    const oneKind = (l: string, names: string[]) =>
      own.db.store.read((reader) => scanKeysOfOneKind(new Exec(reader, null, new Map(), EXECUTORS, false, () => {}), label(l), names));
    assert.equal(oneKind('K', ['num']), true, "numbers, the O nodes' strings aside");
    assert.equal(oneKind('K', ['str']), true, "strings, the O nodes' numbers aside");
    assert.equal(oneKind('K', ['tag']), true, 'strings in string chunks');
    assert.equal(oneKind('K', ['num', 'str']), true, 'a number key and a string key');
    assert.equal(oneKind('O', ['num']), true, "O's strings, K's numbers aside");
    assert.equal(oneKind('K', ['split']), false, 'numbers in one block, strings in the other');
    assert.equal(oneKind('K', ['holey']), true, 'a node without the key (Cypher null, sorted as such by the column path)');
    assert.equal(oneKind('K', ['nan']), false, 'a NaN');
    assert.equal(oneKind('K', ['num', 'missing']), true, 'a key no node has');
    assert.equal(oneKind('K', ['nan', 'missing']), false, 'a NaN beside a key no node has');
    assert.equal(oneKind('Nobody', ['num']), true, 'no node has the label: nothing to order');

    // A reader keeps each answer until a commit changes the columns (GraphReader.columnsFact).
    // A third block of O nodes alone, holding numbers: K's answer passes over it, O's changes.
    await own.db.cypherText({ query: 'UNWIND range(1, 1024) AS i CREATE (:O {num: i})' });
    assert.equal(kindsOf('num')[2], 'num', 'a block of O nodes holding numbers');
    assert.equal(oneKind('K', ['num']), true, 'a block of O nodes alone is passed over');
    assert.equal(oneKind('O', ['num']), false, "O's strings, and now numbers in a block of their own");
    await own.db.cypherText({ query: "CREATE (:K {num: 'x'})" });
    assert.equal(oneKind('K', ['num']), false, 'a string among the numbers, after the answer was kept');
  } finally {
    await own.close();
  }
});
