/**
 * The per-kind wire schema of every operation: one entry per OpKind (a Record, so a kind
 * without a schema does not compile). Each entry checks the payload object strictly
 * (unknown keys are 400, D3) and yields the plan node.
 */
import type { OpKind, OpOf, PlanNode, Projection, BindingProjection, BindingTarget, SubTraversal, RepeatConfig } from '../plan/ops.js';
import { INPUT_ONLY_KINDS } from '../plan/ops.js';
import { elementRef, expressionDecoders, order, pathEnd } from './expr.js';
import {
  bool,
  component,
  described,
  fail,
  label,
  list,
  name,
  oneOf,
  optional,
  required,
  str,
  struct,
  tagged,
  taggedSchema,
  tuple,
  u64,
  withDefault,
  type Field,
  type JsonSchema,
} from './schema.js';
import { propertyValue } from './values.js';
import { indexOps } from './index-ops.js';
import { clip } from '../core/clip.js';

/** Kinds that are no object of the JSON wire: `context` is a bare string, `table` comes from Cypher only. */
const NOT_OBJECTS = new Set(['context', 'table']);

/** Any operation tree node. */
export const planNode: Field<PlanNode> = described(
  (json, path) => {
    const { tag, body, bodyPath } = tagged(json, path, 'an operation');
    if (tag === 'context') {
      return body === undefined ? { op: 'context', path } : fail(path, '"context" is a bare string, not an object key');
    }
    const decode = Object.hasOwn(OPS, tag) ? OPS[tag as OpKind] : undefined;
    if (!decode) return fail(path, `unknown operation "${clip(tag)}"`);
    if (body === undefined) return fail(path, `operation "${tag}" needs an object payload`);
    return decode(body, bodyPath);
  },
  component('Operation', operationSchema),
);

function operationSchema(): JsonSchema {
  const kinds = (Object.keys(OPS) as OpKind[]).filter((k) => !NOT_OBJECTS.has(k)).sort();
  return taggedSchema(['context'], Object.fromEntries(kinds.map((k) => [k, OPS[k]])));
}

const { expr, predicate, propertyInput, streamBound } = expressionDecoders(planNode);
const input = required(planNode);
const maybeInput = optional(planNode);
const sub: Field<SubTraversal> = struct({ root: required(planNode) });
const assignments = list(tuple(name, propertyInput));
/** nodes/edges `missing`: absent means "skip", the contract's behaviour. */
const missing = withDefault(oneOf(['skip', 'error'] as const), 'skip');

const propertyProjection = struct({ source: required(name), alias: required(name) });
const exprProjection = struct({ alias: required(name), expr: required(expr) });
const projection: Field<Projection> = described(
  (json, path) => {
    const { tag, body, bodyPath } = tagged(json, path, 'a projection');
    if (tag === 'property') return { kind: 'property', ...propertyProjection(body, bodyPath) };
    if (tag === 'expr') return { kind: 'expr', ...exprProjection(body, bodyPath) };
    return fail(path, `unknown projection "${clip(tag)}" (expected "property" or "expr")`);
  },
  taggedSchema([], { property: propertyProjection, expr: exprProjection }),
);

const bindingTarget: Field<BindingTarget> = described(
  (json, path) => {
    const { tag, body, bodyPath } = tagged(json, path, 'a binding target');
    if (tag === 'current') return body === undefined ? { kind: 'current' } : fail(path, '"current" is a bare string');
    if (tag === 'binding') return { kind: 'binding', name: name(body, bodyPath) };
    return fail(path, `unknown binding target "${clip(tag)}"`);
  },
  taggedSchema(['current'], { binding: name }),
);
const bindingRef = struct({ target: required(bindingTarget), source: required(name) });
const bindingPropertyProjection = struct({ target: required(bindingTarget), source: required(name), alias: required(name) });
const bindingCoalesce = struct({ refs: required(list(bindingRef)), alias: required(name) });
const bindingProjection: Field<BindingProjection> = described(
  (json, path) => {
    const { tag, body, bodyPath } = tagged(json, path, 'a binding projection');
    if (tag === 'property') return { kind: 'property', ...bindingPropertyProjection(body, bodyPath) };
    if (tag === 'coalesce') return { kind: 'coalesce', ...bindingCoalesce(body, bodyPath) };
    return fail(path, `unknown binding projection "${clip(tag)}"`);
  },
  taggedSchema([], { property: bindingPropertyProjection, coalesce: bindingCoalesce }),
);

