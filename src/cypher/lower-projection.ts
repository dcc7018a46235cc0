/**
 * WITH and RETURN: projections, DISTINCT, aggregation, ORDER BY, SKIP, LIMIT and WITH's
 * WHERE, in openCypher's order. ORDER BY sees the projected names and, unless the
 * projection is DISTINCT or aggregates, the variables from before it too; an ORDER BY
 * expression written like a projected one reads the projected value.
 */
import type { Expr, Projection, Span } from './ast.js';
import type { Aggregation, RowExpr, TableNode } from '../plan/table.js';
import { lowerExpr, where } from './lower-expr.js';
import { columnName, exprKey } from './ast-walk.js';
import { Scope, type Lowering } from './lower-scope.js';
import { forEachChild, hasAggregate, isAggregateCall } from './ast-walk.js';

export interface Projected {
  readonly plan: TableNode;
  /** The variables after the projection (WITH) or the result's columns (RETURN), in order. */
  readonly scope: Scope;
  readonly columns: readonly (readonly [string, number])[];
}

interface Item {
  readonly name: string;
  readonly expr: Expr;
  readonly span: Span;
}

export function lowerProjection(input: TableNode, p: Projection & { readonly where?: Expr | null }, l: Lowering): Projected {
  const items = itemsOf(p, l);
  const aggregating = items.some((item) => hasAggregate(item.expr));
  return aggregating ? lowerAggregation(input, p, items, l) : lowerPlain(input, p, items, l);
}

function itemsOf(p: Projection, l: Lowering): Item[] {
  const items: Item[] = [];
  if (p.star) {
    for (const name of l.scope.names().sort())
      items.push({ name, expr: { kind: 'variable', name, span: { start: 0, end: 0 } }, span: { start: 0, end: 0 } });
  }
  for (const item of p.items) items.push({ name: columnName(item), expr: item.expr, span: item.span });
  return items;
}

function lowerPlain(input: TableNode, p: Projection & { readonly where?: Expr | null }, items: readonly Item[], l: Lowering): Projected {
  const scope = new Scope();
  const computed: [number, RowExpr][] = [];
  const replaced = new Map<string, RowExpr>();
  for (const item of items) {
    const expr = lowerExpr(item.expr, l);
    const slot = expr.k === 'slot' && !computed.some(([s]) => s === expr.slot) ? expr.slot : l.slots.allocate(item.name);
    computed.push([slot, expr]);
    const kind = item.expr.kind === 'variable' ? (l.scope.get(item.expr.name)?.kind ?? 'value') : 'value';
    scope.set(item.name, { slot, kind });
    replaced.set(exprKey(item.expr), { k: 'slot', slot });
  }
  const columns = items.map((item) => [item.name, scope.get(item.name)!.slot] as const);
  const keep: [number, RowExpr][] = uniqueSlots(columns).map((slot) => [slot, { k: 'slot', slot }]);
  let plan: TableNode;
  if ((p.orderBy.length > 0 || (p.where ?? null) !== null) && !p.distinct) {
    // ORDER BY and WITH's WHERE see the variables from before the projection too: sort and
    // filter with them still there, then drop them.
    plan = { t: 'project', input, items: computed, only: false, distinct: false };
    const wide = l.scope.copy();
    for (const [name, v] of scope.entries()) wide.set(name, v);
    plan = sortAndBound(plan, p, { ...l, scope: wide, replaced });
    plan = withWhere(plan, p.where ?? null, { ...l, scope: wide, replaced });
    plan = { t: 'project', input: plan, items: keep, only: true, distinct: false };
  } else {
    plan = { t: 'project', input, items: computed, only: true, distinct: p.distinct };
    plan = sortAndBound(plan, p, { ...l, scope, replaced });
    plan = withWhere(plan, p.where ?? null, { ...l, scope, replaced });
  }
  return { plan, scope, columns };
}

