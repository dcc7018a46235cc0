/**
 * Static validation of a decoded plan (reference §10 and the stricter rules of
 * docs/queries.md §6), before anything runs, so a bad plan never half-runs. Each rule has
 * its own 400 code from src/core/errors.ts and a message that starts with the JSON path.
 *
 * Besides shapes it infers, per operation, two facts about the stream flowing out of it:
 * whether its rows carry `bind` bindings, and whether its elements are nodes, edges or
 * either. The after-bind rules of reference §5.5 need both.
 */
import { GraphError, type ErrorCode } from '../core/errors.js';
import { DateTime, type Value } from '../core/value.js';
import type { Entry, QueryPlan } from './batch.js';
import { CATALOG, heldBy, inputOf, subTraversalsOf, type Elements, type OpTraits } from './catalog.js';
import { walkExprs } from './expr-walk.js';
import type { Expr, Predicate } from './expr.js';
import { LIMITS } from './limits.js';
import type { OpKind, OpOf, PlanNode } from './ops.js';
import { walkEntries, walkPlan } from './walk.js';
import { clip } from '../core/clip.js';

function reject(code: ErrorCode, path: string, msg: string): never {
  throw new GraphError(code, `${path}: ${msg}`);
}

/**
 * Property names a mutation cannot assign: they name the element's identity or a search
 * hit's virtual property, which every read resolves before stored properties (§6.2), and
 * "__proto__" cannot be stored. `$label` has its own rules (relabel via set_property).
 */
const RESERVED_PROPERTIES: ReadonlySet<string> = new Set(['$id', '$from', '$to', '$distance', '$score', '__proto__']);

type ElementKind = 'node' | 'edge' | 'any';
/** What flows out of an operation: whether rows carry bindings, and which elements. */
interface StreamInfo {
  readonly bound: boolean;
  readonly kind: ElementKind;
}
const UNKNOWN: StreamInfo = { bound: false, kind: 'any' };
/** The edges a path's weight is evaluated on: rows of their own, without bindings. */
const EDGES: StreamInfo = { bound: false, kind: 'edge' };

interface Scope {
  readonly write: boolean;
  /** Inside a sub-traversal: `context` is the parent's stream. */
  readonly context: StreamInfo | null;
  /** Inside a for_each body, where element fields may shadow parameters. */
  readonly inLoop: boolean;
  /**
   * Inside a traversal expression, which must not change the graph, even in a write batch:
   * it runs per row, lazily, and not at all where a predicate short-circuits or a stream
   * is not read to its end, so its writes would happen an unpredictable number of times.
   */
  readonly inExpression: boolean;
  /** How many traversal expressions enclose this point: the deepest `outer` it allows. */
  readonly expressionDepth: number;
}

/** Counts the size of a plan as it is checked, against the width limits. */
class Budget {
  entries = 0;
  parts = 0;

  entry(path: string): void {
    if (++this.entries > LIMITS.maxEntries)
      reject(
        'limit_exceeded',
        path,
        `a batch may hold at most ${LIMITS.maxEntries} entries (for_each bodies included); loop with for_each over parameters instead`,
      );
  }

  part(path: string): void {
    if (++this.parts > LIMITS.maxPlanParts)
      reject('limit_exceeded', path, `a request may hold at most ${LIMITS.maxPlanParts} operations, predicates and expressions`);
  }
}

export function validatePlan(plan: QueryPlan): void {
  validatePlanNoting(plan);
}

/**
 * validatePlan, answering whether the outcome depended on parameter values (a comparison
 * whose operand is a parameter). When it did not, the plan stays valid for any values of
 * the same parameters (src/prepared-plans.ts).
 */
