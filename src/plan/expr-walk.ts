/**
 * Walks over expression trees (the types are in expr.ts), and the operation trees of the
 * traversal expressions an operation holds (what it holds is its catalogue entry's).
 */
import { heldBy } from './catalog.js';
import type { Expr, Predicate } from './expr.js';
import type { PlanNode } from './ops.js';

const NO_ROOTS: readonly PlanNode[] = [];

/**
 * The operation trees of the traversal expressions `node` holds directly (those nested in
 * them are held by their own operations). Plan walks visit them like branch bodies.
 */
export function expressionTraversalsOf(node: PlanNode): readonly PlanNode[] {
  // Sources hold element references only; answering here spares the plan walk that every
  // request makes (needsPaths) heldBy's allocation of their reference paths.
  if (node.op === 'nodes' || node.op === 'edges' || node.op === 'shortest_path') return NO_ROOTS;
  const { exprs, predicates } = heldBy(node);
  if (exprs.length === 0 && predicates.length === 0) return NO_ROOTS;
  const roots: PlanNode[] = [];
  const onExpr = (e: Expr) => {
    if (e.e === 'traversal') roots.push(e.root);
  };
  for (const root of [...exprs, ...predicates]) walkExprs(root, onExpr, () => {});
  return roots;
}

/**
 * Visits every expression and predicate inside `root` (itself included), depth first. A
 * traversal expression is visited, not the operation tree it holds.
 */
export function walkExprs(root: Expr | Predicate, onExpr: (e: Expr) => void, onPredicate: (p: Predicate) => void): void {
  if ('e' in root) {
    onExpr(root);
    switch (root.e) {
      case 'add':
      case 'sub':
      case 'mul':
      case 'div':
      case 'mod':
        walkExprs(root.left, onExpr, onPredicate);
        walkExprs(root.right, onExpr, onPredicate);
        return;
      case 'neg':
      case 'cast':
        walkExprs(root.expr, onExpr, onPredicate);
        return;
      case 'math':
        for (const arg of root.args) walkExprs(arg, onExpr, onPredicate);
        return;
      case 'case':
        for (const b of root.whenThen) {
          walkExprs(b.when, onExpr, onPredicate);
          walkExprs(b.then, onExpr, onPredicate);
        }
        if (root.elseExpr) walkExprs(root.elseExpr, onExpr, onPredicate);
        return;
      default:
        return;
    }
  }
  onPredicate(root);
  switch (root.p) {
    case 'compare':
      walkExprs(root.left, onExpr, onPredicate);
      walkExprs(root.right, onExpr, onPredicate);
      return;
    case 'between':
      for (const e of [root.value, root.min, root.max]) walkExprs(e, onExpr, onPredicate);
      return;
    case 'starts_with':
    case 'ends_with':
    case 'contains':
      walkExprs(root.value, onExpr, onPredicate);
      walkExprs(root.arg, onExpr, onPredicate);
      return;
    case 'is_in':
      walkExprs(root.value, onExpr, onPredicate);
      walkExprs(root.values, onExpr, onPredicate);
      return;
    case 'and':
    case 'or':
      for (const q of root.predicates) walkExprs(q, onExpr, onPredicate);
      return;
    case 'not':
      walkExprs(root.predicate, onExpr, onPredicate);
      return;
    default:
      return;
  }
}
