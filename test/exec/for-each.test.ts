/**
 * Read for_each loops whose bodies scan, filter by the row's parameters and sort: every
 * answer is compared with a plain computation over the same nodes. A read loop returns
 * only its last iteration, so each body runs over every prefix of the rows, whose last row
 * differs from the rows before it: an iteration that reused what an earlier one computed
 * for other parameters would answer wrongly. From its second run in a request a label scan
 * reads the label's gathered nodes (src/exec/label-view.ts); labels here are spread over
 * four stored blocks, and one has more than 1024 nodes (two gathered blocks).
 */
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { openTestDb, q, rejects400, type TestDb } from '../helpers/embedded.js';

type Plain = number | string;
interface Node {
  readonly id: number;
  readonly label: string;
  readonly props: Readonly<Record<string, Plain | { k: number }>>;
}
interface Row {
  readonly min: number;
  readonly start: number;
  readonly end: number;
  readonly g: number;
  readonly id: number;
  readonly lab: string;
  readonly wmin: number;
}

const NODES = 4000;
let t: TestDb;
const nodes: Node[] = [];

function labelOf(i: number): string {
  if (i % 50 === 7) return 'A';
  return i % 3 === 0 ? 'C' : 'B';
}

function propsOf(i: number, label: string): Record<string, Plain | { k: number }> {
  const props: Record<string, Plain | { k: number }> = { v: (i * 37) % 101 };
  if (i % 11 !== 0) props.w = ((i * 13) % 17) / 2 + 0.25;
  if (i % 5 !== 0) props.s = `s${(i * 7) % 23}`;
  if (label === 'A') {
    props.o = { k: i % 5 };
    // Numbers and strings in one property: its gathered chunk is a generic one.
    if (i % 4 !== 1) props.m = i % 4 === 3 ? `m${i % 7}` : (i * 3) % 10;
  }
  return props;
}

const tagged = (v: Plain | { k: number }): unknown =>
  typeof v === 'string'
    ? { string: v }
    : typeof v === 'number'
      ? Number.isInteger(v)
        ? { i64: v }
        : { f64: v }
      : { object: { k: { i64: v.k } } };

before(async () => {
  t = await openTestDb();
  const entries: unknown[] = [];
  for (let i = 0; i < NODES; i++) {
    const label = labelOf(i);
    const props = propsOf(i, label);
    nodes.push({ id: i, label, props });
    entries.push(q(null, { add_n: { label, properties: Object.entries(props).map(([k, v]) => [k, { value: tagged(v) }]) } }));
  }
  await t.write(entries, []);
});
after(() => t.close());

const rows: Row[] = Array.from({ length: 80 }, (_, j) => ({
  min: (j * 7) % 101,
  start: j % 4,
  end: (j % 4) + (j % 5) + 1,
  g: j % 5,
  id: j % 6 === 5 ? 99_999 : 7 + 50 * ((j * 11) % 80),
  lab: ['A', 'B', 'C', 'Nope'][j % 4]!,
  wmin: (j % 9) - 0.5,
}));

// The plain computation: order_by's order (missing first ascending, last descending;
// numbers before strings; ties by id).
function rank(v: Plain | undefined): number {
  return v === undefined ? -1 : typeof v === 'number' ? 0 : 1;
}
function keyCompare(a: Plain | undefined, b: Plain | undefined, desc: boolean): number {
  let c: number;
  if (a === undefined || b === undefined || typeof a !== typeof b) c = rank(a) - rank(b);
  else c = a < b ? -1 : a > b ? 1 : 0;
  return desc ? -c : c;
}
const prop = (n: Node, k: string) => n.props[k] as Plain | undefined;
function sorted(list: readonly Node[], keys: readonly (readonly [string, 'asc' | 'desc'])[]): Node[] {
  return [...list].sort((a, b) => {
    for (const [k, o] of keys) {
      const c = keyCompare(prop(a, k), prop(b, k), o === 'desc');
      if (c !== 0) return c;
    }
    return a.id - b.id;
  });
}
const ofLabel = (l: string) => nodes.filter((n) => n.label === l);
const refs = (list: readonly Node[]) => list.map((n) => ({ $id: n.id }));

