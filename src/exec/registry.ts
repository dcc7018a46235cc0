/**
 * The executor of every operation kind. A Record over OpKind: a kind without an executor
 * does not compile.
 */
import type { ExecutorTable } from './context.js';
import * as agg from './aggregate.js';
import * as bound from './bound.js';
import * as branch from './branch.js';
import * as filter from './filter.js';
import * as indexOps from './index-ops.js';
import * as search from './search.js';
import * as mutate from './mutate.js';
import * as nav from './navigate.js';
import * as paths from './paths.js';
import * as rerank from './rerank.js';
import * as shortest from './shortest-path.js';
import * as weighted from './weighted-path.js';
import * as sack from './sack.js';
import * as source from './source.js';
import * as terminal from './terminal.js';
import * as vars from './variables.js';
import * as table from './table/statement.js';

export const EXECUTORS: ExecutorTable = {
  context: source.context,
  nodes: source.nodes,
  edges: source.edges,
  nodes_where: source.nodesWhere,
  edges_where: source.edgesWhere,
  shortest_path: shortest.shortestPath,
  weighted_shortest_path: weighted.weightedShortestPath,
  inject: vars.inject,
  out: nav.out,
  in: nav.inn,
  both: nav.both,
  out_e: nav.outE,
  in_e: nav.inE,
  both_e: nav.bothE,
  out_n: nav.outN,
  in_n: nav.inN,
  other_n: nav.otherN,
  where: filter.where,
  has: filter.has,
  has_label: filter.hasLabel,
  edge_has_label: filter.edgeHasLabel,
  has_key: filter.hasKey,
  edge_has: filter.edgeHas,
  dedup: filter.dedup,
  within: filter.within,
  without: filter.without,
  limit: bound.limit,
  skip: bound.skip,
  range: bound.range,
  order_by: bound.orderBy,
  order_by_multiple: bound.orderByMultiple,
  as: vars.store,
  store: vars.store,
  select: vars.select,
  bind: vars.bind,
  count: terminal.count,
  exists: terminal.exists,
  id: terminal.id,
  label: terminal.label,
  values: terminal.values,
  value_map: terminal.valueMap,
  project: terminal.project,
  edge_properties: terminal.edgeProperties,
  project_bindings: vars.projectBindings,
  group: agg.group,
  group_count: agg.groupCount,
  aggregate_by: agg.aggregateBy,
  fold: agg.fold,
  unfold: agg.unfold,
  add_n: mutate.addN,
  add_e: mutate.addE,
  set_property: mutate.setProperty,
  remove_property: mutate.removeProperty,
  drop: mutate.drop,
  drop_edge: mutate.dropEdge,
  drop_edge_labeled: mutate.dropEdgeLabeled,
  drop_edge_by_id: mutate.dropEdgeById,
  union: branch.union,
  coalesce: branch.coalesce,
  optional: branch.optional,
  choose: branch.choose,
  repeat: branch.repeat,
  path: paths.path,
  simple_path: paths.simplePath,
  with_sack: sack.withSack,
  sack_set: sack.sackSet,
  sack_add: sack.sackAdd,
  sack_get: sack.sackGet,
  create_index: indexOps.createIndex,
  drop_index: indexOps.dropIndex,
  get_index_operation: indexOps.getIndexOperation,
  list_indexes: indexOps.listIndexes,
  retry_index_operation: indexOps.retryIndexOperation,
  abort_index_operation: indexOps.abortIndexOperation,
  vector_search_nodes: search.search,
  vector_search_edges: search.search,
  text_search_nodes: search.search,
  text_search_edges: search.search,
  vector_search_nodes_within: search.searchWithin,
  vector_search_edges_within: search.searchWithin,
  text_search_nodes_within: search.searchWithin,
  text_search_edges_within: search.searchWithin,
  fuse: rerank.fuse,
  rerank_mmr: rerank.rerankMmr,
  table: table.run,
};
