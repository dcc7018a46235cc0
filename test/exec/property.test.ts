/**
 * Property test: random small graphs and random read traversals, run on a real embedded
 * database and compared, order included, with the independent model in ./model.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { open } from '../../src/index.js';
import { tempDir } from '../helpers/server.js';
import {
  evaluate,
  kindAfter,
  type MEdge,
  type MGraph,
  type MNode,
  type Operand,
  type Order,
  type Pred,
  type PropVal,
  type Source,
  type Step,
  type Terminal,
  type Traversal,
} from './model.js';

const NODE_LABELS = ['A', 'B', 'C'];
const EDGE_LABELS = ['X', 'Y'];
const PROPS = ['a', 'b', 'c'];
/** Names a step may read: stored ones, virtual ones, and one that never exists. */
const READ_NAMES = [...PROPS, '$id', '$label', 'zz'];
// '\uff5e' < '\u{1f600}' in UTF-8 byte order but not in UTF-16 code units.
const STRINGS = ['', 'a', 'ab', 'b', 'B', 'é', '\uff5e', '\u{1f600}'];

const valueArb: fc.Arbitrary<PropVal> = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: -3, max: 3 }).map((v): PropVal => ({ t: 'i64', v })) },
  { weight: 3, arbitrary: fc.constantFrom(-1.5, 0.5, 1, 2, 2.5).map((v): PropVal => ({ t: 'f64', v })) },
  { weight: 4, arbitrary: fc.constantFrom(...STRINGS).map((v): PropVal => ({ t: 'string', v })) },
  { weight: 1, arbitrary: fc.boolean().map((v): PropVal => ({ t: 'bool', v })) },
  { weight: 1, arbitrary: fc.constant<PropVal>({ t: 'null' }) },
);

const propsArb = fc
  .tuple(...PROPS.map(() => fc.option(valueArb, { freq: 3 })))
  .map((vals) => vals.flatMap((v, i) => (v === null ? [] : [[PROPS[i]!, v] as const])));

const nodeArb: fc.Arbitrary<MNode> = fc.record({ label: fc.constantFrom(...NODE_LABELS), props: propsArb });

const graphArb: fc.Arbitrary<MGraph> = fc
  .tuple(
    fc.array(nodeArb, { minLength: 1, maxLength: 15, size: 'max' }),
    fc.array(fc.record({ from: fc.nat(99), to: fc.nat(99), label: fc.constantFrom(...EDGE_LABELS), props: propsArb }), {
      maxLength: 40,
      size: 'max',
    }),
  )
  .map(([nodes, raw]) => ({
    nodes,
    edges: nodes.length === 0 ? [] : raw.map((e): MEdge => ({ ...e, from: e.from % nodes.length, to: e.to % nodes.length })),
  }));

const operandArb: fc.Arbitrary<Operand> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...READ_NAMES).map((prop) => ({ prop })) },
  { weight: 3, arbitrary: valueArb.map((constant) => ({ constant })) },
);

/**
 * Comparisons the server rejects before running (400 incompatible_comparison): an ordering
 * with a constant that has no order, or constants of two different kinds; a string
 * predicate with a non-string constant. The model only covers queries that run.
 */
const family = (v: PropVal): string | null => (v.t === 'i64' || v.t === 'f64' ? 'number' : v.t === 'string' ? 'string' : null);
function orderable(left: Operand, right: Operand): boolean {
  const known = [left, right].flatMap((o) => ('constant' in o ? [family(o.constant)] : []));
  return !known.includes(null) && new Set(known).size <= 1;
}
const stringOperand = (o: Operand) => !('constant' in o) || o.constant.t === 'string';

const predArb: fc.Arbitrary<Pred> = fc.letrec<{ pred: Pred }>((tie) => ({
  pred: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc
      .record({ op: fc.constantFrom('eq', 'neq', 'gt', 'gte', 'lt', 'lte' as const), left: operandArb, right: operandArb })
      .filter((p) => p.op === 'eq' || p.op === 'neq' || orderable(p.left, p.right)),
    fc.record({ op: fc.constant('is_null' as const), property: fc.constantFrom(...READ_NAMES) }),
    fc
      .record({
        op: fc.constant('starts_with' as const),
        value: operandArb,
        prefix: fc.oneof(
          fc.constantFrom(...STRINGS).map((v): Operand => ({ constant: { t: 'string', v } })),
          operandArb,
        ),
      })
      .filter((p) => stringOperand(p.value) && stringOperand(p.prefix)),
    fc.record({ op: fc.constantFrom('and', 'or' as const), preds: fc.array(tie('pred'), { minLength: 1, maxLength: 3 }) }),
    fc.record({ op: fc.constant('not' as const), pred: tie('pred') }),
  ),
})).pred;

const orderArb = fc.constantFrom<Order>('asc', 'desc');

