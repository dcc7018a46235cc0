/**
 * The internal operation tree: one kind-tagged union of every operation. Field names are
 * the wire's, so decode (src/wire) is validation plus literal conversion, and a reader can
 * go from a request to the plan without a map. Every node records the JSON path it came
 * from, so errors found at run time still point into the request.
 *
 * Adding an operation: add its interface and kind here; the compiler then demands its
 * wire schema (src/wire/ops.ts), its catalogue entry (src/plan/catalog.ts), its payload
 * checks (src/plan/validate.ts) and its executor (src/exec/registry.ts), because each of
 * those is a table over `OpKind` (test/plan/kind-tables.test.ts).
 */
import type { Value } from '../core/value.js';
import type { IndexSpec } from '../core/index-spec.js';
import type { ElementRef, Expr, Order, Predicate, PropertyInput, StreamBound } from './expr.js';
import type { TableStatement } from './table.js';

interface Base<K extends string> {
  readonly op: K;
  readonly path: string;
}
interface Unary<K extends string> extends Base<K> {
  readonly input: PlanNode;
}

export interface SubTraversal {
  readonly root: PlanNode;
}
export type Assignments = readonly (readonly [string, PropertyInput])[];
export type Projection =
  | { readonly kind: 'property'; readonly source: string; readonly alias: string }
  | { readonly kind: 'expr'; readonly alias: string; readonly expr: Expr };
export type BindingTarget = { readonly kind: 'current' } | { readonly kind: 'binding'; readonly name: string };
export type BindingProjection =
  | { readonly kind: 'property'; readonly target: BindingTarget; readonly source: string; readonly alias: string }
  | {
      readonly kind: 'coalesce';
      readonly refs: readonly { readonly target: BindingTarget; readonly source: string }[];
      readonly alias: string;
    };
export type EmitBehavior = 'none' | 'before' | 'after' | 'all';
export interface RepeatConfig {
  readonly traversal: SubTraversal;
  readonly times: number | null;
  readonly until: Predicate | null;
  readonly emit: EmitBehavior;
  readonly emit_predicate: Predicate | null;
  readonly max_depth: number;
}
export type AggregateFunction = 'count' | 'sum' | 'min' | 'max' | 'mean';
export type Direction = 'out' | 'in' | 'both';

/**
 * What a `nodes`/`edges` source does with an id that names no element: drop it (the
 * contract's behaviour), or fail the request (`node_not_found` / `edge_not_found`), for
 * callers that look elements up by an id they expect to exist.
 */
export type MissingIds = 'skip' | 'error';

// Sources
export type ContextOp = Base<'context'>;
export interface NodesOp extends Base<'nodes'> {
  readonly reference: ElementRef;
  readonly missing: MissingIds;
}
export interface EdgesOp extends Base<'edges'> {
  readonly reference: ElementRef;
  readonly missing: MissingIds;
}
export interface NodesWhereOp extends Base<'nodes_where'> {
  readonly predicate: Predicate;
}
export interface EdgesWhereOp extends Base<'edges_where'> {
  readonly predicate: Predicate;
}
/**
 * An end of a path: one node (a reference naming at most one), or `"input"` (a Trellis
 * extension): each row of the operation's input, one path per row.
 */
