/**
 * Static validation of a decoded plan (reference §10), before anything runs, so a bad plan
 * never half-runs. Each rule has its own 400 code from src/errors.ts.
 */
import { GraphError, type ErrorCode } from '../errors.js';
import type { Entry, QueryPlan } from './batch.js';
import { CATALOG, inputOf, subTraversalsOf } from './catalog.js';
import { LIMITS } from './limits.js';
import type { OpKind, PlanNode } from './ops.js';
import type { ElementRef } from './expr.js';
import { walkEntries, walkPlan } from './walk.js';

function reject(code: ErrorCode, path: string, msg: string): never {
  throw new GraphError(code, `${path}: ${msg}`);
}

/** Steps that may follow a list-yielding terminal (they work on scalar lists too). */
const LIST_STEPS: ReadonlySet<OpKind> = new Set(['limit', 'skip', 'range', 'dedup', 'count']);
/** Operations rejected once the stream carries bind bindings (reference §5.5). */
const NOT_AFTER_BIND: ReadonlySet<OpKind> = new Set([
  'order_by', 'order_by_multiple', 'choose', 'repeat', 'id', 'label', 'values', 'value_map', 'project', 'edge_properties',
]);

interface Scope {
  readonly write: boolean;
  readonly inSub: boolean;
}

export function validatePlan(plan: QueryPlan): void {
  const write = plan.type === 'write';
  const bound = new Set<string>();
  checkEntries(plan.batch.entries, 'query.' + plan.type + '.entries', write, bound);
  checkVariables(plan.batch.entries, bound);
  const seen = new Set<string>();
  plan.batch.returns.forEach((name, i) => {
    const path = `query.${plan.type}.returns[${i}]`;
    if (name.length === 0) reject('invalid_empty_name', path, 'return names must not be empty');
    if (seen.has(name)) reject('duplicate_return_variable', path, `"${name}" is listed twice`);
    if (!bound.has(name)) reject('unknown_return_variable', path, `"${name}" is not the name of any entry in this batch`);
    seen.add(name);
  });
}