const repeatConfig: Field<RepeatConfig> = struct({
  traversal: required(sub),
  times: optional(u64),
  until: optional(predicate),
  emit: required(oneOf(['none', 'before', 'after', 'all'] as const)),
  emit_predicate: optional(predicate),
  max_depth: required(u64),
});

/** Builds a kind's decoder from its payload shape; the result is the plan node. */
function op<K extends OpKind>(kind: K, shape: Record<string, Field<unknown>>): Field<OpOf<K>> {
  const decode = struct(shape);
  return described((json, path) => ({ op: kind, path, ...decode(json, path) }) as unknown as OpOf<K>, decode.schema!);
}

/**
 * A path operation's decoder: its ends agree with its input. With an input, one end is
 * `"input"` (each input row is that end of a path of its own); without one, neither is.
 */
function pathOp<K extends 'shortest_path' | 'weighted_shortest_path'>(kind: K, shape: Record<string, Field<unknown>>): Field<OpOf<K>> {
  const decode = op(kind, shape);
  return described((json, path) => {
    const node = decode(json, path);
    const ends = node as OpOf<'shortest_path' | 'weighted_shortest_path'>;
    const fromInput = (['source', 'target'] as const).filter((end) => ends[end].kind === 'input');
    if (ends.input === null && fromInput.length > 0)
      fail(`${path}.${fromInput[0]}`, '"input" stands for each row of the input, and this operation has no "input"');
    if (ends.input !== null && fromInput.length === 0)
      fail(`${path}.input`, 'with an input, "source" or "target" is "input": each input row is that end of a path of its own');
    if (fromInput.length === 2) fail(`${path}.target`, 'only one end of a path can be "input"; the other is a node reference');
    return node;
  }, decode.schema!);
}

const hop = <K extends 'out' | 'in' | 'both' | 'out_e' | 'in_e' | 'both_e'>(k: K) => op(k, { input, label: optional(label) });
const inputOnly = Object.fromEntries(INPUT_ONLY_KINDS.map((k) => [k, op(k, { input })])) as {
  [K in (typeof INPUT_ONLY_KINDS)[number]]: Field<OpOf<K>>;
};

