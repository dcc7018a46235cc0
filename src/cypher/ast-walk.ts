/** Small walks over expression syntax: direct children, and where aggregates are. */
import type { CallExpr, Expr, ProjectionItem } from './ast.js';
import { functionSignature } from '../plan/functions.js';

export function isAggregateCall(e: Expr): boolean {
  if (e.kind === 'countStar') return true;
  if (e.kind !== 'call' || e.namespace.length > 0) return false;
  return functionSignature(e.name.name)?.aggregate === true;
}

/** Whether an aggregate appears in the expression (outside nested subqueries' own scopes). */
export function hasAggregate(e: Expr): boolean {
  if (isAggregateCall(e)) return true;
  let found = false;
  forEachChild(e, (child) => {
    if (!found && hasAggregate(child)) found = true;
  });
  return found;
}

/** The direct sub-expressions of an expression. */
export function forEachChild(e: Expr, visit: (child: Expr) => void): void {
  const each = (xs: readonly (Expr | null)[]) => xs.forEach((x) => x !== null && visit(x));
  switch (e.kind) {
    case 'list':
      return each(e.items);
    case 'map':
      return each(e.entries.map((entry) => entry.value));
    case 'property':
      return visit(e.object);
    case 'index':
      return each([e.object, e.index]);
    case 'slice':
      return each([e.object, e.from, e.to]);
    case 'hasLabels':
      return visit(e.object);
    case 'unary':
      return visit(e.operand);
    case 'binary':
      return each([e.left, e.right]);
    case 'comparison':
      return each(e.operands);
    case 'isNull':
      return visit(e.operand);
    case 'call':
      return each(e.args);
    case 'case':
      return each([e.subject, ...e.alternatives.flatMap((a) => [a.when, a.then]), e.else]);
    case 'listComprehension':
      return each([e.list, e.where, e.map]);
    case 'quantifier':
      return each([e.list, e.where]);
    case 'reduce':
      return each([e.init, e.list, e.expr]);
    case 'mapProjection':
      return each(e.items.map((item) => (item.kind === 'entry' ? item.value : null)));
    default:
      return;
  }
}

/**
 * A key equal for expressions written alike: spans ignored, function names in any case
 * (`max(n.y)` in RETURN and `MAX(n.y)` in ORDER BY). The one rule analysis (sameExpr) and
 * lowering (Lowering.replaced) both use, so what analysis accepts as the same expression
 * the lowering finds.
 */
export function exprKey(e: Expr): string {
  return JSON.stringify(e, keyPart);
}

function keyPart(key: string, value: unknown): unknown {
  if (key === 'span') return undefined;
  if (typeof value === 'bigint') return `${value}n`;
  if (typeof value === 'object' && value !== null && (value as Expr).kind === 'call') {
    const call = value as CallExpr;
    return { ...call, name: call.name.name.toLowerCase() };
  }
  return value;
}

/** The column an item makes: its alias, a variable's name (backticks dropped), or the expression's text. */
export function columnName(item: ProjectionItem): string {
  return item.alias?.name ?? (item.expr.kind === 'variable' ? item.expr.name : item.text);
}
