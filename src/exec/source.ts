/**
 * Source operations: nodes, edges, nodes_where, edges_where, context. `nodes_where` is a
 * scan over the property columns (scan.ts). For edges, a `$label` equality (alone or
 * inside an `and`) reads only that label's edges; every other predicate filters them all.
 */
import type { MissingIds } from '../plan/ops.js';
import type { Executor } from './context.js';
import { evalPredicate } from './eval.js';
import { EMPTY_ROWS, kept, rowFlow } from './flow.js';
import { resolveRef, type RefMode } from './refs.js';
import { scanRows } from './scan/rows.js';
import { indexedCandidates } from './scan/index-scan.js';
import { conjunctsOf, labelPinnedBy } from './scan/conjuncts.js';
import { EDGE, NODE, startRow, type Row } from './row.js';

function* toRows(ids: Iterable<number>, kind: typeof NODE | typeof EDGE, trackPath: boolean): Generator<Row> {
  for (const id of ids) yield startRow(kind, id, trackPath);
}

export const context: Executor<'context'> = (_node, _x, ctx) => ctx ?? EMPTY_ROWS;

const refMode = (missing: MissingIds): RefMode => (missing === 'error' ? 'checked_source' : 'source');

export const nodes: Executor<'nodes'> = (node, x) =>
  rowFlow(toRows(resolveRef(x, node.reference, NODE, `${node.path}.reference`, refMode(node.missing)), NODE, x.trackPath));

export const edges: Executor<'edges'> = (node, x) =>
  rowFlow(toRows(resolveRef(x, node.reference, EDGE, `${node.path}.reference`, refMode(node.missing)), EDGE, x.trackPath));

export const nodesWhere: Executor<'nodes_where'> = (node, x) => rowFlow(scanRows(x, { predicates: [node.predicate] }));

export const edgesWhere: Executor<'edges_where'> = (node, x) => {
  const label = labelPinnedBy(conjunctsOf([node.predicate]));
  const ids = indexedCandidates(x, 'edge', [node.predicate]) ?? (label !== null ? x.store.edgeIdsByLabel(label) : x.store.edgeIds());
  return rowFlow(kept(toRows(ids, EDGE, x.trackPath), (row) => evalPredicate(x, row, node.predicate)));
};