export function validatePlanNoting(plan: QueryPlan): { readonly readParamValues: boolean } {
  const write = plan.type === 'write';
  const bound = new Set<string>();
  const checker = new Checker(plan, new Budget());
  checker.entries(
    plan.batch.entries,
    'query.' + plan.type + '.entries',
    { write, context: null, inLoop: false, inExpression: false, expressionDepth: 0 },
    bound,
  );
  checkVariables(plan.batch.entries, bound);
  const seen = new Set<string>();
  plan.batch.returns.forEach((name, i) => {
    const path = `query.${plan.type}.returns[${i}]`;
    if (name.length === 0) reject('invalid_empty_name', path, 'return names must not be empty');
    if (seen.has(name)) reject('duplicate_return_variable', path, `"${clip(name)}" is listed twice`);
    if (!bound.has(name)) reject('unknown_return_variable', path, `"${clip(name)}" is not the name of any entry in this batch`);
    seen.add(name);
  });
  return { readParamValues: checker.readParamValues };
}

class Checker {
  /** Whether a check looked at a parameter's value (staticValue). */
  readParamValues = false;

  constructor(
    private readonly plan: QueryPlan,
    private readonly budget: Budget,
  ) {}

  entries(entries: readonly Entry[], path: string, scope: Scope, bound: Set<string>): void {
    if (entries.length === 0) reject('invalid_batch_arity', path, 'a batch needs at least one entry');
    entries.forEach((entry, i) => {
      this.budget.entry(entry.path);
      if (entry.kind === 'for_each') {
        if (!scope.inLoop && !this.plan.params.has(entry.param)) {
          reject(
            'invalid_query',
            `${entry.path}.param`,
            `parameter "${clip(entry.param)}" is not bound; for_each needs an array of objects`,
          );
        }
        this.entries(entry.body, `${entry.path}.body`, { ...scope, inLoop: true }, bound);
        return;
      }
      const cond = entry.condition;
      if (cond?.kind === 'prev_not_empty' && i === 0) {
        reject('invalid_initial_batch_condition', `${entry.path}.condition`, 'prev_not_empty cannot be used on the first entry');
      }
      if (cond?.kind === 'var_min_size' && cond.size === 0) {
        reject('invalid_batch_condition_min_size', `${entry.path}.condition.var_min_size[1]`, 'the minimum size must be at least 1');
      }
      if (entry.name !== null) bound.add(entry.name);
      this.node(entry.root, scope, 0);
    });
  }

  private node(node: PlanNode, scope: Scope, depth: number): StreamInfo {
    if (depth > LIMITS.maxPlanDepth) reject('limit_exceeded', node.path, `operations nest deeper than ${LIMITS.maxPlanDepth} levels`);
    this.budget.part(node.path);
    const traits = CATALOG[node.op];
    if (traits.mutates && scope.inExpression) {
      reject(
        'invalid_sub_traversal_operation',
        node.path,
        `"${node.op}" changes the graph, which a traversal expression cannot do (in read and write batches alike)`,
      );
    }
    if (traits.mutates && !scope.write) {
      reject('mutation_in_read_batch', node.path, `read batches cannot contain mutations ("${node.op}"); send it as a write request`);
    }
    if (traits.readOnlyBatch && scope.write) {
      reject('read_only_traversal_in_write_batch', node.path, `"${node.op}" is only allowed in read batches`);
    }
    if (node.op === 'context') {
      if (scope.context === null) reject('unbound_context', node.path, '"context" is only valid inside a sub-traversal');
      return scope.context;
    }
    const input = inputOf(node);
    if (scope.context !== null && input === null) {
      reject(
        'invalid_sub_traversal_operation',
        node.path,
        `"${node.op}" starts a new traversal, which is not allowed inside a sub-traversal (start from "context")`,
      );
    }
    if (scope.context !== null && node.op === 'project_bindings') {
      reject('invalid_sub_traversal_operation', node.path, 'project_bindings is not allowed inside a sub-traversal');
    }
    let incoming: StreamInfo | null = null;
    if (input !== null) {
      incoming = this.node(input, scope, depth + 1);
      const producer = CATALOG[input.op].yields;
      if (yieldsValues(input) && !(producer !== 'scalar' && traits.onLists)) {
        reject('internal_planner_error', node.path, `"${node.op}" cannot follow "${input.op}", which ends the traversal`);
      }
      this.afterBind(node, incoming);
      if ((node.op === 'shortest_path' || node.op === 'weighted_shortest_path') && incoming.kind === 'edge')
        reject('invalid_query', `${node.path}.input`, `a path starts and ends at nodes, but the input of "${node.op}" yields edges`);
    }
    const branches = subTraversalsOf(node).map((sub) => {
      const info = this.node(sub.root, { ...scope, context: incoming ?? UNKNOWN }, depth + 1);
      if (yieldsValues(sub.root)) {
        reject(
          'invalid_sub_traversal_operation',
          sub.root.path,
          `a "${node.op}" body must yield nodes or edges, but "${sub.root.op}" ends the traversal`,
        );
      }
      return info;
    });
    const out = outputOf(traits, incoming, branches);
    if (node.op === 'union' && out.bound && mixesKinds(branches)) {
      reject(
        'invalid_after_bind_operation',
        node.path,
        'on a stream with bindings, the union branches must all yield nodes or all yield edges',
      );
    }
    checkPayload(node);
    // The rows a held expression reads: the input's, a source's own, repeat's body output, a weight's edges.
    const rows = node.op === 'repeat' ? out : node.op === 'weighted_shortest_path' ? EDGES : (incoming ?? out);
    this.held(node, scope, rows, depth);
    return out;
  }

