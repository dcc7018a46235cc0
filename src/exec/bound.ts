/** Bounds and ordering (reference §4.5, §5.4): limit, skip, range, order_by(_multiple). */
import { GraphError } from '../core/errors.js';
import type { Expr, Order, StreamBound } from '../plan/expr.js';
import type { PlanNode } from '../plan/ops.js';
import { SAFE_I64, type Value } from '../core/value.js';
import { Derived, type Exec, type Executor } from './context.js';
import { totalOrder } from './compare.js';
import { evalExpr, resolveProperty } from './eval.js';
import { rowFlow, type Flow, type RowFlow } from './flow.js';
import { scanOf } from './scan/recognise.js';
import { scanTopRows } from './scan/top-k.js';
import { NONE, Row } from './row.js';

const NO_ROW = new Row(NONE, -1);

export function boundValue(x: Exec, bound: StreamBound): number {
  if (bound.kind === 'literal') return bound.n;
  const v = evalExpr(x, NO_ROW, bound.expr);
  if (typeof v === 'bigint' && v >= 0n) return v > SAFE_I64 ? Infinity : Number(v);
  throw new GraphError(
    'invalid_query',
    `${bound.path}: a bound must evaluate to a non-negative integer (i64), got ${v === null ? 'null' : typeof v === 'bigint' ? v : typeof v}`,
  );
}

/** Items [start, end) of a flow, lazily for row streams. */
function slice(x: Exec, node: PlanNode & { input: PlanNode }, ctx: RowFlow | null, start: number, end: number): Flow {
  const flow = x.run(node.input, ctx);
  if (flow.t === 'values') return { t: 'values', items: flow.items.slice(start, end) };
  const input = x.expectRows(flow, node);
  return { ...input, rows: sliceRows(input.rows, start, end) };
}

function* sliceRows(rows: Iterable<Row>, start: number, end: number): Generator<Row> {
  if (end <= start) return;
  let i = 0;
  for (const row of rows) {
    if (i >= start) yield row;
    if (++i >= end) return;
  }
}

/**
 * The first rows of an ordered node scan come from a bounded heap over the scan's columns
 * (scan.ts) rather than from sorting every row; null when the input is not that shape.
 */
function topOfScan(x: Exec, node: PlanNode & { input: PlanNode }, start: number, end: number): Flow | null {
  const sort = node.input;
  if (sort.op !== 'order_by' && sort.op !== 'order_by_multiple') return null;
  if (sort.op === 'order_by' && sort.expr !== null) return null;
  const scan = scanOf(x, sort.input);
  if (scan === null) return null;
  const rows = scanTopRows(x, scan, sortKeys(x, sort), start, end, sort.path);
  return rows === null ? null : rowFlow(rows);
}

export const limit: Executor<'limit'> = (node, x, ctx) => {
  const n = boundValue(x, node.count);
  return topOfScan(x, node, 0, n) ?? slice(x, node, ctx, 0, n);
};
export const skip: Executor<'skip'> = (node, x, ctx) => slice(x, node, ctx, boundValue(x, node.count), Infinity);
export const range: Executor<'range'> = (node, x, ctx) => {
  const start = boundValue(x, node.start);
  const end = boundValue(x, node.end);
  if (start > end) throw new GraphError('invalid_stream_range', `${node.path}: start ${start} is greater than end ${end}`);
  return topOfScan(x, node, start, end) ?? slice(x, node, ctx, start, end);
};

/**
 * Stable sort by keys; a missing value sorts first ascending and last descending; ties go
 * to the element (nodes before edges, then id), whatever the direction. A node scan is
 * sorted by its property columns (scan.ts), without reading a record per row.
 */
function sortRows(
  x: Exec,
  node: PlanNode & { input: PlanNode },
  ctx: RowFlow | null,
  keys: readonly (readonly [string, Order])[],
  expr: Expr | null = null,
): RowFlow {
  const scan = expr === null ? scanOf(x, node.input) : null;
  const sorted = scan === null ? null : scanTopRows(x, scan, keys, 0, Infinity, node.path);
  if (sorted !== null) return rowFlow(sorted);
  const input = x.rows(node.input, ctx, node);
  const rows = x.collect(input.rows, node.path);
  const valueOf = (row: Row, prop: string): Value | undefined =>
    expr === null ? resolveProperty(x, row, prop) : (evalExpr(x, row, expr) ?? undefined);
  const cached = rows.map((row) => ({ row, values: keys.map(([prop]) => valueOf(row, prop)) }));
  cached.sort((a, b) => {
    for (let i = 0; i < keys.length; i++) {
      const desc = keys[i]![1] === 'desc';
      const va: Value | undefined = a.values[i];
      const vb: Value | undefined = b.values[i];
      let c: number;
      if (va === undefined || vb === undefined) c = va === vb ? 0 : va === undefined ? -1 : 1;
      else c = totalOrder(va, vb);
      if (c !== 0) return desc ? -c : c;
    }
    return a.row.kind - b.row.kind || a.row.id - b.row.id;
  });
  return { ...input, rows: cached.map((c) => c.row) };
}

type SortNode = Extract<PlanNode, { op: 'order_by' | 'order_by_multiple' }>;
type SortKeys = readonly (readonly [string, Order])[];

/** The keys of each sort of a plan, made once per request: scans cache orders by them (scan.ts). */
const SORT_KEYS = new Derived<Extract<SortNode, { op: 'order_by' }>, SortKeys>((node) => [[node.property ?? '', node.order]]);

function sortKeys(x: Exec, node: SortNode): SortKeys {
  return node.op === 'order_by_multiple' ? node.orderings : x.derive(SORT_KEYS, node);
}

export const orderBy: Executor<'order_by'> = (node, x, ctx) => sortRows(x, node, ctx, sortKeys(x, node), node.expr);
export const orderByMultiple: Executor<'order_by_multiple'> = (node, x, ctx) => sortRows(x, node, ctx, sortKeys(x, node));