export type PathEnd = ElementRef | { readonly kind: 'input' };
/** The fields the path operations share: their ends, and the input whose rows are the `"input"` end. */
interface PathEnds {
  /** With an input, exactly one of source and target is `"input"`; without one, neither is. */
  readonly input: PlanNode | null;
  readonly source: PathEnd;
  readonly target: PathEnd;
}
export interface ShortestPathOp extends Base<'shortest_path'>, PathEnds {
  readonly label: string | null;
  readonly direction: Direction;
  readonly max_depth: number;
  /**
   * What it yields: the node ids (the contract), or one path object with the edges too (a
   * Trellis extension). With an input, each path is one item: its ids as an array, or the object.
   */
  readonly result: 'ids' | 'path';
}
/** A path of least total weight (Dijkstra; A* with a heuristic): a Trellis extension. */
export interface WeightedShortestPathOp extends Base<'weighted_shortest_path'>, PathEnds {
  readonly label: string | null;
  readonly direction: Direction;
  /** The weight of an edge, evaluated on the edge (its properties, `$from.p` and `$to.p` of its ends). */
  readonly weight: Expr;
  /** A*: a node property estimating the weight left to the target; null for Dijkstra. */
  readonly heuristic: string | null;
}
// Navigation
export interface HopOp<K extends 'out' | 'in' | 'both' | 'out_e' | 'in_e' | 'both_e'> extends Unary<K> {
  readonly label: string | null;
}
// Filters
export interface WhereOp extends Unary<'where'> {
  readonly predicate: Predicate;
}
export interface HasOp extends Unary<'has'> {
  readonly property: string;
  readonly value: Value;
}
export interface HasLabelOp<K extends 'has_label' | 'edge_has_label'> extends Unary<K> {
  readonly label: string;
}
export interface HasKeyOp extends Unary<'has_key'> {
  readonly property: string;
}
export interface EdgeHasOp extends Unary<'edge_has'> {
  readonly property: string;
  readonly value: PropertyInput;
}
export interface VariableOp<K extends 'within' | 'without'> extends Unary<K> {
  readonly variable: string;
}
// Bounds and order
export interface LimitOp<K extends 'limit' | 'skip'> extends Unary<K> {
  readonly count: StreamBound;
}
export interface RangeOp extends Unary<'range'> {
  readonly start: StreamBound;
  readonly end: StreamBound;
}
export interface OrderByOp extends Unary<'order_by'> {
  /** The property sorted by; null when `expr` is given instead. */
  readonly property: string | null;
  /** A Trellis extension: sort by an expression evaluated on each row (a count of neighbours, a sum...). */
  readonly expr: Expr | null;
  readonly order: Order;
}
export interface OrderByMultipleOp extends Unary<'order_by_multiple'> {
  readonly orderings: readonly (readonly [string, Order])[];
}
// Variables
export interface NamedOp<K extends 'as' | 'store' | 'select' | 'bind'> extends Unary<K> {
  readonly name: string;
}
export interface InjectOp extends Base<'inject'> {
  readonly input: PlanNode | null;
  readonly variable: string;
}
// Terminals
export interface ValuesOp extends Unary<'values'> {
  readonly properties: readonly string[];
}
export interface ValueMapOp extends Unary<'value_map'> {
  readonly properties: readonly string[] | null;
}
export interface ProjectOp extends Unary<'project'> {
  readonly projections: readonly Projection[];
}
export interface ProjectBindingsOp extends Unary<'project_bindings'> {
  readonly projections: readonly BindingProjection[];
  readonly distinct: boolean;
}
export interface GroupOp<K extends 'group' | 'group_count'> extends Unary<K> {
  readonly property: string;
}
export interface AggregateByOp extends Unary<'aggregate_by'> {
  readonly function: AggregateFunction;
  readonly property: string;
}
// Mutations
export interface AddNOp extends Base<'add_n'> {
  readonly input: PlanNode | null;
  readonly label: string;
  readonly properties: Assignments;
}
export interface AddEOp extends Unary<'add_e'> {
  readonly label: string;
  readonly to: ElementRef;
  readonly properties: Assignments;
}
export interface SetPropertyOp extends Unary<'set_property'> {
  readonly name: string;
  readonly value: PropertyInput;
}
export interface RemovePropertyOp extends Unary<'remove_property'> {
  readonly name: string;
}
export interface DropEdgeOp extends Unary<'drop_edge'> {
  readonly to: ElementRef;
}
export interface DropEdgeLabeledOp extends Unary<'drop_edge_labeled'> {
  readonly to: ElementRef;
  readonly label: string;
}
export interface DropEdgeByIdOp extends Base<'drop_edge_by_id'> {
  readonly input: PlanNode | null;
  readonly edges: ElementRef;
}
// Branching
export interface BranchesOp<K extends 'union' | 'coalesce'> extends Unary<K> {
  readonly traversals: readonly SubTraversal[];
}
export interface OptionalOp extends Unary<'optional'> {
  readonly traversal: SubTraversal;
}
export interface ChooseOp extends Unary<'choose'> {
  readonly condition: Predicate;
  readonly then_traversal: SubTraversal;
  readonly else_traversal: SubTraversal | null;
}
export interface RepeatOp extends Unary<'repeat'> {
  readonly config: RepeatConfig;
}
// Index DDL and operations (reference §5.10)
export interface CreateIndexOp extends Base<'create_index'> {
  readonly spec: IndexSpec;
  readonly if_not_exists: boolean;
  /**
   * Not on the wire: the query language's own vector indexes (src/hql/call.ts), made with
   * the project's build parameters, count an existing index whose build parameters differ
   * (`m`, `ef_construction`) as theirs: it is kept as it was built (docs/query-language.md).
   */
  readonly any_build_parameters?: boolean;
}
export interface DropIndexOp extends Base<'drop_index'> {
  readonly spec: IndexSpec;
}
export type IndexOperationKind = 'get_index_operation' | 'retry_index_operation' | 'abort_index_operation';
/** Every index of the catalogue with its current operation's status (read batches too). */
export type ListIndexesOp = Base<'list_indexes'>;
export interface IndexOperationOp<K extends IndexOperationKind> extends Base<K> {
  readonly operation_id: string;
}
// Search (reference §5.12): sources over a whole index, `_within` steps over an input
export interface SearchFields {
  readonly label: string;
  readonly property: string;
  readonly k: StreamBound;
  readonly tenant_value: PropertyInput | null;
  /**
   * An index that does not exist at all: 400 index_not_found (the contract), or nothing
   * found (a Trellis extension, for the query language, whose indexes are made with the
   * first element they hold). An index that exists but is still building is an error either way.
   */
  readonly missing_index: 'error' | 'empty';
}
export type VectorSearchKind = 'vector_search_nodes' | 'vector_search_edges';
export type TextSearchKind = 'text_search_nodes' | 'text_search_edges';
/** A vector search's beam (a Trellis extension; null: the index's `ef_search`, else the engine's default). */
interface VectorFields {
  readonly query_vector: PropertyInput;
  readonly ef: StreamBound | null;
}
export interface VectorSearchOp<K extends VectorSearchKind> extends Base<K>, SearchFields, VectorFields {}
export interface TextSearchOp<K extends TextSearchKind> extends Base<K>, SearchFields {
  readonly query_text: PropertyInput;
}
export interface VectorSearchWithinOp<K extends `${VectorSearchKind}_within`> extends Unary<K>, SearchFields, VectorFields {}
export interface TextSearchWithinOp<K extends `${TextSearchKind}_within`> extends Unary<K>, SearchFields {
  readonly query_text: PropertyInput;
}
export type SearchOp =
  | VectorSearchOp<'vector_search_nodes'>
  | VectorSearchOp<'vector_search_edges'>
  | TextSearchOp<'text_search_nodes'>
  | TextSearchOp<'text_search_edges'>
  | VectorSearchWithinOp<'vector_search_nodes_within'>
  | VectorSearchWithinOp<'vector_search_edges_within'>
  | TextSearchWithinOp<'text_search_nodes_within'>
  | TextSearchWithinOp<'text_search_edges_within'>;
