/**
 * What every operation kind is, independent of how it runs: where it may stand in a
 * traversal, whether it mutates, whether it ends a traversal. Validation (validate.ts)
 * and the read/write split are driven by this table alone. It is a Record over OpKind,
 * so a new kind without an entry does not compile.
 */
import type { OpKind, OpOf, PlanNode, SubTraversal } from './ops.js';

/** source: no input; optional: may start or continue; step: needs an input. */
export type Position = 'source' | 'optional' | 'step';
/** What the operation yields: a row stream, a list of values, or one scalar. */
export type Yields = 'rows' | 'list' | 'scalar' | 'same';

export interface OpTraits {
  readonly position: Position;
  readonly mutates: boolean;
  readonly yields: Yields;
  /** bind / project_bindings: read batches only (reference §2.1). */
  readonly readOnlyBatch?: true;
}

const src = (yields: Yields = 'rows'): OpTraits => ({ position: 'source', mutates: false, yields });
const step = (yields: Yields = 'rows'): OpTraits => ({ position: 'step', mutates: false, yields });
const mut = (position: Position = 'step'): OpTraits => ({ position, mutates: true, yields: 'rows' });
/** Index DDL and operation changes: write batches only, one status object as the result. */
const ddl = (): OpTraits => ({ position: 'source', mutates: true, yields: 'scalar' });

export const CATALOG: Record<OpKind, OpTraits> = {
  context: src(),
  nodes: src(),
  edges: src(),
  nodes_where: src(),
  edges_where: src(),
  shortest_path: src('list'),
  inject: { position: 'optional', mutates: false, yields: 'rows' },
  out: step(),
  in: step(),
  both: step(),
  out_e: step(),
  in_e: step(),
  both_e: step(),
  out_n: step(),
  in_n: step(),
  other_n: step(),
  where: step(),
  has: step(),
  has_label: step(),
  has_key: step(),
  edge_has: step(),
  edge_has_label: step(),
  dedup: step('same'),
  within: step(),
  without: step(),
  limit: step('same'),
  skip: step('same'),
  range: step('same'),
  order_by: step(),
  order_by_multiple: step(),
  as: step(),
  store: step(),
  select: step(),
  bind: { ...step(), readOnlyBatch: true },
  count: step('scalar'),
  exists: step('scalar'),
  id: step('list'),
  label: step('list'),
  values: step('list'),
  value_map: step('list'),
  project: step('list'),
  project_bindings: { ...step('list'), readOnlyBatch: true },
  edge_properties: step('list'),
  group: step('list'),
  group_count: step('list'),
  aggregate_by: step('list'),
  add_n: mut('optional'),
  add_e: mut(),
  set_property: mut(),
  remove_property: mut(),
  drop: mut(),
  drop_edge: mut(),
  drop_edge_labeled: mut(),
  drop_edge_by_id: mut('optional'),
  union: step(),
  coalesce: step(),
  optional: step(),
  choose: step(),
  repeat: step(),
  fold: step(),
  unfold: step(),
  path: step(),
  simple_path: step(),
  with_sack: step(),
  sack_set: step(),
  sack_add: step(),
  sack_get: step(),
  create_index: ddl(),
  drop_index: ddl(),
  get_index_operation: src('scalar'),
  list_indexes: src('list'),
  retry_index_operation: ddl(),
  abort_index_operation: ddl(),
  vector_search_nodes: src(),
  vector_search_edges: src(),
  text_search_nodes: src(),
  text_search_edges: src(),
  vector_search_nodes_within: step(),
  vector_search_edges_within: step(),
  text_search_nodes_within: step(),
  text_search_edges_within: step(),
  // A Cypher statement: its request type is the compiler's (effect), not this entry's.
  table: src('list'),
};

/** The node's input, if it has one. */
export function inputOf(node: PlanNode): PlanNode | null {
  return 'input' in node ? node.input : null;
}

/** The sub-traversals a node runs on its rows (branch and repeat bodies). */
export function subTraversalsOf(node: PlanNode): readonly SubTraversal[] {
  switch (node.op) {
    case 'union':
    case 'coalesce':
      return node.traversals;
    case 'optional':
      return [node.traversal];
    case 'choose':
      return node.else_traversal ? [node.then_traversal, node.else_traversal] : [node.then_traversal];
    case 'repeat':
      return [node.config.traversal];
    default:
      return [];
  }
}

export function isKind<K extends OpKind>(node: PlanNode, kind: K): node is OpOf<K> {
  return node.op === kind;
}
