/**
 * The traversal expression: a sub-traversal run on one row, its result as one value (see
 * TraversalExpr in src/plan/expr.ts). Validation keeps sources, project_bindings and
 * mutations out of it, so running it per row reads the graph and nothing else.
 */
import { GraphError } from '../core/errors.js';
import type { Expr } from '../plan/expr.js';
import type { Value } from '../core/value.js';
import type { Exec } from './context.js';
import type { RowFlow } from './flow.js';
import { EDGE, NODE, type Row } from './row.js';

export function evalTraversal(x: Exec, row: Row, e: Extract<Expr, { e: 'traversal' }>): Value {
  // One unit of work even when the body reads nothing from the store (count(context)).
  x.tick();
  const context: RowFlow = { t: 'rows', rows: [row], folded: false, showPath: false, showSack: false };
  // `outer` expressions inside read the rows their enclosing traversal expressions started
  // from; the body's streams are read to their end before this returns.
  x.origins.push(row);
  try {
    const flow = x.run(e.root, context);
    switch (flow.t) {
      case 'count':
        return BigInt(flow.n);
      case 'bool':
        return flow.v;
      case 'values':
        if (e.first) return flow.items.length > 0 ? flow.items[0]! : null;
        return flow.items.slice();
      case 'rows':
        // A folded stream prints like a plain one, so it reads as one here too.
        return e.first ? firstId(flow.rows) : ids(x, flow.rows, e.path);
      case 'table':
        throw new GraphError('internal_error', `${e.path}: a Cypher statement inside a traversal expression`);
    }
  } finally {
    x.origins.pop();
  }
}

/** The element id of the first row that has one; reads no further. */
function firstId(rows: Iterable<Row>): Value {
  for (const row of rows) if (row.kind === NODE || row.kind === EDGE) return BigInt(row.id);
  return null;
}

/** The element ids of the rows (rows without an element have none), within the row limit. */
function ids(x: Exec, rows: Iterable<Row>, path: string): Value[] {
  const out: Value[] = [];
  for (const row of rows) {
    if (row.kind !== NODE && row.kind !== EDGE) continue;
    if (out.push(BigInt(row.id)) % 65536 === 0) x.checkSize(out.length, path);
  }
  return out;
}
