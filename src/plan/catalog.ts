/**
 * Every fact about an operation kind that does not depend on how it runs, in one table:
 * where it may stand in a traversal, whether it mutates, what it yields, which elements
 * flow out of it, how it behaves after `bind`, and what it holds (expressions,
 * predicates, element references, variables, branch bodies, the filter it applies).
 * Validation (validate.ts), plan walks (walk.ts), the read/write split and the executors'
 * scan recognition read only this table. Its type is a mapped type over `OpKind`, so a new
 * kind without an entry does not compile (test/plan/catalog-types.test.ts shows it).
 */
import type { ElementRef, Expr, Predicate, PropertyInput, StreamBound } from './expr.js';
import type { OpKind, OpOf, PlanNode, SearchFields, SubTraversal } from './ops.js';

/** source: no input; optional: may start or continue; step: needs an input. */
export type Position = 'source' | 'optional' | 'step';
/** What the operation yields: a row stream, a list of values, one scalar, or its input's kind. */
export type Yields = 'rows' | 'list' | 'scalar' | 'same';
/**
 * Which elements flow out: nodes, edges, rows it picks up that may be either (`fresh`),
 * its input's (`input`; any for a source), its branch bodies' joined (`branches`), or
 * those joined with its input's where it also passes input rows through (`branches_or_input`:
 * optional emits a row whose branch is empty, repeat may emit or end on its input).
 */
export type Elements = 'node' | 'edge' | 'fresh' | 'input' | 'branches' | 'branches_or_input';
/** On a stream that carries `bind` bindings (reference §5.5): allowed, refused, or only on edges. */
export type AfterBind = 'allowed' | 'refused' | 'edges_only';

/** The expressions, predicates, element references and variables an operation holds directly. */
export interface Held {
  readonly exprs: readonly Expr[];
  readonly predicates: readonly Predicate[];
  readonly refs: readonly { readonly ref: ElementRef; readonly path: string }[];
  /** Variables it reads by name (select, inject, within, without); refs of kind `var` are in `refs`. */
  readonly variables: readonly { readonly name: string; readonly path: string }[];
}

/**
 * The rows a filter keeps: of its input (a step), or of every element of its kind (a
 * source); `all` keeps every one. Scans (src/exec/scan/) are recognised from this.
 */
export type Keeps = Predicate | 'all';

export interface OpTraits<K extends OpKind = OpKind> {
  readonly position: Position;
  readonly mutates: boolean;
  readonly yields: Yields;
  readonly elements: Elements;
  /** Marks its rows as carrying bindings (bind). */
  readonly binds: boolean;
  readonly afterBind: AfterBind;
  /** May follow a list-yielding terminal: it works on lists of values too (limit, count...). */
  readonly onLists: boolean;
  /** bind / project_bindings: read batches only (reference §2.1). */
  readonly readOnlyBatch: boolean;
  readonly held: (node: OpOf<K>) => Held;
  /** The sub-traversals it runs on its rows (branch and repeat bodies). */
  readonly branches: (node: OpOf<K>) => readonly SubTraversal[];
  /** For a pure filter: the rows it keeps; null where it is not one (or not one of the form of a predicate). */
  readonly keeps: ((node: OpOf<K>) => Keeps | null) | null;
}

export type Catalog = { readonly [K in OpKind]: OpTraits<K> };

const NOTHING: Held = { exprs: [], predicates: [], refs: [], variables: [] };
const holdsNothing = (): Held => NOTHING;
const NO_BRANCHES: readonly SubTraversal[] = [];
const noBranches = (): readonly SubTraversal[] => NO_BRANCHES;

type Defaults = Omit<OpTraits, 'position' | 'mutates' | 'yields' | 'elements'>;
const DEFAULTS: Defaults = {
  binds: false,
  afterBind: 'allowed',
  onLists: false,
  readOnlyBatch: false,
  held: holdsNothing,
  branches: noBranches,
  keeps: null,
};
type Extra<K extends OpKind> = Partial<Omit<OpTraits<K>, 'position' | 'mutates' | 'yields'>>;