  /** The after-bind rules (reference §5.5). */
  private afterBind(node: PlanNode, incoming: StreamInfo): void {
    if (!incoming.bound) return;
    const rule = CATALOG[node.op].afterBind;
    if (rule === 'refused') reject('invalid_after_bind_operation', node.path, `"${node.op}" cannot be used after bind`);
    if (rule === 'edges_only' && incoming.kind !== 'edge') {
      reject('invalid_after_bind_operation', node.path, `"${node.op}" after bind needs a stream of edges`);
    }
  }

  /**
   * Parameters and comparisons in the expressions the node holds, and the operation trees
   * of its traversal expressions: sub-traversals of the rows the expressions read.
   */
  private held(node: PlanNode, scope: Scope, rows: StreamInfo, depth: number): void {
    const { exprs, predicates, refs } = heldBy(node);
    for (const { ref, path } of refs) {
      if (ref.kind === 'param') this.param(ref.name, `${path}.param`, scope);
      if (ref.kind === 'outer') outerReach(ref.depth, ref.path, scope);
    }
    const onExpr = (e: Expr) => {
      this.budget.part(e.path);
      if (e.e === 'param') this.param(e.name, e.path, scope);
      if (e.e === 'traversal')
        this.node(e.root, { ...scope, context: rows, inExpression: true, expressionDepth: scope.expressionDepth + 1 }, depth + 1);
      if (e.e === 'outer') outerReach(e.depth, e.path, scope);
    };
    const onPredicate = (p: Predicate) => {
      this.budget.part(p.path);
      this.comparison(p, scope);
    };
    for (const root of [...exprs, ...predicates]) walkExprs(root, onExpr, onPredicate);
  }

  /** Outside for_each bodies every parameter is known before anything runs. */
  private param(name: string, path: string, scope: Scope): void {
    if (!scope.inLoop && !this.plan.params.has(name)) reject('invalid_query', path, `parameter "${clip(name)}" is not bound`);
  }

  /** The value an expression is known to have before execution, if any. */
  private staticValue(e: Expr, scope: Scope): { value: Value } | null {
    if (e.e === 'constant') return { value: e.value };
    if (e.e === 'param' && !scope.inLoop) {
      this.readParamValues = true;
      const value = this.plan.params.get(e.name);
      return value === undefined ? null : { value };
    }
    return null;
  }

