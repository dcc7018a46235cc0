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

/**
 * The direct sub-expressions of an expression (never those inside patterns' property
 * maps). A pattern comprehension's WHERE and map run in a scope of their own: they are
 * children for the checks that look inside (`patternBodies`, the default), not for the
 * lowering's walks, which plan a pattern comprehension as a whole.
 */
export function children(e: Expr, patternBodies = true): Expr[] {
  const present = (...xs: (Expr | null)[]) => xs.filter((x): x is Expr => x !== null);
  switch (e.kind) {
    case 'list':
      return [...e.items];
    case 'map':
      return e.entries.map((entry) => entry.value);
    case 'property':
    case 'hasLabels':
      return [e.object];
    case 'index':
      return [e.object, e.index];
    case 'slice':
      return present(e.object, e.from, e.to);
    case 'unary':
    case 'isNull':
      return [e.operand];
    case 'binary':
      return [e.left, e.right];
    case 'comparison':
      return [...e.operands];
    case 'call':
      return [...e.args];
    case 'case':
      return present(e.subject, ...e.alternatives.flatMap((a) => [a.when, a.then]), e.else);
    case 'listComprehension':
      return present(e.list, e.where, e.map);
    case 'quantifier':
      return present(e.list, e.where);
    case 'reduce':
      return [e.init, e.list, e.expr];
    case 'patternComprehension':
      return patternBodies ? present(e.where, e.map) : [];
    case 'mapProjection':
      return e.items.flatMap((item) => (item.kind === 'entry' ? [item.value] : []));
    default:
      return [];
  }
}

/** The direct sub-expressions the lowering walks: children(e) without pattern comprehensions' bodies. */
export function forEachChild(e: Expr, visit: (child: Expr) => void): void {
  for (const child of children(e, false)) visit(child);
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