const labelIs = (l: string) => ({ eq: { left: { property: '$label' }, right: { constant: { string: l } } } });
const labelScan = (l: string) => ({ nodes_where: { predicate: labelIs(l) } });
const param = (name: string) => ({ param: name });

interface Case {
  readonly root: unknown;
  expected(row: Row): unknown[];
}

const CASES: Record<string, Case> = {
  'a parameter filter, a sort and a page bounded by parameters': {
    root: {
      range: {
        input: {
          order_by: {
            input: {
              nodes_where: {
                predicate: { and: { predicates: [labelIs('A'), { gte: { left: { property: 'v' }, right: param('min') } }] } },
              },
            },
            property: 'w',
            order: 'desc',
          },
        },
        start: { expr: param('start') },
        end: { expr: param('end') },
      },
    },
    expected: (r) =>
      refs(
        sorted(
          ofLabel('A').filter((n) => (n.props.v as number) >= r.min),
          [['w', 'desc']],
        ).slice(r.start, r.end),
      ),
  },
  'a deep page of a two-key sort over two gathered blocks': {
    root: {
      id: {
        input: {
          range: {
            input: {
              order_by_multiple: {
                input: labelScan('C'),
                orderings: [
                  ['s', 'asc'],
                  ['v', 'desc'],
                ],
              },
            },
            start: { expr: param('start') },
            end: { literal: 1100 },
          },
        },
      },
    },
    expected: (r) =>
      sorted(ofLabel('C'), [
        ['s', 'asc'],
        ['v', 'desc'],
      ])
        .slice(r.start, 1100)
        .map((n) => n.id),
  },
  'a filter evaluated on records (a dotted path), then a sort and a projection': {
    root: {
      value_map: {
        properties: ['v', 'o'],
        input: {
          limit: {
            count: { literal: 3 },
            input: {
              order_by: {
                input: { where: { input: labelScan('A'), predicate: { eq: { left: { property: 'o.k' }, right: param('g') } } } },
                property: 'v',
                order: 'asc',
              },
            },
          },
        },
      },
    },
    expected: (r) =>
      sorted(
        ofLabel('A').filter((n) => (n.props.o as { k: number }).k === r.g),
        [['v', 'asc']],
      )
        .slice(0, 3)
        .map((n) => ({ v: n.props.v, o: n.props.o })),
  },
  'a count of a filtered label scan over two gathered blocks': {
    root: { count: { input: { where: { input: labelScan('C'), predicate: { lt: { left: { property: 'v' }, right: param('min') } } } } } },
    expected: (r) => [ofLabel('C').filter((n) => (n.props.v as number) < r.min).length],
  },
  'an unsorted filtered stream (a missing property never passes gt)': {
    root: { id: { input: { where: { input: labelScan('A'), predicate: { gt: { left: { property: 'w' }, right: param('wmin') } } } } } },
    expected: (r) => ofLabel('A').flatMap((n) => (n.props.w !== undefined && (n.props.w as number) > r.wmin ? [n.id] : [])),
  },
  'a whole sort of numbers, strings and missing values': {
    root: { id: { input: { order_by: { input: labelScan('A'), property: 'm', order: 'desc' } } } },
    expected: () => sorted(ofLabel('A'), [['m', 'desc']]).map((n) => n.id),
  },
  'a sort of a label scan with a record filter and no bound': {
    root: {
      id: {
        input: {
          order_by: {
            input: { where: { input: labelScan('A'), predicate: { neq: { left: { property: 'o.k' }, right: param('g') } } } },
            property: 's',
            order: 'asc',
          },
        },
      },
    },
    expected: (r) =>
      sorted(
        ofLabel('A').filter((n) => (n.props.o as { k: number }).k !== r.g),
        [['s', 'asc']],
      ).map((n) => n.id),
  },
  'a label given by a parameter': {
    root: {
      count: {
        input: {
          nodes_where: {
            predicate: {
              and: {
                predicates: [
                  { eq: { left: { property: '$label' }, right: param('lab') } },
                  { gte: { left: { property: 'v' }, right: param('min') } },
                ],
              },
            },
          },
        },
      },
    },
    expected: (r) => [ofLabel(r.lab).filter((n) => (n.props.v as number) >= r.min).length],
  },
  'a label no node has': {
    root: {
      range: { input: { order_by: { input: labelScan('Nope'), property: 'v', order: 'asc' } }, start: { literal: 0 }, end: { literal: 3 } },
    },
    expected: () => [],
  },
  'an id lookup by parameter, which may name no node': {
    root: { value_map: { properties: ['v', 's'], input: { nodes: { reference: param('id') } } } },
    expected: (r) =>
      nodes
        .filter((n) => n.id === r.id)
        .map((n) => Object.fromEntries(['v', 's'].flatMap((k) => (n.props[k] === undefined ? [] : [[k, n.props[k]]])))),
  },
};