  /**
   * Comparisons that can never hold because an operand is known to be of a kind that has
   * no order (reference §4.4 makes them silently false; a client sending one has a bug).
   */
  private comparison(p: Predicate, scope: Scope): void {
    let ordered: readonly Expr[] = [];
    if (p.p === 'compare' && p.op !== 'eq' && p.op !== 'neq') ordered = [p.left, p.right];
    else if (p.p === 'between') ordered = [p.value, p.min, p.max];
    if (ordered.length > 0) {
      let family: string | null = null;
      for (const operand of ordered) {
        const known = this.staticValue(operand, scope);
        if (known === null) continue;
        const f = orderFamily(known.value);
        if (f === null) {
          reject(
            'incompatible_comparison',
            operand.path,
            `${describeKind(known.value)} has no order; "${p.p === 'compare' ? p.op : p.p}" compares numbers, strings or date-times`,
          );
        }
        if (family !== null && f !== family) reject('incompatible_comparison', p.path, `cannot order a ${family} against a ${f}`);
        family = f;
      }
      return;
    }
    if (p.p === 'starts_with' || p.p === 'ends_with' || p.p === 'contains') {
      for (const operand of [p.value, p.arg]) {
        const known = this.staticValue(operand, scope);
        if (known !== null && typeof known.value !== 'string') {
          reject('incompatible_comparison', operand.path, `"${p.p}" works on strings, got ${describeKind(known.value)}`);
        }
      }
    }
  }
}

/** Whether a node ends the traversal: a terminal, or bounds over a terminal's list. */
function yieldsValues(node: PlanNode): boolean {
  let cur: PlanNode | null = node;
  while (cur !== null && CATALOG[cur.op].yields === 'same') cur = inputOf(cur);
  return cur !== null && (CATALOG[cur.op].yields === 'list' || CATALOG[cur.op].yields === 'scalar');
}

function joinKinds(kinds: readonly ElementKind[]): ElementKind {
  return kinds.reduce<ElementKind | null>((a, k) => (a === null || a === k ? k : 'any'), null) ?? 'any';
}

function mixesKinds(branches: readonly StreamInfo[]): boolean {
  return branches.some((b) => b.kind === 'node') && branches.some((b) => b.kind === 'edge');
}

function outputOf(traits: Pick<OpTraits, 'binds' | 'elements'>, incoming: StreamInfo | null, branches: readonly StreamInfo[]): StreamInfo {
  const bound = (incoming?.bound ?? false) || traits.binds || branches.some((b) => b.bound);
  return { bound, kind: elementsOf(traits.elements, incoming, branches) };
}

function elementsOf(elements: Elements, incoming: StreamInfo | null, branches: readonly StreamInfo[]): ElementKind {
  switch (elements) {
    case 'node':
    case 'edge':
      return elements;
    case 'fresh':
      return 'any';
    case 'branches':
    case 'branches_or_input':
      // (A union or coalesce without branches is refused by its payload check.)
      if (branches.length > 0) {
        const passed = elements === 'branches_or_input' && incoming ? [incoming.kind] : [];
        return joinKinds([...branches.map((b) => b.kind), ...passed]);
      }
      return incoming?.kind ?? 'any';
    case 'input':
      return incoming?.kind ?? 'any';
  }
}

function orderFamily(v: Value): string | null {
  if (typeof v === 'bigint' || typeof v === 'number') return 'number';
  if (typeof v === 'string') return 'string';
  if (v instanceof DateTime) return 'date-time';
  return null;
}

function describeKind(v: Value): string {
  if (v === null) return 'null';
  if (typeof v === 'boolean') return 'a bool';
  if (v instanceof Uint8Array) return 'bytes';
  if (ArrayBuffer.isView(v) || Array.isArray(v)) return 'an array';
  if (typeof v === 'object' && !(v instanceof DateTime)) return 'an object';
  return typeof v === 'string' ? 'a string' : v instanceof DateTime ? 'a date-time' : 'a number';
}

/** Stored property names are index keys (the column dictionary), like labels. */
function checkNameLength(name: string, path: string): void {
  const bytes = Buffer.byteLength(name);
  if (bytes > LIMITS.maxLabelBytes)
    reject('limit_exceeded', path, `a property name is at most ${LIMITS.maxLabelBytes} bytes of UTF-8, this one is ${bytes}`);
}

