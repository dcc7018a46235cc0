/**
 * Mutations (reference §5.7), write batches only. Each consumes its whole input before it
 * returns, so a mutation's effect never depends on how much of its output is read.
 * `drop` deletes edge rows as well as node rows (the reference ignores edge rows, Q4; we
 * do what its docs say, see docs/queries.md).
 */
import { GraphError } from '../core/errors.js';
import { LIMITS } from '../plan/limits.js';
import type { ElementRef, PropertyInput } from '../plan/expr.js';
import type { Assignments, PlanNode } from '../plan/ops.js';
import type { Value, ValueObject } from '../core/value.js';
import type { Exec, Executor } from './context.js';
import { evalExpr } from './eval.js';
import { EMPTY_ROWS, rowFlow, type RowFlow } from './flow.js';
import { resolveRef } from './refs.js';
import { setOwn } from '../core/value.js';
import { EDGE, NODE, NONE, Row, startRow } from './row.js';

const NO_ROW = new Row(NONE, -1);

function inputValue(x: Exec, row: Row, input: PropertyInput): Value {
  return input.kind === 'value' ? input.value : evalExpr(x, row, input.expr);
}

function evalProps(x: Exec, row: Row, assignments: Assignments): ValueObject {
  const props: ValueObject = {};
  for (const [key, input] of assignments) setOwn(props, key, inputValue(x, row, input));
  return props;
}

function inputRows(x: Exec, node: { input: PlanNode | null } & PlanNode, ctx: RowFlow | null): Row[] | null {
  if (node.input === null) return null;
  return x.collect(x.rows(node.input, ctx, node).rows, node.path);
}

export const addN: Executor<'add_n'> = (node, x, ctx) => {
  const w = x.writable;
  const rows = inputRows(x, node, ctx);
  if (rows === null) {
    const id = w.createNode(node.label, evalProps(x, NO_ROW, node.properties));
    return rowFlow([startRow(NODE, id, x.trackPath)]);
  }
  const created = rows.map((row) => {
    const id = w.createNode(node.label, evalProps(x, row, node.properties));
    return row.kind === NONE ? startRow(NODE, id, x.trackPath) : row.moveTo(NODE, id, x.trackPath);
  });
  return rowFlow(created);
};

export const addE: Executor<'add_e'> = (node, x, ctx) => {
  const w = x.writable;
  const sources = x.collect(x.rows(node.input, ctx, node).rows, node.path).filter((r) => r.kind === NODE);
  if (sources.length === 0) return EMPTY_ROWS;
  const targets = Array.from(resolveRef(x, node.to, NODE, `${node.path}.to`, 'required'));
  if (targets.length === 0) throw new GraphError('invalid_query', `${node.path}.to: add_e needs at least one target node`);
  const created: Row[] = [];
  for (const row of sources) {
    if (!w.hasNode(row.id)) throw new GraphError('node_not_found', `${node.path}: source node ${row.id} does not exist`);
    const props = evalProps(x, row, node.properties);
    for (const to of targets) created.push(row.moveTo(EDGE, w.createEdge(node.label, row.id, to, props), x.trackPath));
  }
  return rowFlow(created);
};

export const setProperty: Executor<'set_property'> = (node, x, ctx) => {
  const w = x.writable;
  const rows = x.collect(x.rows(node.input, ctx, node).rows, node.path);
  for (const row of rows) {
    const value = inputValue(x, row, node.value);
    if (row.kind === NODE) {
      const rec = w.getNode(row.id);
      if (!rec) continue;
      if (node.name === '$label') {
        if (typeof value !== 'string' || value === '')
          throw new GraphError('invalid_query', `${node.path}.value: a node label must be a non-empty string`);
        if (Buffer.byteLength(value) > LIMITS.maxLabelBytes)
          throw new GraphError('limit_exceeded', `${node.path}.value: a label is at most ${LIMITS.maxLabelBytes} bytes of UTF-8`);
        w.putNode({ id: rec.id, label: value, props: rec.props });
      } else {
        const props = { ...rec.props };
        setOwn(props, node.name, value);
        w.putNode({ id: rec.id, label: rec.label, props });
      }
    } else if (row.kind === EDGE) {
      if (node.name === '$label') throw new GraphError('invalid_query', `${node.path}.name: an edge label cannot be changed`);
      const rec = w.getEdge(row.id);
      if (!rec) continue;
      const props = { ...rec.props };
      setOwn(props, node.name, value);
      w.putEdgeProps(rec.id, props);
    }
  }
  return rowFlow(rows.map((r) => new Row(r.kind, r.id, r.bindings, r.path, r.sack)));
};

export const removeProperty: Executor<'remove_property'> = (node, x, ctx) => {
  const w = x.writable;
  const rows = x.collect(x.rows(node.input, ctx, node).rows, node.path);
  for (const row of rows) {
    const rec = row.kind === NODE ? w.getNode(row.id) : row.kind === EDGE ? w.getEdge(row.id) : undefined;
    if (!rec || !Object.hasOwn(rec.props, node.name)) continue;
    const props = { ...rec.props };
    delete props[node.name];
    if (row.kind === NODE) w.putNode({ id: rec.id, label: rec.label, props });
    else w.putEdgeProps(rec.id, props);
  }
  return rowFlow(rows.map((r) => new Row(r.kind, r.id, r.bindings, r.path, r.sack)));
};

export const drop: Executor<'drop'> = (node, x, ctx) => {
  const w = x.writable;
  for (const row of x.collect(x.rows(node.input, ctx, node).rows, node.path)) {
    if (row.kind === NODE) w.deleteNode(row.id);
    else if (row.kind === EDGE) w.deleteEdge(row.id);
  }
  return EMPTY_ROWS;
};

function dropEdgesTo(
  x: Exec,
  node: {
    input: PlanNode;
    to: ElementRef;
    path: string;
  } & PlanNode,
  ctx: RowFlow | null,
  label: string | undefined,
) {
  const w = x.writable;
  const sources = x.collect(x.rows(node.input, ctx, node).rows, node.path).filter((r) => r.kind === NODE);
  if (sources.length === 0) return EMPTY_ROWS;
  const targets = new Set(resolveRef(x, node.to, NODE, `${node.path}.to`, 'target'));
  for (const row of sources) {
    const doomed = Array.from(w.outEdges(row.id, label)).filter((adj) => targets.has(adj.other));
    for (const adj of doomed) w.deleteEdge(adj.edge);
  }
  return EMPTY_ROWS;
}

export const dropEdge: Executor<'drop_edge'> = (node, x, ctx) => dropEdgesTo(x, node, ctx, undefined);
export const dropEdgeLabeled: Executor<'drop_edge_labeled'> = (node, x, ctx) => dropEdgesTo(x, node, ctx, node.label);

export const dropEdgeById: Executor<'drop_edge_by_id'> = (node, x, ctx) => {
  const w = x.writable;
  if (node.input !== null) {
    // With an input, the input is a guard: an empty input deletes nothing.
    const guard = x.rows(node.input, ctx, node);
    let any = false;
    for (const _row of guard.rows) {
      any = true;
      break;
    }
    if (!any) return EMPTY_ROWS;
  }
  for (const id of Array.from(resolveRef(x, node.edges, EDGE, `${node.path}.edges`, 'target'))) w.deleteEdge(id);
  return EMPTY_ROWS;
};