function checkEntries(entries: readonly Entry[], path: string, write: boolean, bound: Set<string>): void {
  if (entries.length === 0) reject('invalid_batch_arity', path, 'a batch needs at least one entry');
  entries.forEach((entry, i) => {
    if (entry.kind === 'for_each') {
      checkEntries(entry.body, `${entry.path}.body`, write, bound);
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
    checkNode(entry.root, { write, inSub: false }, 0);
  });
}

/** Returns whether the node's output carries bind bindings. */
function checkNode(node: PlanNode, scope: Scope, depth: number): boolean {
  if (depth > LIMITS.maxPlanDepth) reject('limit_exceeded', node.path, `operations nest deeper than ${LIMITS.maxPlanDepth} levels`);
  const traits = CATALOG[node.op];
  if (traits.mutates && !scope.write) {
    reject('invalid_query_json', node.path, `read batches cannot contain mutations ("${node.op}"); send it as a write request`);
  }
  if (traits.readOnlyBatch && scope.write) {
    reject('read_only_traversal_in_write_batch', node.path, `"${node.op}" is only allowed in read batches`);
  }
  if (node.op === 'context' && !scope.inSub) reject('unbound_context', node.path, '"context" is only valid inside a sub-traversal');
  const input = inputOf(node);
  if (scope.inSub && input === null && node.op !== 'context') {
    reject('invalid_sub_traversal_operation', node.path, `"${node.op}" starts a new traversal, which is not allowed inside a sub-traversal (start from "context")`);
  }
  if (scope.inSub && node.op === 'project_bindings') {
    reject('invalid_sub_traversal_operation', node.path, 'project_bindings is not allowed inside a sub-traversal');
  }
  let afterBind = false;
  if (input !== null) {
    afterBind = checkNode(input, scope, depth + 1);
    const producer = CATALOG[input.op].yields;
    const producesList = producer === 'list' || producer === 'scalar' || (producer === 'same' && yieldsValues(input));
    if (producesList && !(producer !== 'scalar' && LIST_STEPS.has(node.op))) {
      reject('internal_planner_error', node.path, `"${node.op}" cannot follow "${input.op}", which ends the traversal`);
    }
  }
  if (afterBind && NOT_AFTER_BIND.has(node.op)) {
    reject('invalid_after_bind_operation', node.path, `"${node.op}" cannot be used after bind`);
  }
  for (const sub of subTraversalsOf(node)) checkNode(sub.root, { write: scope.write, inSub: true }, depth + 1);
  checkPayload(node);
  return afterBind || node.op === 'bind';
}

/** Whether a 'same'-yielding chain (limit over values, ...) yields values rather than rows. */
function yieldsValues(node: PlanNode): boolean {
  let cur: PlanNode | null = node;
  while (cur !== null && CATALOG[cur.op].yields === 'same') cur = inputOf(cur);
  return cur !== null && (CATALOG[cur.op].yields === 'list' || CATALOG[cur.op].yields === 'scalar');
}

function duplicates(names: readonly string[], path: string, code: ErrorCode, what: string): void {
  const seen = new Set<string>();
  names.forEach((n, i) => {
    if (seen.has(n)) reject(code, `${path}[${i}]`, `${what} "${n}" appears more than once`);
    seen.add(n);
  });
}

function checkPayload(node: PlanNode): void {
  const p = node.path;
  switch (node.op) {
    case 'add_n':
    case 'add_e':
      duplicates(node.properties.map(([k]) => k), `${p}.properties`, 'duplicate_property_assignment', 'property');
      node.properties.forEach(([k], i) => {
        if (k === '$label') reject('invalid_query', `${p}.properties[${i}]`, '"$label" cannot be assigned; it is the operation\'s label');
      });
      return;
    case 'values':
      if (node.properties.length === 0) reject('invalid_projection_arity', `${p}.properties`, 'values needs at least one property');
      duplicates(node.properties, `${p}.properties`, 'duplicate_property_selection', 'property');
      return;
    case 'value_map':
      if (node.properties) duplicates(node.properties, `${p}.properties`, 'duplicate_property_selection', 'property');
      return;
    case 'project':
    case 'project_bindings':
      if (node.projections.length === 0) reject('invalid_projection_arity', `${p}.projections`, 'a projection needs at least one item');
      duplicates(node.projections.map((x) => x.alias), `${p}.projections`, 'duplicate_projection_alias', 'alias');
      if (node.op === 'project_bindings') {
        node.projections.forEach((x, i) => {
          if (x.kind === 'coalesce' && x.refs.length === 0) reject('invalid_projection_arity', `${p}.projections[${i}].coalesce.refs`, 'coalesce needs at least one ref');
        });
      }
      return;
    case 'order_by_multiple':
      if (node.orderings.length === 0) reject('invalid_order_keys', `${p}.orderings`, 'order_by_multiple needs at least one key');
      duplicates(node.orderings.map(([k]) => k), `${p}.orderings`, 'duplicate_order_key', 'sort key');
      return;
    case 'union':
      if (node.traversals.length < 2) reject('invalid_branch_arity', `${p}.traversals`, `union needs at least 2 branches, got ${node.traversals.length}`);
      return;
    case 'coalesce':
      if (node.traversals.length < 1) reject('invalid_branch_arity', `${p}.traversals`, 'coalesce needs at least 1 branch');
      return;
    case 'repeat': {
      const c = node.config;
      if (c.times === 0) reject('invalid_repeat_count', `${p}.config.times`, 'times must be at least 1');
      if (c.max_depth === 0) reject('invalid_repeat_count', `${p}.config.max_depth`, 'max_depth must be at least 1');
      if (c.max_depth > LIMITS.maxRepeatDepth) reject('limit_exceeded', `${p}.config.max_depth`, `max_depth is limited to ${LIMITS.maxRepeatDepth}`);
      if (c.emit_predicate !== null && c.emit !== 'after') reject('invalid_repeat_emit', `${p}.config.emit_predicate`, 'emit_predicate requires emit "after"');
      return;
    }
    case 'shortest_path':
      if (node.max_depth === 0) reject('invalid_shortest_path_count', `${p}.max_depth`, 'max_depth must be at least 1');
      if (node.max_depth > LIMITS.maxRepeatDepth) reject('limit_exceeded', `${p}.max_depth`, `max_depth is limited to ${LIMITS.maxRepeatDepth}`);
      return;
    case 'range':
      if (node.start.kind === 'literal' && node.end.kind === 'literal' && node.start.n > node.end.n) {
        reject('invalid_stream_range', p, `start ${node.start.n} is greater than end ${node.end.n}`);
      }
      return;
    case 'drop_edge_by_id':
      if (node.edges.kind === 'all') reject('unsupported_edge_all_target', `${p}.edges`, '"all" cannot be used as an edge mutation target');
      return;
    case 'set_property':
    case 'remove_property':
      if (node.op === 'remove_property' && node.name === '$label') reject('invalid_query', `${p}.name`, 'the label cannot be removed');
      return;
    default:
      return;
  }
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
    if (!bound.has(ref.name)) reject('unknown_variable', ref.path, `variable "${ref.name}" is not bound by any entry, as or store in this batch`);
  }
}

function variableReads(node: PlanNode): { name: string; path: string }[] {
  const refOf = (ref: ElementRef, key: string) => (ref.kind === 'var' ? [{ name: ref.name, path: `${node.path}.${key}.var` }] : []);
  switch (node.op) {
    case 'nodes':
    case 'edges':
      return refOf(node.reference, 'reference');
    case 'add_e':
    case 'drop_edge':
    case 'drop_edge_labeled':
      return refOf(node.to, 'to');
    case 'drop_edge_by_id':
      return refOf(node.edges, 'edges');
    case 'shortest_path':
      return [...refOf(node.source, 'source'), ...refOf(node.target, 'target')];
    case 'select':
      return [{ name: node.name, path: `${node.path}.name` }];
    case 'inject':
    case 'within':
    case 'without':
      return [{ name: node.variable, path: `${node.path}.variable` }];
    default:
      return [];
  }
}