/** An operation with no input that reads the graph. */
function src<K extends OpKind>(elements: Elements, yields: Yields = 'rows', extra: Extra<K> = {}): OpTraits<K> {
  return { ...DEFAULTS, position: 'source', mutates: false, yields, elements, ...extra };
}
/** An operation over its input's rows that changes nothing. */
function step<K extends OpKind>(elements: Elements, yields: Yields = 'rows', extra: Extra<K> = {}): OpTraits<K> {
  return { ...DEFAULTS, position: 'step', mutates: false, yields, elements, ...extra };
}
/** A mutation (write batches only). */
function mut<K extends OpKind>(position: Position, elements: Elements, extra: Extra<K> = {}): OpTraits<K> {
  return { ...DEFAULTS, position, mutates: true, yields: 'rows', elements, ...extra };
}
/** Index DDL and operation changes: write batches only, one status object as the result. */
function ddl<K extends OpKind>(): OpTraits<K> {
  return { ...DEFAULTS, position: 'source', mutates: true, yields: 'scalar', elements: 'input' };
}

const exprsOf = (inputs: readonly (PropertyInput | null)[]): Expr[] =>
  inputs.flatMap((i) => (i !== null && i.kind === 'expr' ? [i.expr] : []));
const boundExprs = (bounds: readonly StreamBound[]): Expr[] => bounds.flatMap((b) => (b.kind === 'expr' ? [b.expr] : []));
const holds = (held: Partial<Held>): Held => ({ ...NOTHING, ...held });
const refAt = (ref: ElementRef, path: string) => ({ ref, path });
/** The node references of a path's ends (an `"input"` end names none). */
const pathRefs = (node: OpOf<'shortest_path' | 'weighted_shortest_path'>) =>
  (['source', 'target'] as const).flatMap((end) => {
    const ref = node[end];
    return ref.kind === 'input' ? [] : [refAt(ref, `${node.path}.${end}`)];
  });
/** A search's query, k, tenant value and (vector searches) beam. */
const searchHeld = (node: SearchFields & { readonly path: string }, query: PropertyInput, ef: StreamBound | null = null): Held =>
  holds({ exprs: [...exprsOf([query]), ...boundExprs(ef === null ? [node.k] : [node.k, ef]), ...exprsOf([node.tenant_value])] });
const variable = (node: { readonly variable: string; readonly path: string }): Held =>
  holds({ variables: [{ name: node.variable, path: `${node.path}.variable` }] });

/** `has(property, value)` as the predicate it means: property == value. */
export function hasPredicate(node: OpOf<'has'>): Predicate {
  return {
    p: 'compare',
    op: 'eq',
    path: node.path,
    left: { e: 'property', name: node.property, path: `${node.path}.property` },
    right: { e: 'constant', value: node.value, path: `${node.path}.value` },
  };
}

export function hasKeyPredicate(node: OpOf<'has_key'>): Predicate {
  return { p: 'has_key', property: node.property, path: node.path };
}

function hasLabelPredicate(node: OpOf<'has_label'>): Predicate {
  return {
    p: 'compare',
    op: 'eq',
    path: node.path,
    left: { e: 'property', name: '$label', path: `${node.path}.label` },
    right: { e: 'constant', value: node.label, path: `${node.path}.label` },
  };
}

