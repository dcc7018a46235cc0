/** Filters, dedup and set membership (reference §5.3). */
import { GraphError } from '../core/errors.js';
import type { Predicate } from '../plan/expr.js';
import type { PlanNode } from '../plan/ops.js';
import { hasKeyPredicate, hasPredicate } from '../plan/catalog.js';
import { scanOf } from './scan/recognise.js';
import { scanRows } from './scan/rows.js';
import type { Value } from '../core/value.js';
import type { Exec, Executor } from './context.js';
import { valueEquals } from './compare.js';
import { evalExpr, evalPredicate } from './eval.js';
import { kept, rowFlow, type RowFlow } from './flow.js';
import { variableRows } from './refs.js';
import { encodeValue } from './encode.js';
import { NONE, type Row } from './row.js';
import { clip } from '../core/clip.js';

function keep(x: Exec, input: RowFlow, test: (row: Row) => boolean): RowFlow {
  return rowFlow(kept(input.rows, test), input);
}

/**
 * A filter directly over a node scan (nodes all, nodes_where, or filters over those) is
 * answered by the scan itself, from the property columns (scan.ts); otherwise it filters
 * its input's rows.
 */
function filter(x: Exec, node: PlanNode & { input: PlanNode }, ctx: RowFlow | null, test: (row: Row) => boolean): RowFlow {
  const scan = scanOf(x, node);
  if (scan !== null) return rowFlow(scanRows(x, scan));
  return keep(x, x.rows(node.input, ctx, node), test);
}

const byPredicate = (x: Exec, node: PlanNode & { input: PlanNode }, ctx: RowFlow | null, p: Predicate) =>
  filter(x, node, ctx, (row) => evalPredicate(x, row, p));

export const where: Executor<'where'> = (node, x, ctx) => byPredicate(x, node, ctx, node.predicate);

export const has: Executor<'has'> = (node, x, ctx) => byPredicate(x, node, ctx, hasPredicate(node));

export const hasLabel: Executor<'has_label'> = (node, x, ctx) => filter(x, node, ctx, (row) => x.record(row)?.label === node.label);

export const edgeHasLabel: Executor<'edge_has_label'> = (node, x, ctx) =>
  keep(x, x.rows(node.input, ctx, node), (row) => x.record(row)?.label === node.label);

export const hasKey: Executor<'has_key'> = (node, x, ctx) => byPredicate(x, node, ctx, hasKeyPredicate(node));

export const edgeHas: Executor<'edge_has'> = (node, x, ctx) => {
  const input = x.rows(node.input, ctx, node);
  const { value } = node;
  return keep(x, input, (row) => {
    const want: Value = value.kind === 'value' ? value.value : evalExpr(x, row, value.expr);
    return valueEquals(evalExpr(x, row, { e: 'property', name: node.property, path: `${node.path}.property` }), want);
  });
};

/** The identity dedup uses: the element, or for element-less rows everything they carry. */
function rowIdentity(row: Row): string | number {
  const key = row.key;
  if (key !== null) return key;
  return `none:${encodeValue(row.sack ?? null)}:${JSON.stringify(row.path)}:${JSON.stringify([...(row.bindings ?? new Map())])}`;
}

export const dedup: Executor<'dedup'> = (node, x, ctx) => {
  const flow = x.run(node.input, ctx);
  if (flow.t === 'values') {
    const seen = new Set<string>();
    return { t: 'values', items: flow.items.filter((v) => !seen.has(encodeValue(v)) && !!seen.add(encodeValue(v))) };
  }
  const input = x.expectRows(flow, node);
  const seen = new Set<string | number>();
  return keep(x, input, (row) => {
    const id = rowIdentity(row);
    if (seen.has(id)) return false;
    if (seen.add(id).size % 65536 === 0) x.checkSize(seen.size, node.path);
    return true;
  });
};

function memberSet(x: Exec, variable: string, path: string): Set<number> {
  const rows = variableRows(x, variable, path);
  if (rows === null) throw new GraphError('invalid_query', `${path}: variable "${clip(variable)}" is not bound`);
  const keys = new Set<number>();
  for (const row of rows) if (row.kind !== NONE) keys.add(row.key!);
  return keys;
}

export const within: Executor<'within'> = (node, x, ctx) => {
  const input = x.rows(node.input, ctx, node);
  const keys = memberSet(x, node.variable, `${node.path}.variable`);
  return keep(x, input, (row) => row.key !== null && keys.has(row.key));
};

export const without: Executor<'without'> = (node, x, ctx) => {
  const input = x.rows(node.input, ctx, node);
  const keys = memberSet(x, node.variable, `${node.path}.variable`);
  return keep(x, input, (row) => row.key === null || !keys.has(row.key));
};
