/**
 * WITH and RETURN: what they project, what the clauses after them see, and their ORDER BY,
 * WHERE (WITH), SKIP and LIMIT.
 *  - `*` with no variable in scope: NoVariablesInScope;
 *  - WITH must alias every item but a plain variable: NoExpressionAlias;
 *  - two columns of one name: ColumnNameConflict;
 *  - an item mixing aggregates with other expressions may use, outside its aggregates, only
 *    variables that are grouping keys, or properties that are grouping keys themselves
 *    (`RETURN me.age, me.age + count(*)`): else AmbiguousAggregationExpression;
 *  - ORDER BY and WHERE see the projected columns, and the variables before the projection
 *    too unless it has DISTINCT or aggregates; then an expression equal to a projected item
 *    stands for that item (only aggregates, variables and properties when the sort key
 *    aggregates), an aggregate not projected may use only projected columns, and other
 *    variables are UndefinedVariable (AmbiguousAggregationExpression when a grouping key
 *    uses them in an aggregating sort key);
 *  - aggregates in ORDER BY only after an aggregating projection, never in WHERE:
 *    InvalidAggregation;
 *  - SKIP and LIMIT: constants or parameters (NonConstantExpression), integers
 *    (InvalidArgumentType), not negative (NegativeIntegerArgument).
 */
import type { Expr, ProjectionItem, ReturnClause, WithClause } from './ast.js';
import { containsAggregate, sameExpr, visit, type ExprChecker } from './check-expr.js';
import { ANY, mayBe, showTy, type Ty } from './check-types.js';
import { describe, EMPTY_SCOPE, semanticError, type AnalysisState, type Binding, type Scope } from './scope.js';
import { children, columnName, isAggregateCall } from './ast-walk.js';

export interface ProjectionResult {
  /** What the clauses after the projection see. */
  readonly scope: Scope;
  /** The column names, in order (`*` first: its variables by name). */
  readonly columns: readonly string[];
}

/** A variable, or a property of a variable: what may be used beside an aggregate. */
const isSimple = (e: Expr): boolean => e.kind === 'variable' || (e.kind === 'property' && e.object.kind === 'variable');

/** The variables an expression introduces for its sub-expressions (comprehensions). */
function localsOf(e: Expr): string[] {
  switch (e.kind) {
    case 'listComprehension':
    case 'quantifier':
      return [e.variable.name];
    case 'reduce':
      return [e.accumulator.name, e.variable.name];
    case 'patternComprehension': {
      const p = e.pattern;
      return [...p.nodes, ...p.relationships]
        .flatMap((x) => (x.variable === null ? [] : [x.variable.name]))
        .concat(p.variable === null ? [] : [p.variable.name]);
    }
    default:
      return [];
  }
}

/** The sub-expressions of `e` with the locals each sees (the list of a comprehension does not see its variable). */
function scopedChildren(e: Expr, locals: ReadonlySet<string>): [Expr, ReadonlySet<string>][] {
  const inner = localsOf(e);
  if (inner.length === 0) return children(e).map((c) => [c, locals]);
  const withInner = new Set([...locals, ...inner]);
  const outerPart = e.kind === 'listComprehension' || e.kind === 'quantifier' ? [e.list] : e.kind === 'reduce' ? [e.init, e.list] : [];
  return children(e).map((c) => [c, outerPart.includes(c) ? locals : withInner]);
}

function variablesOf(e: Expr): Set<string> {
  const out = new Set<string>();
  const walk = (x: Expr, locals: ReadonlySet<string>): void => {
    if (x.kind === 'variable' && !locals.has(x.name)) out.add(x.name);
    if (x.kind === 'mapProjection' && !locals.has(x.variable.name)) out.add(x.variable.name);
    for (const [c, l] of scopedChildren(x, locals)) walk(c, l);
  };
  walk(e, new Set());
  return out;
}

/** The root variable of a property chain `a.b.c`, or null. */
function rootVariable(e: Expr): string | null {
  while (e.kind === 'property') e = e.object;
  return e.kind === 'variable' ? e.name : null;
}