function lowerAggregation(
  input: TableNode,
  p: Projection & { readonly where?: Expr | null },
  items: readonly Item[],
  l: Lowering,
): Projected {
  const keys: [number, RowExpr][] = [];
  const aggregations: Aggregation[] = [];
  const replaced = new Map<string, RowExpr>();
  const scope = new Scope();
  const inner = new Scope();
  // Grouping keys: the items without an aggregate.
  for (const item of items) {
    if (hasAggregate(item.expr)) continue;
    const slot = l.slots.allocate(item.name);
    keys.push([slot, lowerExpr(item.expr, l)]);
    replaced.set(exprKey(item.expr), { k: 'slot', slot });
    const kind = item.expr.kind === 'variable' ? (l.scope.get(item.expr.name)?.kind ?? 'value') : 'value';
    scope.set(item.name, { slot, kind });
    if (item.expr.kind === 'variable') inner.set(item.expr.name, { slot, kind });
  }
  // Each distinct aggregate call once, in its slot.
  for (const item of items) collectAggregates(item.expr, l, aggregations, replaced);
  let plan: TableNode = { t: 'aggregate', input, keys, aggregations };
  const after: Lowering = { ...l, scope: inner, replaced };
  const computed: [number, RowExpr][] = [];
  for (const item of items) {
    if (!hasAggregate(item.expr)) continue;
    const slot = l.slots.allocate(item.name);
    computed.push([slot, lowerExpr(item.expr, after)]);
    scope.set(item.name, { slot, kind: 'value' });
  }
  const columns = items.map((item) => [item.name, scope.get(item.name)!.slot] as const);
  const keep: [number, RowExpr][] = uniqueSlots(columns).map((slot) => [slot, { k: 'slot', slot }]);
  plan = { t: 'project', input: plan, items: computed, only: false, distinct: false };
  if (p.distinct) plan = { t: 'project', input: plan, items: keep, only: true, distinct: true };
  const sortScope = inner.copy();
  for (const [name, v] of scope.entries()) sortScope.set(name, v);
  plan = sortAndBound(plan, p, { ...l, scope: sortScope, replaced });
  plan = withWhere(plan, p.where ?? null, { ...l, scope: sortScope, replaced });
  plan = { t: 'project', input: plan, items: keep, only: true, distinct: false };
  return { plan, scope, columns };
}

function uniqueSlots(columns: readonly (readonly [string, number])[]): number[] {
  return [...new Set(columns.map(([, slot]) => slot))];
}

function sortAndBound(input: TableNode, p: Projection, l: Lowering): TableNode {
  let plan = input;
  if (p.orderBy.length > 0)
    plan = { t: 'sort', input: plan, keys: p.orderBy.map((s) => ({ expr: lowerExpr(s.expr, l), descending: s.descending })) };
  const constant: Lowering = { ...l, scope: new Scope(), replaced: null };
  if (p.skip !== null) plan = { t: 'skip', input: plan, count: lowerExpr(p.skip, constant), at: where(p.skip.span) };
  if (p.limit !== null) plan = { t: 'limit', input: plan, count: lowerExpr(p.limit, constant), at: where(p.limit.span) };
  return plan;
}

function withWhere(input: TableNode, predicate: Expr | null, l: Lowering): TableNode {
  return predicate === null ? input : { t: 'filter', input, predicate: lowerExpr(predicate, l) };
}

function collectAggregates(e: Expr, l: Lowering, out: Aggregation[], replaced: Map<string, RowExpr>): void {
  if (isAggregateCall(e)) {
    const key = exprKey(e);
    if (replaced.has(key)) return;
    const slot = l.slots.allocate(null);
    const at = where(e.span);
    if (e.kind === 'countStar') out.push({ slot, fn: 'count_star', distinct: false, args: [], at });
    else if (e.kind === 'call')
      out.push({ slot, fn: e.name.name.toLowerCase(), distinct: e.distinct, args: e.args.map((a) => lowerExpr(a, l)), at });
    replaced.set(key, { k: 'slot', slot });
    return;
  }
  forEachChild(e, (child) => collectAggregates(child, l, out, replaced));
}