export const SEARCH_KINDS = [
  'vector_search_nodes',
  'vector_search_edges',
  'text_search_nodes',
  'text_search_edges',
  'vector_search_nodes_within',
  'vector_search_edges_within',
  'text_search_nodes_within',
  'text_search_edges_within',
] as const satisfies readonly SearchOp['op'][];
// Reranking (Trellis extensions): fusion of rankings, maximal marginal relevance
export type FuseMethod = 'rrf' | 'score_sum';
export interface FuseOp extends Base<'fuse'> {
  readonly input: PlanNode | null;
  /** Further rankings: the rows of these variables. */
  readonly variables: readonly string[];
  readonly method: FuseMethod;
  /** The constant of reciprocal rank fusion, 1 / (k + rank); null: 60. */
  readonly k: PropertyInput | null;
}
export type MmrMetric = 'cosine' | 'euclidean' | 'dot_product';
export interface RerankMmrOp extends Unary<'rerank_mmr'> {
  /** Relevance against diversity, 0 to 1. */
  readonly lambda: PropertyInput;
  /** The property holding each element's vector. */
  readonly property: string;
  readonly metric: MmrMetric;
}
// Sack
export interface WithSackOp extends Unary<'with_sack'> {
  readonly initial: Value;
}
export interface SackPropertyOp<K extends 'sack_set' | 'sack_add'> extends Unary<K> {
  readonly property: string;
}

