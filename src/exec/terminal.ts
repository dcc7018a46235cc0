/** Terminals (reference §5.6): count, exists, id, label, values, value_map, project, edge_properties. */
import type { Value, ValueObject } from '../core/value.js';
import type { PlanNode } from '../plan/ops.js';
import type { Exec, Executor } from './context.js';
import type { RowFlow } from './flow.js';
import { evalExpr, labelValue, resolveProperty } from './eval.js';
import { setOwn } from '../core/value.js';
import { EDGE, NODE, type Row } from './row.js';
import { scanOf } from './scan/recognise.js';
import { scanCount } from './scan/rows.js';

export const count: Executor<'count'> = (node, x, ctx) => ({ t: 'count', n: countOf(x, node.input, ctx, node) });

/**
 * How many rows (or values) `input` yields; a node scan counts its masks without making
 * rows. `consumer` names the operation for the error of an input that yields neither.
 */
export function countOf(x: Exec, input: PlanNode, ctx: RowFlow | null, consumer: PlanNode): number {
  const scan = scanOf(x, input);
  if (scan !== null) return scanCount(x, scan);
  const flow = x.run(input, ctx);
  if (flow.t === 'values') return flow.items.length;
  let n = 0;
  for (const _row of x.expectRows(flow, consumer).rows) n++;
  return n;
}

export const exists: Executor<'exists'> = (node, x, ctx) => {
  const input = x.rows(node.input, ctx, node);
  for (const _row of input.rows) return { t: 'bool', v: true };
  return { t: 'bool', v: false };
};

function collect(x: Exec, rows: Iterable<Row>, path: string, fn: (row: Row, out: Value[]) => void): Value[] {
  const out: Value[] = [];
  for (const row of rows) {
    fn(row, out);
    if (out.length % 65536 === 0) x.checkSize(out.length, path);
  }
  return out;
}

export const id: Executor<'id'> = (node, x, ctx) => ({
  t: 'values',
  items: collect(x, x.rows(node.input, ctx, node).rows, node.path, (row, out) => {
    if (row.kind === NODE || row.kind === EDGE) out.push(BigInt(row.id));
  }),
});

export const label: Executor<'label'> = (node, x, ctx) => ({
  t: 'values',
  items: collect(x, x.rows(node.input, ctx, node).rows, node.path, (row, out) => {
    const rec = x.record(row);
    if (rec) out.push(labelValue(rec.label));
  }),
});

/** The named properties present on the row, in the order asked. */
function pick(x: Exec, row: Row, names: readonly string[]): ValueObject {
  const obj: ValueObject = {};
  for (const name of names) {
    const v = resolveProperty(x, row, name);
    if (v !== undefined) setOwn(obj, name, v);
  }
  return obj;
}

/** Every stored property plus $label and $id (and $from/$to for edges when asked). */
function everything(x: Exec, row: Row, withEndpoints: boolean): ValueObject | null {
  const rec = x.record(row);
  if (!rec) return null;
  const obj: ValueObject = { $id: BigInt(row.id), $label: labelValue(rec.label) };
  if (withEndpoints && 'from' in rec) {
    obj.$from = BigInt(rec.from);
    obj.$to = BigInt(rec.to);
  }
  for (const key in rec.props) setOwn(obj, key, rec.props[key] as Value);
  return obj;
}

export const values: Executor<'values'> = (node, x, ctx) => ({
  t: 'values',
  items: collect(x, x.rows(node.input, ctx, node).rows, node.path, (row, out) => {
    const obj = pick(x, row, node.properties);
    for (const _k in obj) return void out.push(obj);
  }),
});

export const valueMap: Executor<'value_map'> = (node, x, ctx) => {
  const names = node.properties;
  return {
    t: 'values',
    items: collect(x, x.rows(node.input, ctx, node).rows, node.path, (row, out) => {
      if (names === null || names.length === 0) {
        const obj = everything(x, row, true);
        if (obj) out.push(obj);
      } else {
        out.push(pick(x, row, names));
      }
    }),
  };
};

export const project: Executor<'project'> = (node, x, ctx) => ({
  t: 'values',
  items: collect(x, x.rows(node.input, ctx, node).rows, node.path, (row, out) => {
    const obj: ValueObject = {};
    for (const item of node.projections) {
      if (item.kind === 'property') {
        const v = resolveProperty(x, row, item.source);
        if (v !== undefined) setOwn(obj, item.alias, v);
      } else {
        setOwn(obj, item.alias, evalExpr(x, row, item.expr));
      }
    }
    out.push(obj);
  }),
});

export const edgeProperties: Executor<'edge_properties'> = (node, x, ctx) => ({
  t: 'values',
  items: collect(x, x.rows(node.input, ctx, node).rows, node.path, (row, out) => {
    if (row.kind !== EDGE) return;
    const obj = everything(x, row, true);
    if (obj) out.push(obj);
  }),
});