export const CATALOG: Catalog = {
  context: src('input'),
  nodes: src('node', 'rows', {
    held: (n) => holds({ refs: [refAt(n.reference, `${n.path}.reference`)] }),
    keeps: (n) => (n.reference.kind === 'all' ? 'all' : null),
  }),
  edges: src('edge', 'rows', { held: (n) => holds({ refs: [refAt(n.reference, `${n.path}.reference`)] }) }),
  nodes_where: src('node', 'rows', { held: (n) => holds({ predicates: [n.predicate] }), keeps: (n) => n.predicate }),
  edges_where: src('edge', 'rows', { held: (n) => holds({ predicates: [n.predicate] }), keeps: (n) => n.predicate }),
  // Sources, or with an input (one end "input") steps: one path per input row.
  shortest_path: { ...src('input', 'list', { held: (n) => holds({ refs: pathRefs(n) }) }), position: 'optional' },
  weighted_shortest_path: {
    ...src('input', 'list', { held: (n) => holds({ exprs: [n.weight], refs: pathRefs(n) }) }),
    position: 'optional',
  },
  inject: { ...src('fresh', 'rows', { held: variable }), position: 'optional' },
  out: step('node'),
  in: step('node'),
  both: step('node'),
  out_e: step('edge'),
  in_e: step('edge'),
  both_e: step('edge'),
  out_n: step('node'),
  in_n: step('node'),
  other_n: step('node'),
  where: step('input', 'rows', { held: (n) => holds({ predicates: [n.predicate] }), keeps: (n) => n.predicate }),
  has: step('input', 'rows', { keeps: hasPredicate }),
  has_label: step('input', 'rows', { keeps: hasLabelPredicate }),
  has_key: step('input', 'rows', { keeps: hasKeyPredicate }),
  edge_has: step('input', 'rows', { afterBind: 'edges_only', held: (n) => holds({ exprs: exprsOf([n.value]) }) }),
  edge_has_label: step('input', 'rows', { afterBind: 'edges_only' }),
  dedup: step('input', 'same', { onLists: true }),
  within: step('input', 'rows', { held: variable }),
  without: step('input', 'rows', { held: variable }),
  limit: step('input', 'same', { onLists: true, held: (n) => holds({ exprs: boundExprs([n.count]) }) }),
  skip: step('input', 'same', { onLists: true, held: (n) => holds({ exprs: boundExprs([n.count]) }) }),
  range: step('input', 'same', { onLists: true, held: (n) => holds({ exprs: boundExprs([n.start, n.end]) }) }),
  order_by: step('input', 'rows', { afterBind: 'refused', held: (n) => holds({ exprs: n.expr === null ? [] : [n.expr] }) }),
  order_by_multiple: step('input', 'rows', { afterBind: 'refused' }),
  as: step('input'),
  store: step('input'),
  select: step('fresh', 'rows', { held: (n) => holds({ variables: [{ name: n.name, path: `${n.path}.name` }] }) }),
  bind: step('input', 'rows', { binds: true, readOnlyBatch: true }),
  count: step('input', 'scalar', { onLists: true }),
  exists: step('input', 'scalar'),
  id: step('input', 'list', { afterBind: 'refused' }),
  label: step('input', 'list', { afterBind: 'refused' }),
  values: step('input', 'list', { afterBind: 'refused' }),
  value_map: step('input', 'list', { afterBind: 'refused' }),
  project: step('input', 'list', {
    afterBind: 'refused',
    held: (n) => holds({ exprs: n.projections.flatMap((x) => (x.kind === 'expr' ? [x.expr] : [])) }),
  }),
  project_bindings: step('input', 'list', { readOnlyBatch: true }),
  edge_properties: step('input', 'list', { afterBind: 'refused' }),
  group: step('input', 'list'),
  group_count: step('input', 'list'),
  aggregate_by: step('input', 'list'),
  add_n: mut('optional', 'node', { held: (n) => holds({ exprs: exprsOf(n.properties.map(([, v]) => v)) }) }),
  add_e: mut('step', 'edge', {
    held: (n) => holds({ exprs: exprsOf(n.properties.map(([, v]) => v)), refs: [refAt(n.to, `${n.path}.to`)] }),
  }),
  set_property: mut('step', 'input', { held: (n) => holds({ exprs: exprsOf([n.value]) }) }),
  remove_property: mut('step', 'input'),
  drop: mut('step', 'node'),
  drop_edge: mut('step', 'node', { held: (n) => holds({ refs: [refAt(n.to, `${n.path}.to`)] }) }),
  drop_edge_labeled: mut('step', 'node', { held: (n) => holds({ refs: [refAt(n.to, `${n.path}.to`)] }) }),
  drop_edge_by_id: mut('optional', 'node', { held: (n) => holds({ refs: [refAt(n.edges, `${n.path}.edges`)] }) }),
  union: step('branches', 'rows', { branches: (n) => n.traversals }),
  coalesce: step('branches', 'rows', { branches: (n) => n.traversals }),
  optional: step('branches_or_input', 'rows', { branches: (n) => [n.traversal] }),
  choose: step('branches', 'rows', {
    afterBind: 'refused',
    held: (n) => holds({ predicates: [n.condition] }),
    branches: (n) => (n.else_traversal ? [n.then_traversal, n.else_traversal] : [n.then_traversal]),
  }),
  repeat: step('branches_or_input', 'rows', {
    afterBind: 'refused',
    held: (n) => holds({ predicates: [n.config.until, n.config.emit_predicate].filter((x): x is Predicate => x !== null) }),
    branches: (n) => [n.config.traversal],
  }),
  fold: step('input'),
  unfold: step('input'),
  path: step('input'),
  simple_path: step('input'),
  with_sack: step('input'),
  sack_set: step('input'),
  sack_add: step('input'),
  sack_get: step('input'),
  create_index: ddl(),
  drop_index: ddl(),
  get_index_operation: src('input', 'scalar'),
  list_indexes: src('input', 'list'),
  retry_index_operation: ddl(),
  abort_index_operation: ddl(),
  vector_search_nodes: src('node', 'rows', { held: (n) => searchHeld(n, n.query_vector, n.ef) }),
  vector_search_edges: src('edge', 'rows', { held: (n) => searchHeld(n, n.query_vector, n.ef) }),
  text_search_nodes: src('node', 'rows', { held: (n) => searchHeld(n, n.query_text) }),
  text_search_edges: src('edge', 'rows', { held: (n) => searchHeld(n, n.query_text) }),
  vector_search_nodes_within: step('node', 'rows', { held: (n) => searchHeld(n, n.query_vector, n.ef) }),
  vector_search_edges_within: step('edge', 'rows', { held: (n) => searchHeld(n, n.query_vector, n.ef) }),
  text_search_nodes_within: step('node', 'rows', { held: (n) => searchHeld(n, n.query_text) }),
  text_search_edges_within: step('edge', 'rows', { held: (n) => searchHeld(n, n.query_text) }),
  // Rankings fused (its input's and its variables'), and maximal marginal relevance.
  fuse: {
    ...src('fresh', 'rows', {
      held: (n) =>
        holds({
          exprs: exprsOf([n.k]),
          variables: n.variables.map((name, i) => ({ name, path: `${n.path}.variables[${i}]` })),
        }),
    }),
    position: 'optional',
  },
  rerank_mmr: step('input', 'rows', { held: (n) => holds({ exprs: exprsOf([n.lambda]) }) }),
  // A Cypher statement: its request type is the compiler's (effect), not this entry's.
  table: src('input', 'list'),
};

/**
 * The entry of `node`'s kind, typed for that node. (TypeScript cannot correlate
 * `CATALOG[node.op]` with `node` by itself; the mapped type guarantees they match.)
 */
export function traitsOf<K extends OpKind>(node: OpOf<K>): OpTraits<K> {
  return CATALOG[node.op as K] as OpTraits<K>;
}

/** The node's input, if it has one. */
export function inputOf(node: PlanNode): PlanNode | null {
  return 'input' in node ? node.input : null;
}

/** The sub-traversals a node runs on its rows (branch and repeat bodies). */
export function subTraversalsOf(node: PlanNode): readonly SubTraversal[] {
  return traitsOf(node).branches(node);
}

/** The expressions, predicates, element references and variables a node holds directly. */
export function heldBy(node: PlanNode): Held {
  return traitsOf(node).held(node);
}

/** For a pure filter, the rows it keeps (see Keeps); else null. */
export function keptBy(node: PlanNode): Keeps | null {
  const keeps = traitsOf(node).keeps;
  return keeps === null ? null : keeps(node);
}

export function isKind<K extends OpKind>(node: PlanNode, kind: K): node is OpOf<K> {
  return node.op === kind;
}