export const OPS: { [K in OpKind]: Field<OpOf<K>> } = {
  ...inputOnly,
  ...indexOps({ op, input, expr, propertyInput }),
  context: (_json, path) => fail(path, '"context" is a bare string, not an object key'),
  // Compiled from Cypher only: the JSON wire has no row-expression language (docs/cypher.md).
  table: (_json, path) => fail(path, 'unknown operation "table"'),
  nodes: op('nodes', { reference: required(elementRef), missing }),
  edges: op('edges', { reference: required(elementRef), missing }),
  nodes_where: op('nodes_where', { predicate: required(predicate) }),
  edges_where: op('edges_where', { predicate: required(predicate) }),
  shortest_path: pathOp('shortest_path', {
    input: maybeInput,
    source: required(pathEnd),
    target: required(pathEnd),
    label: optional(label),
    direction: required(oneOf(['out', 'in', 'both'] as const)),
    max_depth: required(u64),
    result: withDefault(oneOf(['ids', 'path'] as const), 'ids'),
  }),
  weighted_shortest_path: pathOp('weighted_shortest_path', {
    input: maybeInput,
    source: required(pathEnd),
    target: required(pathEnd),
    label: optional(label),
    direction: required(oneOf(['out', 'in', 'both'] as const)),
    weight: required(expr),
    heuristic: optional(name),
  }),
  fuse: op('fuse', {
    input: maybeInput,
    variables: withDefault(list(name), []),
    method: withDefault(oneOf(['rrf', 'score_sum'] as const), 'rrf'),
    k: optional(propertyInput),
  }),
  rerank_mmr: op('rerank_mmr', {
    input,
    lambda: required(propertyInput),
    property: withDefault(name, 'data'),
    metric: withDefault(oneOf(['cosine', 'euclidean', 'dot_product'] as const), 'cosine'),
  }),
  inject: op('inject', { input: maybeInput, variable: required(name) }),
  out: hop('out'),
  in: hop('in'),
  both: hop('both'),
  out_e: hop('out_e'),
  in_e: hop('in_e'),
  both_e: hop('both_e'),
  where: op('where', { input, predicate: required(predicate) }),
  has: op('has', { input, property: required(name), value: required(propertyValue) }),
  has_label: op('has_label', { input, label: required(label) }),
  has_key: op('has_key', { input, property: required(name) }),
  edge_has: op('edge_has', { input, property: required(name), value: required(propertyInput) }),
  edge_has_label: op('edge_has_label', { input, label: required(label) }),
  within: op('within', { input, variable: required(name) }),
  without: op('without', { input, variable: required(name) }),
  limit: op('limit', { input, count: required(streamBound) }),
  skip: op('skip', { input, count: required(streamBound) }),
  range: op('range', { input, start: required(streamBound), end: required(streamBound) }),
  order_by: op('order_by', { input, property: optional(name), expr: optional(expr), order: required(order) }),
  order_by_multiple: op('order_by_multiple', { input, orderings: required(list(tuple(name, order))) }),
  as: op('as', { input, name: required(name) }),
  store: op('store', { input, name: required(name) }),
  select: op('select', { input, name: required(name) }),
  bind: op('bind', { input, name: required(name) }),
  values: op('values', { input, properties: required(list(name)) }),
  value_map: op('value_map', { input, properties: optional(list(name)) }),
  project: op('project', { input, projections: required(list(projection)) }),
  project_bindings: op('project_bindings', { input, projections: required(list(bindingProjection)), distinct: required(bool) }),
  group: op('group', { input, property: required(name) }),
  group_count: op('group_count', { input, property: required(name) }),
  aggregate_by: op('aggregate_by', {
    input,
    function: required(oneOf(['count', 'sum', 'min', 'max', 'mean'] as const)),
    property: required(name),
  }),
  add_n: op('add_n', { input: maybeInput, label: required(label), properties: required(assignments) }),
  add_e: op('add_e', { input, label: required(label), to: required(elementRef), properties: required(assignments) }),
  set_property: op('set_property', { input, name: required(name), value: required(propertyInput) }),
  remove_property: op('remove_property', { input, name: required(name) }),
  drop_edge: op('drop_edge', { input, to: required(elementRef) }),
  drop_edge_labeled: op('drop_edge_labeled', { input, to: required(elementRef), label: required(label) }),
  drop_edge_by_id: op('drop_edge_by_id', { input: maybeInput, edges: required(elementRef) }),
  union: op('union', { input, traversals: required(list(sub)) }),
  coalesce: op('coalesce', { input, traversals: required(list(sub)) }),
  optional: op('optional', { input, traversal: required(sub) }),
  choose: op('choose', { input, condition: required(predicate), then_traversal: required(sub), else_traversal: optional(sub) }),
  repeat: op('repeat', { input, config: required(repeatConfig) }),
  with_sack: op('with_sack', { input, initial: required(propertyValue) }),
  sack_set: op('sack_set', { input, property: required(name) }),
  sack_add: op('sack_add', { input, property: required(name) }),
};

export { str };