const loop = (root: unknown) => [{ for_each: { param: 'rows', body: [q('r', root)] } }];

for (const [name, c] of Object.entries(CASES)) {
  test(`for_each body: ${name}`, async () => {
    // Prefixes of up to 12 rows go as object arrays; 80 rows travel as a row table.
    for (const k of [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 80]) {
      const res = await t.read(loop(c.root), ['r'], { rows: rows.slice(0, k) });
      assert.deepEqual(res.r, c.expected(rows[k - 1]!), `${name}: the last of ${k} rows, ${JSON.stringify(rows[k - 1])}`);
    }
  });
}

test('the same scan in entries after a loop, and in two loops, answers from one snapshot', async () => {
  const page = CASES['a parameter filter, a sort and a page bounded by parameters']!;
  const count = CASES['a count of a filtered label scan over two gathered blocks']!;
  const res = await t.read(
    [
      { for_each: { param: 'rows', body: [q('a', page.root), q('b', count.root)] } },
      { for_each: { param: 'more', body: [q('c', count.root)] } },
      q('d', { count: { input: labelScan('C') } }),
    ],
    ['a', 'b', 'c', 'd'],
    { rows: rows.slice(0, 9), more: rows.slice(20, 23) },
  );
  assert.deepEqual(res, {
    a: page.expected(rows[8]!),
    b: count.expected(rows[8]!),
    c: count.expected(rows[22]!),
    d: [ofLabel('C').length],
  });
});

test('parameter scopes: fields shadow, the array is hidden, nested loops see outer fields, all restored after', async () => {
  const one = { nodes: { reference: { ids: [0] } } };
  const show = (...names: string[]) => ({
    project: { input: one, projections: names.map((n) => ({ expr: { alias: n, expr: param(n) } })) },
  });
  // 70 uniform rows travel as a row table, 3 as plain objects: both must behave alike.
  for (const count of [3, 70]) {
    const outer = Array.from({ length: count }, (_, i) => ({ x: i, y: `y${i}` }));
    const res = await t.read(
      [
        {
          for_each: {
            param: 'rows',
            body: [{ for_each: { param: 'inner', body: [q('seen', show('x', 'y', 'z'))] } }, q('mid', show('x', 'z'))],
          },
        },
        q('after', show('x', 'z')),
      ],
      ['seen', 'mid', 'after'],
      { x: 'outer', z: 'zz', rows: outer, inner: [{ y: 'in0' }, { y: 'in1' }] },
    );
    assert.deepEqual(res, {
      seen: [{ x: count - 1, y: 'in1', z: 'zz' }],
      mid: [{ x: count - 1, z: 'zz' }],
      after: [{ x: 'outer', z: 'zz' }],
    });
    // The loop's own array is not a parameter inside its body; a nested loop's neither.
    await rejects400(
      t.read(loop(show('rows')), ['r'], { rows: outer }),
      'invalid_query',
      /for_each\.body\[0\]\.query\.root\.project\.projections\[0\]\.expr\.expr\.param: parameter "rows" is not bound/,
    );
    await rejects400(
      t.read([{ for_each: { param: 'rows', body: [{ for_each: { param: 'inner', body: [q('r', show('inner'))] } }] } }], ['r'], {
        rows: outer,
        inner: [{ y: 1 }],
      }),
      'invalid_query',
      /parameter "inner" is not bound/,
    );
    // A field that only some elements have is unbound in the others.
    await rejects400(t.read(loop(show('y')), ['r'], { rows: [{ y: 1 }, { x: 2 }] }), 'invalid_query', /parameter "y" is not bound/);
  }
});