/** Raw choices for one step; which step they become depends on the stream kind so far. */
const stepSeedArb = fc.record({
  pick: fc.nat(1000),
  edgeLabel: fc.option(fc.constantFrom(...EDGE_LABELS)),
  nodeLabel: fc.constantFrom(...NODE_LABELS, ...EDGE_LABELS),
  name: fc.constantFrom(...READ_NAMES),
  value: valueArb,
  pred: predArb,
  n: fc.nat(6),
  m: fc.nat(6),
  order: orderArb,
  keys: fc.uniqueArray(fc.tuple(fc.constantFrom(...READ_NAMES), orderArb), { minLength: 1, maxLength: 3, selector: ([k]) => k }),
});
type StepSeed = typeof stepSeedArb extends fc.Arbitrary<infer T> ? T : never;

const COMMON = [
  'has',
  'has_label',
  'has_key',
  'where',
  'where',
  'dedup',
  'as',
  'limit',
  'skip',
  'range',
  'order_by',
  'order_by',
  'order_by_multiple',
  'order_by_multiple',
] as const;
const NODE_ONLY = ['out', 'in', 'both', 'out_e', 'in_e', 'both_e', 'out', 'in', 'both', 'out_e', 'both_e', 'both'] as const;
const EDGE_ONLY = ['out_n', 'in_n', 'other_n', 'out_n', 'in_n', 'other_n', 'other_n'] as const;

function buildSteps(startKind: 'node' | 'edge', seeds: readonly StepSeed[]): Step[] {
  let kind = startKind;
  let stored = false;
  const steps: Step[] = [];
  for (const s of seeds) {
    const options: string[] = [...COMMON, ...(kind === 'node' ? NODE_ONLY : EDGE_ONLY), ...(stored ? ['within', 'without'] : [])];
    const op = options[s.pick % options.length]!;
    const step = makeStep(op, s);
    if (step.op === 'as') stored = true;
    kind = kindAfter(kind, step);
    steps.push(step);
  }
  return steps;
}

function makeStep(op: string, s: StepSeed): Step {
  switch (op) {
    case 'out':
    case 'in':
    case 'both':
    case 'out_e':
    case 'in_e':
    case 'both_e':
      return { op, label: s.edgeLabel };
    case 'out_n':
    case 'in_n':
    case 'other_n':
    case 'dedup':
      return { op };
    case 'has':
      return { op, property: s.name, value: s.value };
    case 'has_label':
      return { op, label: s.nodeLabel };
    case 'has_key':
      return { op, property: s.name };
    case 'where':
      return { op, pred: s.pred };
    case 'as':
    case 'within':
    case 'without':
      return { op, name: 'v' };
    case 'limit':
    case 'skip':
      return { op, n: s.n };
    case 'range':
      return { op, start: Math.min(s.n, s.m), end: Math.max(s.n, s.m) };
    case 'order_by':
      return { op, property: s.name, order: s.order };
    case 'order_by_multiple':
      return { op, keys: s.keys };
    default:
      throw new Error(`unknown step ${op}`);
  }
}

const sourceArb: fc.Arbitrary<Source> = fc.oneof(
  fc.constant<Source>({ op: 'all' }),
  fc.uniqueArray(fc.nat(17), { maxLength: 5 }).map((ids): Source => ({ op: 'ids', ids })),
  fc.constantFrom(...NODE_LABELS, 'Nope').map((label): Source => ({ op: 'label', label })),
  fc.constant<Source>({ op: 'edges_all' }),
);

const terminalArb: fc.Arbitrary<Terminal> = fc.oneof(
  fc.constantFrom<Terminal>({ op: 'stream' }, { op: 'id' }, { op: 'count' }, { op: 'value_map', properties: null }),
  fc
    .uniqueArray(fc.constantFrom(...PROPS, '$id', '$label', '$from', 'zz'), { minLength: 1, maxLength: 3 })
    .map((properties): Terminal => ({ op: 'value_map', properties })),
);

const traversalArb: fc.Arbitrary<Traversal> = fc
  .tuple(sourceArb, fc.array(stepSeedArb, { minLength: 1, maxLength: 5 }), terminalArb)
  .map(([source, seeds, terminal]) => ({ source, steps: buildSteps(source.op === 'edges_all' ? 'edge' : 'node', seeds), terminal }));

// Wire encoding (v2-wire §4, §5)

function tagged(v: PropVal): unknown {
  return v.t === 'null' ? 'null' : { [v.t]: v.v };
}

function expr(o: Operand): unknown {
  return 'prop' in o ? { property: o.prop } : { constant: tagged(o.constant) };
}