function duplicates(names: readonly string[], path: string, code: ErrorCode, what: string): void {
  const seen = new Set<string>();
  names.forEach((n, i) => {
    if (seen.has(n)) reject(code, `${path}[${i}]`, `${what} "${clip(n)}" appears more than once`);
    seen.add(n);
  });
}

type PayloadCheck<K extends OpKind> = (node: OpOf<K>, path: string) => void;

function checkAssignments(node: OpOf<'add_n' | 'add_e'>, p: string): void {
  duplicates(
    node.properties.map(([k]) => k),
    `${p}.properties`,
    'duplicate_property_assignment',
    'property',
  );
  node.properties.forEach(([k], i) => {
    if (k === '$label')
      reject('invalid_property_name', `${p}.properties[${i}][0]`, '"$label" cannot be assigned here; it is the operation\'s label');
    if (RESERVED_PROPERTIES.has(k)) reject('invalid_property_name', `${p}.properties[${i}][0]`, `"${k}" is reserved and cannot be stored`);
    checkNameLength(k, `${p}.properties[${i}][0]`);
  });
}

function checkPropertyName(node: OpOf<'set_property' | 'remove_property'>, p: string): void {
  if (node.op === 'remove_property' && node.name === '$label') reject('invalid_property_name', `${p}.name`, 'the label cannot be removed');
  if (RESERVED_PROPERTIES.has(node.name))
    reject(
      'invalid_property_name',
      `${p}.name`,
      `"${node.name}" is reserved and cannot be ${node.op === 'set_property' ? 'set' : 'removed'}`,
    );
  checkNameLength(node.name, `${p}.name`);
}

function checkProjections(node: OpOf<'project' | 'project_bindings'>, p: string): void {
  if (node.projections.length === 0) reject('invalid_projection_arity', `${p}.projections`, 'a projection needs at least one item');
  duplicates(
    node.projections.map((x) => x.alias),
    `${p}.projections`,
    'duplicate_projection_alias',
    'alias',
  );
  if (node.op === 'project_bindings') {
    node.projections.forEach((x, i) => {
      if (x.kind === 'coalesce' && x.refs.length === 0)
        reject('invalid_projection_arity', `${p}.projections[${i}].coalesce.refs`, 'coalesce needs at least one ref');
    });
  }
}

function checkBranchCount(node: OpOf<'union' | 'coalesce'>, p: string): void {
  const least = node.op === 'union' ? 2 : 1;
  if (node.traversals.length < least)
    reject(
      'invalid_branch_arity',
      `${p}.traversals`,
      node.op === 'union' ? `union needs at least 2 branches, got ${node.traversals.length}` : 'coalesce needs at least 1 branch',
    );
  if (node.traversals.length > LIMITS.maxBranches) reject('limit_exceeded', `${p}.traversals`, `at most ${LIMITS.maxBranches} branches`);
}

function checkQueryVector(node: OpOf<SearchKind<'vector'>>, p: string): void {
  const q = node.query_vector;
  if (q.kind === 'value' && (!(q.value instanceof Float32Array) || q.value.length === 0 || !q.value.every(Number.isFinite))) {
    reject('invalid_search_input', `${p}.query_vector`, 'a literal query vector must be a non-empty, finite {"f32_array": [...]}');
  }
}

function checkQueryText(node: OpOf<SearchKind<'text'>>, p: string): void {
  const q = node.query_text;
  if (q.kind === 'value' && (typeof q.value !== 'string' || q.value.length === 0)) {
    reject('invalid_search_input', `${p}.query_text`, 'a literal query text must be a non-empty string');
  }
}

type SearchKind<F extends 'vector' | 'text'> = `${F}_search_${'nodes' | 'edges'}${'' | '_within'}`;

/**
 * What each kind's payload must satisfy beyond its wire schema (null: nothing more). A
 * table over every kind, so a new kind has to say whether it needs a check.
 */
