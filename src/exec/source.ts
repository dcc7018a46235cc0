/**
 * Source operations: nodes, edges, nodes_where, edges_where, context. `nodes_where` is a
 * scan over the property columns (scan.ts). For edges, a `$label` equality (alone or
 * inside an `and`) reads only that label's edges; every other predicate filters them all.
 */
import type { MissingIds, PlanNode } from '../plan/ops.js';
import type { ElementRef } from '../plan/expr.js';
import type { Exec, Executor } from './context.js';
import { evalPredicate } from './eval.js';
import { EMPTY_ROWS, kept, rowFlow } from './flow.js';
import { resolveRef, variableRows, type RefMode } from './refs.js';
import { scanRows } from './scan/rows.js';
import { indexedCandidates } from './scan/index-scan.js';
import { conjunctsOf, labelPinnedBy } from './scan/conjuncts.js';
import { EDGE, NODE, Row, startRow } from './row.js';

function* toRows(ids: Iterable<number>, kind: typeof NODE | typeof EDGE, trackPath: boolean): Generator<Row> {
  for (const id of ids) yield startRow(kind, id, trackPath);
}

/**
 * The rows of a reference. A variable's elements keep the search distance and score they
 * were bound with ($distance, $score), so a search's results read back from its variable
 * still show them.
 */
function refRows(x: Exec, node: PlanNode & { reference: ElementRef; missing: MissingIds }, kind: typeof NODE | typeof EDGE): Iterable<Row> {
  const ids = resolveRef(x, node.reference, kind, `${node.path}.reference`, refMode(node.missing));
  if (node.reference.kind !== 'var') return toRows(ids, kind, x.trackPath);
  const bound = variableRows(x, node.reference.name, `${node.path}.reference`) ?? [];
  const scored = new Map<number, Row>();
  for (const r of bound)
    if (r.kind === kind && (r.distance !== undefined || r.score !== undefined) && !scored.has(r.id)) scored.set(r.id, r);
  return scored.size === 0 ? toRows(ids, kind, x.trackPath) : toScoredRows(ids, kind, x.trackPath, scored);
}

function* toScoredRows(
  ids: Iterable<number>,
  kind: typeof NODE | typeof EDGE,
  trackPath: boolean,
  scored: ReadonlyMap<number, Row>,
): Generator<Row> {
  for (const id of ids) {
    const start = startRow(kind, id, trackPath);
    const v = scored.get(id);
    yield v === undefined ? start : new Row(kind, id, start.bindings, start.path, start.sack, v.distance, v.score);
  }
}

export const context: Executor<'context'> = (_node, _x, ctx) => ctx ?? EMPTY_ROWS;

const refMode = (missing: MissingIds): RefMode => (missing === 'error' ? 'checked_source' : 'source');

export const nodes: Executor<'nodes'> = (node, x) => rowFlow(refRows(x, node, NODE));

export const edges: Executor<'edges'> = (node, x) => rowFlow(refRows(x, node, EDGE));

export const nodesWhere: Executor<'nodes_where'> = (node, x) => rowFlow(scanRows(x, { predicates: [node.predicate] }));

export const edgesWhere: Executor<'edges_where'> = (node, x) => {
  const label = labelPinnedBy(conjunctsOf([node.predicate]));
  const ids = indexedCandidates(x, 'edge', [node.predicate]) ?? (label !== null ? x.store.edgeIdsByLabel(label) : x.store.edgeIds());
  return rowFlow(kept(toRows(ids, EDGE, x.trackPath), (row) => evalPredicate(x, row, node.predicate)));
};