function ambiguous(e: Expr, clause: string): never {
  throw semanticError(
    'AmbiguousAggregationExpression',
    `${describe(e)} is used beside an aggregate in ${clause} but is not a grouping key: project it as a column of its own ` +
      '(or compute the expression in a WITH before)',
    e.span,
  );
}

/** AmbiguousAggregationExpression: outside aggregates, only grouping-key variables and properties. */
function checkAmbiguity(e: Expr, keys: readonly Expr[], clause: string, locals: ReadonlySet<string> = new Set()): void {
  if (isAggregateCall(e)) return;
  if (e.kind === 'variable' || e.kind === 'mapProjection') {
    const name = e.kind === 'variable' ? e.name : e.variable.name;
    if (!locals.has(name) && !keys.some((k) => k.kind === 'variable' && k.name === name)) ambiguous(e, clause);
    if (e.kind === 'variable') return;
  }
  if (e.kind === 'property') {
    const root = rootVariable(e);
    if (root !== null) {
      if (locals.has(root) || keys.some((k) => sameExpr(k, e) || (k.kind === 'variable' && k.name === root))) return;
      ambiguous(e, clause);
    }
  }
  for (const [c, l] of scopedChildren(e, locals)) checkAmbiguity(c, keys, clause, l);
}

interface Projected {
  readonly item: ProjectionItem;
  readonly ty: Ty;
  readonly aggregate: boolean;
}

/**
 * Checks a sort key (or WITH's WHERE) after a projection with DISTINCT or aggregates: see the
 * module comment. `aggregating`: the key itself has an aggregate.
 */
function resolveAfterGrouping(
  state: AnalysisState,
  e: Expr,
  projected: readonly Projected[],
  out: Scope,
  groupingVariables: ReadonlySet<string>,
  aggregating: boolean,
  clause: string,
  why: string,
  locals: ReadonlySet<string> = new Set(),
  inAggregate = false,
): void {
  const same = inAggregate ? undefined : projected.find((p) => sameExpr(p.item.expr, e) && (!aggregating || p.aggregate || isSimple(e)));
  if (same !== undefined) {
    state.standsFor.set(e, same.item);
    return;
  }
  const root = e.kind === 'property' ? rootVariable(e) : null;
  if (root !== null && aggregating && !inAggregate && !locals.has(root) && !out.has(root) && groupingVariables.has(root))
    ambiguous(e, clause);
  const variable = e.kind === 'variable' ? e.name : e.kind === 'mapProjection' ? e.variable.name : null;
  if (variable !== null && !locals.has(variable) && !out.has(variable)) {
    if (aggregating && !inAggregate && groupingVariables.has(variable)) ambiguous(e, clause);
    throw semanticError('UndefinedVariable', `variable \`${variable}\` is not defined in ${clause}: ${why}`, e.span);
  }
  const nowInAggregate = inAggregate || isAggregateCall(e);
  for (const [c, l] of scopedChildren(e, locals))
    resolveAfterGrouping(state, c, projected, out, groupingVariables, aggregating, clause, why, l, nowInAggregate);
}

function constantInteger(e: Expr): bigint | null {
  if (e.kind === 'integer') return e.value;
  if (e.kind === 'unary' && e.op === '-') {
    const v = constantInteger(e.operand);
    return v === null ? null : -v;
  }
  if (e.kind === 'unary' && e.op === '+') return constantInteger(e.operand);
  return null;
}

/** SKIP and LIMIT: a constant expression or parameter, an integer, not negative. */
function checkCount(e: Expr, what: 'SKIP' | 'LIMIT', checker: ExprChecker): void {
  visit(e, (x) => {
    if (x.kind === 'variable' || x.kind === 'pattern' || x.kind === 'patternComprehension' || x.kind === 'mapProjection') {
      const v = x.kind === 'variable' ? ` (it uses variable \`${x.name}\`)` : '';
      throw semanticError('NonConstantExpression', `${what} must be a constant or a parameter${v}`, x.span);
    }
    if (x.kind === 'listComprehension' || x.kind === 'quantifier' || x.kind === 'reduce') return false;
    return true;
  });
  const ty = checker.check(e, { scope: EMPTY_SCOPE, clause: what, noAggregates: what });
  if (!mayBe(ty, ['integer'])) {
    throw semanticError('InvalidArgumentType', `${what} must be an integer, but ${describe(e)} is ${showTy(ty)}`, e.span);
  }
  const value = constantInteger(e);
  if (value !== null && value < 0n) throw semanticError('NegativeIntegerArgument', `${what} must not be negative (${value} given)`, e.span);
}

