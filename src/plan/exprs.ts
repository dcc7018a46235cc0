/**
 * The expressions, predicates and element references an operation holds directly (not
 * those of its input or sub-traversals), and a walk over expression trees. Static checks
 * (validate.ts) and the planner's pattern matching use these instead of knowing each
 * operation's fields.
 */
import type { ElementRef, Expr, Predicate, PropertyInput, StreamBound } from './expr.js';
import type { PlanNode, SearchFields } from './ops.js';

export interface Held {
  readonly exprs: readonly Expr[];
  readonly predicates: readonly Predicate[];
  readonly refs: readonly { readonly ref: ElementRef; readonly path: string }[];
}

const NONE: Held = { exprs: [], predicates: [], refs: [] };

const inputExprs = (inputs: readonly PropertyInput[]): Expr[] => inputs.flatMap((i) => (i.kind === 'expr' ? [i.expr] : []));
const boundExprs = (bounds: readonly StreamBound[]): Expr[] => bounds.flatMap((b) => (b.kind === 'expr' ? [b.expr] : []));
/** A search's k and tenant value. */
const searchExprs = (node: SearchFields): Expr[] => [
  ...boundExprs([node.k]),
  ...inputExprs(node.tenant_value === null ? [] : [node.tenant_value]),
];

export function heldBy(node: PlanNode): Held {
  const p = node.path;
  switch (node.op) {
    case 'nodes':
    case 'edges':
      return { ...NONE, refs: [{ ref: node.reference, path: `${p}.reference` }] };
    case 'nodes_where':
    case 'edges_where':
    case 'where':
      return { ...NONE, predicates: [node.predicate] };
    case 'shortest_path':
      return {
        ...NONE,
        refs: [
          { ref: node.source, path: `${p}.source` },
          { ref: node.target, path: `${p}.target` },
        ],
      };
    case 'edge_has':
    case 'set_property':
      return { ...NONE, exprs: inputExprs([node.value]) };
    case 'limit':
    case 'skip':
      return { ...NONE, exprs: boundExprs([node.count]) };
    case 'range':
      return { ...NONE, exprs: boundExprs([node.start, node.end]) };
    case 'project':
      return { ...NONE, exprs: node.projections.flatMap((x) => (x.kind === 'expr' ? [x.expr] : [])) };
    case 'add_n':
      return { ...NONE, exprs: inputExprs(node.properties.map(([, v]) => v)) };
    case 'add_e':
      return { ...NONE, exprs: inputExprs(node.properties.map(([, v]) => v)), refs: [{ ref: node.to, path: `${p}.to` }] };
    case 'drop_edge':
    case 'drop_edge_labeled':
      return { ...NONE, refs: [{ ref: node.to, path: `${p}.to` }] };
    case 'drop_edge_by_id':
      return { ...NONE, refs: [{ ref: node.edges, path: `${p}.edges` }] };
    case 'choose':
      return { ...NONE, predicates: [node.condition] };
    case 'repeat': {
      const c = node.config;
      return { ...NONE, predicates: [c.until, c.emit_predicate].filter((x): x is Predicate => x !== null) };
    }
    case 'vector_search_nodes':
    case 'vector_search_edges':
    case 'vector_search_nodes_within':
    case 'vector_search_edges_within':
      return { ...NONE, exprs: [...inputExprs([node.query_vector]), ...searchExprs(node)] };
    case 'text_search_nodes':
    case 'text_search_edges':
    case 'text_search_nodes_within':
    case 'text_search_edges_within':
      return { ...NONE, exprs: [...inputExprs([node.query_text]), ...searchExprs(node)] };
    default:
      return NONE;
  }
}

/**
 * The operation trees of the traversal expressions `node` holds directly (those nested in
 * them are held by their own operations). Plan walks visit them like branch bodies.
 */
const NO_ROOTS: readonly PlanNode[] = [];

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
        walkExprs(root.expr, onExpr, onPredicate);
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