export const PAYLOAD_CHECKS: { readonly [K in OpKind]: PayloadCheck<K> | null } = {
  context: null,
  nodes: null,
  edges: null,
  nodes_where: null,
  edges_where: null,
  shortest_path: (node, p) => {
    if (node.max_depth === 0) reject('invalid_shortest_path_count', `${p}.max_depth`, 'max_depth must be at least 1');
    if (node.max_depth > LIMITS.maxRepeatDepth)
      reject('limit_exceeded', `${p}.max_depth`, `max_depth is limited to ${LIMITS.maxRepeatDepth}`);
  },
  weighted_shortest_path: null,
  inject: null,
  out: null,
  in: null,
  both: null,
  out_e: null,
  in_e: null,
  both_e: null,
  out_n: null,
  in_n: null,
  other_n: null,
  where: null,
  has: null,
  has_label: null,
  has_key: null,
  edge_has: null,
  edge_has_label: null,
  dedup: null,
  within: null,
  without: null,
  limit: null,
  skip: null,
  range: (node, p) => {
    if (node.start.kind === 'literal' && node.end.kind === 'literal' && node.start.n > node.end.n) {
      reject('invalid_stream_range', p, `start ${node.start.n} is greater than end ${node.end.n}`);
    }
  },
  order_by: (node, p) => {
    if ((node.property === null) === (node.expr === null))
      reject('invalid_order_keys', p, 'order_by sorts by a property or by an expression ("expr"): give exactly one of them');
  },
  order_by_multiple: (node, p) => {
    if (node.orderings.length === 0) reject('invalid_order_keys', `${p}.orderings`, 'order_by_multiple needs at least one key');
    duplicates(
      node.orderings.map(([k]) => k),
      `${p}.orderings`,
      'duplicate_order_key',
      'sort key',
    );
  },
  as: null,
  store: null,
  select: null,
  bind: null,
  count: null,
  exists: null,
  id: null,
  label: null,
  values: (node, p) => {
    if (node.properties.length === 0) reject('invalid_projection_arity', `${p}.properties`, 'values needs at least one property');
    duplicates(node.properties, `${p}.properties`, 'duplicate_property_selection', 'property');
  },
  value_map: (node, p) => {
    if (node.properties) duplicates(node.properties, `${p}.properties`, 'duplicate_property_selection', 'property');
  },
  project: checkProjections,
  project_bindings: checkProjections,
  edge_properties: null,
  group: null,
  group_count: null,
  aggregate_by: null,
  add_n: checkAssignments,
  add_e: checkAssignments,
  set_property: checkPropertyName,
  remove_property: checkPropertyName,
  drop: null,
  drop_edge: null,
  drop_edge_labeled: null,
  drop_edge_by_id: (node, p) => {
    if (node.edges.kind === 'all') reject('unsupported_edge_all_target', `${p}.edges`, '"all" cannot be used as an edge mutation target');
  },
  union: checkBranchCount,
  coalesce: checkBranchCount,
  optional: null,
  choose: null,
  repeat: (node, p) => {
    const c = node.config;
    if (c.times === 0) reject('invalid_repeat_count', `${p}.config.times`, 'times must be at least 1');
    if (c.max_depth === 0) reject('invalid_repeat_count', `${p}.config.max_depth`, 'max_depth must be at least 1');
    if (c.max_depth > LIMITS.maxRepeatDepth)
      reject('limit_exceeded', `${p}.config.max_depth`, `max_depth is limited to ${LIMITS.maxRepeatDepth}`);
    if (c.emit_predicate !== null && c.emit !== 'after')
      reject('invalid_repeat_emit', `${p}.config.emit_predicate`, 'emit_predicate requires emit "after"');
  },
  fold: null,
  unfold: null,
  path: null,
  simple_path: null,
  with_sack: null,
  sack_set: null,
  sack_add: null,
  sack_get: null,
  create_index: null,
  drop_index: null,
  get_index_operation: null,
  list_indexes: null,
  retry_index_operation: null,
  abort_index_operation: null,
  vector_search_nodes: checkQueryVector,
  vector_search_edges: checkQueryVector,
  vector_search_nodes_within: checkQueryVector,
  vector_search_edges_within: checkQueryVector,
  text_search_nodes: checkQueryText,
  text_search_edges: checkQueryText,
  text_search_nodes_within: checkQueryText,
  text_search_edges_within: checkQueryText,
  fuse: (node, p) => {
    if (node.input === null && node.variables.length === 0)
      reject('invalid_branch_arity', p, 'fuse needs at least one ranking: an input or a variable');
    if (node.variables.length > LIMITS.maxBranches) reject('limit_exceeded', `${p}.variables`, `at most ${LIMITS.maxBranches} rankings`);
    const k = node.k;
    if (k !== null && k.kind === 'value' && !(positiveNumber(k.value) > 0))
      reject('invalid_rerank_parameter', `${p}.k`, 'the fusion constant k is a positive number');
  },
  rerank_mmr: (node, p) => {
    const lambda = node.lambda;
    if (lambda.kind === 'value' && !(unitNumber(lambda.value) >= 0))
      reject('invalid_rerank_parameter', `${p}.lambda`, 'lambda is a number from 0 to 1');
  },
  table: null,
};