/** Checks a WITH or RETURN against the variables before it; returns what it leaves in scope. */
export function checkProjection(
  clause: WithClause | ReturnClause,
  incoming: Scope,
  checker: ExprChecker,
  state: AnalysisState,
): ProjectionResult {
  const name = clause.kind === 'with' ? 'WITH' : 'RETURN';
  if (clause.kind === 'return' && clause.star && incoming.size === 0) {
    throw semanticError('NoVariablesInScope', 'RETURN * needs variables in scope, and there are none', clause.span);
  }
  const projected: Projected[] = clause.items.map((item) => ({
    item,
    ty: checker.check(item.expr, { scope: incoming, clause: name, noAggregates: null }),
    aggregate: containsAggregate(item.expr),
  }));
  const seen = new Set<string>();
  for (const { item } of projected) {
    const column = columnName(item);
    if (seen.has(column)) throw semanticError('ColumnNameConflict', `two columns of ${name} are named \`${column}\``, item.span);
    seen.add(column);
  }

  const aggregating = projected.some((p) => p.aggregate);
  if (aggregating) state.aggregating.add(clause);
  const keys: Expr[] = projected.filter((p) => !p.aggregate).map((p) => p.item.expr);
  if (clause.star) for (const v of incoming.keys()) keys.push({ kind: 'variable', span: clause.span, name: v });
  if (aggregating) for (const p of projected) if (p.aggregate) checkAmbiguity(p.item.expr, keys, name);

  const out = new Map<string, Binding>(clause.star ? incoming : []);
  for (const p of projected) {
    const ty = p.item.expr.kind === 'variable' ? (incoming.get(p.item.expr.name)?.ty ?? ANY) : p.ty;
    out.set(columnName(p.item), { ty, span: p.item.alias?.span ?? p.item.span });
    if (p.item.alias !== null) state.noteKind(p.item.alias, ty);
  }

  // ORDER BY and WHERE: after DISTINCT or aggregates, only the projection; else both.
  const grouped = aggregating || clause.distinct;
  const both = new Map<string, Binding>([...incoming, ...out]);
  const groupingVariables = new Set(keys.flatMap((k) => [...variablesOf(k)]));
  const why = aggregating
    ? `${name} aggregates, so only its columns are in scope`
    : `${name} has DISTINCT, so only its columns are in scope`;
  for (const sort of clause.orderBy) {
    if (grouped) resolveAfterGrouping(state, sort.expr, projected, out, groupingVariables, containsAggregate(sort.expr), `ORDER BY`, why);
    checker.check(sort.expr, {
      scope: both,
      clause: 'ORDER BY',
      noAggregates: aggregating ? null : `ORDER BY after a ${name} without aggregates`,
    });
  }
  if (clause.kind === 'with' && clause.where !== null) {
    checker.checkPredicate(clause.where, { scope: both, clause: 'WHERE', noAggregates: 'WHERE (aggregate in the WITH, then filter)' });
    if (grouped) resolveAfterGrouping(state, clause.where, projected, out, groupingVariables, false, 'WHERE', why);
  }
  if (clause.skip !== null) checkCount(clause.skip, 'SKIP', checker);
  if (clause.limit !== null) checkCount(clause.limit, 'LIMIT', checker);

  // After the sort keys: the TCK reports an ambiguous sort key of an unaliased WITH item first.
  for (const { item } of projected) {
    if (clause.kind === 'with' && item.alias === null && item.expr.kind !== 'variable') {
      throw semanticError('NoExpressionAlias', `expression ${item.text} in WITH must be aliased (use AS)`, item.span);
    }
  }

  const starColumns = clause.star ? [...incoming.keys()].sort() : [];
  return { scope: out, columns: [...starColumns, ...projected.map((p) => columnName(p.item))] };
}