function predWire(p: Pred): unknown {
  switch (p.op) {
    case 'and':
    case 'or':
      return { [p.op]: { predicates: p.preds.map(predWire) } };
    case 'not':
      return { not: { predicate: predWire(p.pred) } };
    case 'is_null':
      return { is_null: { property: p.property } };
    case 'starts_with':
      return { starts_with: { value: expr(p.value), prefix: expr(p.prefix) } };
    default:
      return { [p.op]: { left: expr(p.left), right: expr(p.right) } };
  }
}

function stepWire(input: unknown, s: Step): unknown {
  switch (s.op) {
    case 'out':
    case 'in':
    case 'both':
    case 'out_e':
    case 'in_e':
    case 'both_e':
      return { [s.op]: { input, ...(s.label === null ? {} : { label: s.label }) } };
    case 'out_n':
    case 'in_n':
    case 'other_n':
    case 'dedup':
      return { [s.op]: { input } };
    case 'has':
      return { has: { input, property: s.property, value: tagged(s.value) } };
    case 'has_label':
      return { has_label: { input, label: s.label } };
    case 'has_key':
      return { has_key: { input, property: s.property } };
    case 'where':
      return { where: { input, predicate: predWire(s.pred) } };
    case 'as':
      return { as: { input, name: s.name } };
    case 'within':
    case 'without':
      return { [s.op]: { input, variable: s.name } };
    case 'limit':
    case 'skip':
      return { [s.op]: { input, count: { literal: s.n } } };
    case 'range':
      return { range: { input, start: { literal: s.start }, end: { literal: s.end } } };
    case 'order_by':
      return { order_by: { input, property: s.property, order: s.order } };
    case 'order_by_multiple':
      return { order_by_multiple: { input, orderings: s.keys } };
  }
}

function traversalWire(t: Traversal): unknown {
  const s = t.source;
  let root: unknown =
    s.op === 'all'
      ? { nodes: { reference: 'all' } }
      : s.op === 'ids'
        ? { nodes: { reference: { ids: s.ids } } }
        : s.op === 'edges_all'
          ? { edges: { reference: 'all' } }
          : { nodes_where: { predicate: { eq: { left: { property: '$label' }, right: { constant: { string: s.label } } } } } };
  for (const step of t.steps) root = stepWire(root, step);
  const term = t.terminal;
  if (term.op === 'stream') return root;
  if (term.op === 'value_map') return { value_map: { input: root, ...(term.properties === null ? {} : { properties: term.properties }) } };
  return { [term.op]: { input: root } };
}

function loadRequest(g: MGraph): object {
  const props = (list: MNode['props']) => list.map(([k, v]) => [k, { value: tagged(v) }]);
  const entries = [
    ...g.nodes.map((n) => ({ query: { root: { add_n: { label: n.label, properties: props(n.props) } } } })),
    ...g.edges.map((e) => ({
      query: {
        root: {
          add_e: { input: { nodes: { reference: { ids: [e.from] } } }, label: e.label, to: { ids: [e.to] }, properties: props(e.props) },
        },
      },
    })),
  ];
  if (entries.length === 0) entries.push({ query: { root: { nodes: { reference: 'all' } } } } as never);
  return { request_type: 'write', query: { write: { entries, returns: [] } } };
}

const readRequest = (root: unknown): object => ({
  request_type: 'read',
  query: { read: { entries: [{ query: { name: 'r', root } }], returns: ['r'] } },
});

/**
 * The same traversal as the body of a for_each over three rows: from its second run on, a
 * request's label scans read the label's gathered nodes (src/exec/label-view.ts), and the
 * loop returns the last run's result, which must be the same.
 */
const loopRequest = (root: unknown): object => ({
  request_type: 'read',
  query: { read: { entries: [{ for_each: { param: 'rows', body: [{ query: { name: 'r', root } }] } }], returns: ['r'] } },
  parameters: { rows: [{ k: 0 }, { k: 1 }, { k: 2 }] },
});

test('random traversals over random graphs agree with the model, order included', async () => {
  await fc.assert(
    fc.asyncProperty(graphArb, fc.array(traversalArb, { minLength: 10, maxLength: 10 }), async (g, traversals) => {
      const dir = tempDir('trellis-prop-');
      const db = await open(dir.path);
      try {
        await db.query(loadRequest(g));
        for (const t of traversals) {
          const request = readRequest(traversalWire(t));
          const expected = evaluate(g, t);
          let actual: unknown;
          try {
            actual = (await db.query(request)).r;
          } catch (err) {
            throw new Error(`request failed: ${String(err)}\nrequest: ${JSON.stringify(request)}`, { cause: err });
          }
          assert.deepEqual(actual, expected, `request: ${JSON.stringify(request)}`);
          const loop = loopRequest(traversalWire(t));
          assert.deepEqual((await db.query(loop)).r, expected, `request: ${JSON.stringify(loop)}`);
        }
      } finally {
        await db.close();
        dir.remove();
      }
    }),
    { numRuns: Number(process.env.TRELLIS_PROPERTY_RUNS ?? 100) },
  );
});