// Cypher: a compiled statement over rows of values (table.ts); not on the JSON wire
export interface TableOp extends Base<'table'> {
  readonly statement: TableStatement;
}

/** Operations whose payload is only `input`. */
export const INPUT_ONLY_KINDS = [
  'out_n',
  'in_n',
  'other_n',
  'dedup',
  'count',
  'exists',
  'id',
  'label',
  'edge_properties',
  'drop',
  'fold',
  'unfold',
  'path',
  'simple_path',
  'sack_get',
] as const;
export type InputOnlyKind = (typeof INPUT_ONLY_KINDS)[number];
export type InputOnlyOp = { [K in InputOnlyKind]: Unary<K> }[InputOnlyKind];

export type PlanNode =
  | ContextOp
  | NodesOp
  | EdgesOp
  | NodesWhereOp
  | EdgesWhereOp
  | ShortestPathOp
  | WeightedShortestPathOp
  | HopOp<'out'>
  | HopOp<'in'>
  | HopOp<'both'>
  | HopOp<'out_e'>
  | HopOp<'in_e'>
  | HopOp<'both_e'>
  | WhereOp
  | HasOp
  | HasLabelOp<'has_label'>
  | HasLabelOp<'edge_has_label'>
  | HasKeyOp
  | EdgeHasOp
  | VariableOp<'within'>
  | VariableOp<'without'>
  | LimitOp<'limit'>
  | LimitOp<'skip'>
  | RangeOp
  | OrderByOp
  | OrderByMultipleOp
  | NamedOp<'as'>
  | NamedOp<'store'>
  | NamedOp<'select'>
  | NamedOp<'bind'>
  | InjectOp
  | ValuesOp
  | ValueMapOp
  | ProjectOp
  | ProjectBindingsOp
  | GroupOp<'group'>
  | GroupOp<'group_count'>
  | AggregateByOp
  | AddNOp
  | AddEOp
  | SetPropertyOp
  | RemovePropertyOp
  | DropEdgeOp
  | DropEdgeLabeledOp
  | DropEdgeByIdOp
  | BranchesOp<'union'>
  | BranchesOp<'coalesce'>
  | OptionalOp
  | ChooseOp
  | RepeatOp
  | WithSackOp
  | SackPropertyOp<'sack_set'>
  | SackPropertyOp<'sack_add'>
  | CreateIndexOp
  | DropIndexOp
  | IndexOperationOp<'get_index_operation'>
  | IndexOperationOp<'retry_index_operation'>
  | IndexOperationOp<'abort_index_operation'>
  | ListIndexesOp
  | SearchOp
  | FuseOp
  | RerankMmrOp
  | TableOp
  | InputOnlyOp;

export type OpKind = PlanNode['op'];
export type OpOf<K extends OpKind> = Extract<PlanNode, { op: K }>;