/** A literal as a number (integers too), NaN when it is none. */
function positiveNumber(v: Value): number {
  return typeof v === 'bigint' ? Number(v) : typeof v === 'number' ? v : NaN;
}

/** A literal in [0, 1] as a number, NaN otherwise. */
function unitNumber(v: Value): number {
  const n = positiveNumber(v);
  return n >= 0 && n <= 1 ? n : NaN;
}

function checkPayload<K extends OpKind>(node: OpOf<K>): void {
  const check = PAYLOAD_CHECKS[node.op as K] as PayloadCheck<K> | null;
  check?.(node, node.path);
}

/** An `outer` read (an expression or a reference) reaches no further than the traversal expressions around it. */
function outerReach(depth: number, path: string, scope: Scope): void {
  if (depth <= scope.expressionDepth) return;
  reject(
    'invalid_query',
    path,
    scope.expressionDepth === 0
      ? '"outer" reads the row a traversal expression started from, and is not inside one'
      : `"outer" reaches ${depth} traversal expressions out, but ${scope.expressionDepth} enclose it`,
  );
}

/**
 * Every variable a batch reads must be bound somewhere in it, by an entry name or an
 * `as`/`store` step; anything else is a typo that would otherwise read as empty.
 */
function checkVariables(entries: readonly Entry[], entryNames: ReadonlySet<string>): void {
  const bound = new Set(entryNames);
  const refs: { name: string; path: string }[] = [];
  walkEntries(entries, (entry) => {
    const cond = entry.condition;
    if (cond !== null && cond.kind !== 'prev_not_empty') refs.push({ name: cond.name, path: `${entry.path}.condition` });
    walkPlan(entry.root, (node) => {
      if (node.op === 'as' || node.op === 'store') bound.add(node.name);
      for (const ref of variableReads(node)) refs.push(ref);
    });
  });
  for (const ref of refs) {
    if (!bound.has(ref.name))
      reject('unknown_variable', ref.path, `variable "${clip(ref.name)}" is not bound by any entry, as or store in this batch`);
  }
}

function variableReads(node: PlanNode): { name: string; path: string }[] {
  const held = heldBy(node);
  const reads = held.refs.flatMap(({ ref, path }) =>
    ref.kind === 'var'
      ? [{ name: ref.name, path: `${path}.var` }]
      : ref.kind === 'variable'
        ? [{ name: ref.name, path: `${ref.path}.name` }]
        : [],
  );
  const inExpressions: { name: string; path: string }[] = [];
  const onExpr = (e: Expr) => {
    if (e.e === 'variable') inExpressions.push({ name: e.name, path: `${e.path}.name` });
  };
  for (const root of [...held.exprs, ...held.predicates]) walkExprs(root, onExpr, () => {});
  return [...reads, ...held.variables, ...inExpressions];
}
