/**
 * The `table` operation: runs a compiled Cypher statement (plan/table.ts) in the request's
 * transaction and yields its result table.
 */
import type { TableOp } from '../../plan/ops.js';
import type { Exec } from '../context.js';
import type { Flow, TableFlow } from '../flow.js';
import { GraphError } from '../../core/errors.js';
import { encodeTable } from './encode.js';
import { StatementRun } from './run.js';
import { runtimeError, type ElementAccess } from './env.js';
import type { EdgeRecord, NodeRecord } from '../../store/index.js';
import type { Where } from '../../plan/table.js';

export function run(node: TableOp, x: Exec): TableFlow {
  const { root, columns, slotCount } = node.statement;
  const rows = new StatementRun(x, elementAccess(x), slotCount).rows(root, null);
  return {
    t: 'table',
    columns: columns.map(([name]) => name),
    // A statement without RETURN answers no rows, whatever it did.
    rows: columns.length === 0 ? [] : rows.map((row) => columns.map(([, slot]) => row[slot] ?? null)),
  };
}

/** The elements of the request's transaction, as the table operators and the encoder read them. */
export function elementAccess(x: Exec): ElementAccess {
  const deletedTypes = new Map<number, string>();
  // The last node read, kept by a read statement (its snapshot never changes; a write
  // sees its own writes): a row that reads several properties of one node decodes it
  // once. One entry, not a map: a scan reading one property of each of many nodes pays
  // nothing for it.
  const keepsLast = x.writer === null;
  let lastId = -1;
  let last: NodeRecord | undefined;
  return {
    relType(id: number, at: Where): string {
      return deletedTypes.get(id) ?? this.rel(id, at).label;
    },
    deleting(rel: EdgeRecord): void {
      deletedTypes.set(rel.id, rel.label);
    },
    node(id: number, at: Where): NodeRecord {
      if (keepsLast && id === lastId) return last!;
      // The record the scan that bound this node read, if it kept one.
      const rec = x.keptNode(id) ?? x.store.getNode(id);
      if (rec === undefined) throw runtimeError('entity_not_found', 'DeletedEntityAccess', `node ${id} was deleted by this statement`, at);
      lastId = id;
      last = rec;
      return rec;
    },
    rel(id: number, at: Where): EdgeRecord {
      const rec = x.store.getEdge(id);
      if (rec === undefined)
        throw runtimeError('entity_not_found', 'DeletedEntityAccess', `relationship ${id} was deleted by this statement`, at);
      return rec;
    },
  };
}

/** The response body of a Cypher batch: its one table as `{columns, rows}`. */
export function encodeStatementResult(x: Exec, flow: Flow | undefined): string {
  if (flow === undefined || flow.t !== 'table') throw new GraphError('internal_error', 'a Cypher batch ended without its result table');
  return encodeTable(flow.columns, flow.rows, elementAccess(x));
}
