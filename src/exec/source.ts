/**
 * Source operations: nodes, edges, nodes_where, edges_where, context. `nodes_where` is a
 * scan over the property columns (scan.ts). For edges, a `$label` equality (alone or
 * inside an `and`) reads only that label's edges; every other predicate filters them all.
 */
import type { Expr, Predicate } from '../plan/expr.js';
import type { MissingIds } from '../plan/ops.js';
import type { Executor } from './context.js';
import { evalPredicate } from './eval.js';
import { EMPTY_ROWS, kept, rowFlow } from './flow.js';
import { resolveRef, type RefMode } from './refs.js';
import { scanRows } from './scan.js';
import { indexedCandidates } from './index-scan.js';
import { EDGE, NODE, startRow, type Row } from './row.js';

function constString(e: Expr): string | null {
  return e.e === 'constant' && typeof e.value === 'string' ? e.value : null;
}

/** The label a predicate pins down, if it requires `$label == "X"`. */
function requiredLabel(p: Predicate): string | null {
  if (p.p === 'compare' && p.op === 'eq') {
    if (p.left.e === 'property' && p.left.name === '$label') return constString(p.right);
    if (p.right.e === 'property' && p.right.name === '$label') return constString(p.left);
  }
  if (p.p === 'and') {
    for (const q of p.predicates) {
      const label = requiredLabel(q);
      if (label !== null) return label;
    }
  }
  return null;
}

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
  const label = requiredLabel(node.predicate);
  const ids = indexedCandidates(x, 'edge', [node.predicate]) ?? (label !== null ? x.store.edgeIdsByLabel(label) : x.store.edgeIds());
  return rowFlow(kept(toRows(ids, EDGE, x.trackPath), (row) => evalPredicate(x, row, node.predicate)));
};
