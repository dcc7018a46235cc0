/**
 * Semantic analysis of a parsed query (parser.ts), before lowering: every rule of openCypher
 * the TCK checks at compile time that needs to know what a name is bound to, which clause a
 * pattern stands in, or a constant's value. It throws CypherError with code 'syntax_error'
 * (the TCK's SyntaxError), 'type_error' (its TypeError at compile time) or
 * 'unsupported_feature', and `details: {detail, phase: 'compile', span}`; `detail` is the
 * openCypher code (UndefinedVariable...) or the feature out of scope (TemporalFunction,
 * CallProcedure, CallSubquery, ExistsSubquery, MultipleLabels, LabelMutation).
 *
 * Scopes flow through the clauses (scope.ts). The rules live beside what they check:
 * expressions in check-expr.ts, patterns in check-patterns.ts, WITH and RETURN in
 * check-projection.ts; this module walks the clauses, UNION and the updating clauses.
 *
 * Out-of-scope features are noted and thrown only after the whole query passed: a query with
 * both a syntax error and an unsupported feature reports the syntax error.
 */
import type { Clause, Expr, Name, ProjectionItem, Query, ReturnClause, SetItem, SingleQuery, VariableExpr, WithClause } from './ast.js';
import { ExprChecker, type ExprEnv } from './check-expr.js';
import { bindReadPattern, bindWritePattern, type CheckProps } from './check-patterns.js';
import { checkProjection } from './check-projection.js';
import { columnName } from './ast-walk.js';
import { ANY, elementOf, isList, mayBe, showTy, type VarKind } from './check-types.js';
import { UPDATING } from './composition.js';
import { AnalysisState, EMPTY_SCOPE, describe, semanticError, type Binding, type Scope } from './scope.js';

export type { VarKind } from './check-types.js';

/** What analysis learnt, for the lowering (optional to use). */
export interface Analysis {
  /**
   * The kind of every variable occurrence, by AST node identity: each VariableExpr, and each
   * Name that binds or names a variable (pattern variables, aliases, UNWIND, comprehensions).
   * A variable-length relationship variable is a 'value' (a list of relationships).
   */
  readonly kinds: ReadonlyMap<VariableExpr | Name, VarKind>;
  /** The result columns (of the first part of a UNION); empty when the query ends in an update. */
  readonly columns: readonly string[];
  /** The parameters ($name) the query uses, in order of first use. */
  readonly parameters: readonly string[];
  /** Whether the query has an updating clause (CREATE, MERGE, SET, REMOVE, DELETE, FOREACH). */
  readonly updating: boolean;
  /** The WITH and RETURN clauses that aggregate (an item calls an aggregate function). */
  readonly aggregating: ReadonlySet<WithClause | ReturnClause>;
  /**
   * After a WITH or RETURN with DISTINCT or aggregates, ORDER BY (and WITH's WHERE) sees only
   * the projected columns, but may repeat a projected expression (`RETURN n.name, count(*)
   * ORDER BY n.name, count(*)`): each such sub-expression, by identity, with the item whose
   * column it reads.
   */
  readonly standsFor: ReadonlyMap<Expr, ProjectionItem>;
}

/** Checks `query`; throws CypherError (phase 'compile') for the first rule it breaks. */
export function analyze(query: Query): Analysis {
  const analyzer = new Analyzer();
  let columns: readonly string[];
  if (query.kind === 'union') {
    const parts = query.queries.map((q) => analyzer.singleQuery(q, EMPTY_SCOPE));
    columns = parts[0]!;
    parts.forEach((part, i) => {
      const same = part.length === columns.length && [...part].sort().every((c, j) => c === [...columns].sort()[j]);
      if (!same) {
        throw semanticError(
          'DifferentColumnsInUnion',
          `every part of a UNION must return the same columns: (${columns.join(', ')}) against (${part.join(', ')})`,
          query.queries[i]!.span,
        );
      }
    });
  } else columns = analyzer.singleQuery(query, EMPTY_SCOPE);
  const state = analyzer.state;
  if (state.unsupported !== null) throw state.unsupported;
  return {
    kinds: state.kinds,
    columns,
    parameters: [...state.parameters],
    updating: analyzer.updating,
    aggregating: state.aggregating,
    standsFor: state.standsFor,
  };
}

class Analyzer {
  readonly state = new AnalysisState();
  readonly exprs = new ExprChecker(this.state);
  updating = false;

  /** Checks the clauses of one query in turn; returns its columns. */
  singleQuery(query: SingleQuery, scope: Scope): readonly string[] {
    let columns: readonly string[] = [];
    for (const clause of query.clauses) {
      const next = this.clause(clause, scope);
      scope = next.scope;
      columns = next.columns ?? columns;
    }
    return columns;
  }

  private env(scope: Scope, clause: string): ExprEnv {
    return { scope, clause, noAggregates: clause };
  }

  private props(clause: string): CheckProps {
    return (props, scope) => this.exprs.check(props, { scope, clause, noAggregates: `the properties of a ${clause} pattern` });
  }

  private clause(clause: Clause, scope: Scope): { scope: Scope; columns?: readonly string[] } {
    if (UPDATING.has(clause.kind)) this.updating = true;
    switch (clause.kind) {
      case 'match': {
        const name = clause.optional ? 'OPTIONAL MATCH' : 'MATCH';
        const bound = bindReadPattern(clause.pattern, 'match', scope, this.state, this.props(name));
        const next = new Map([...scope, ...bound]);
        if (clause.where !== null) this.exprs.checkPredicate(clause.where, this.env(next, 'WHERE'));
        return { scope: next };
      }
      case 'create':
        return { scope: new Map([...scope, ...bindWritePattern(clause.pattern, 'create', scope, this.state, this.props('CREATE'))]) };
      case 'merge': {
        const next = new Map([...scope, ...bindWritePattern([clause.pattern], 'merge', scope, this.state, this.props('MERGE'))]);
        for (const action of clause.actions) this.setItems(action.items, next, `ON ${action.on.toUpperCase()} SET`);
        return { scope: next };
      }
      case 'set':
        this.setItems(clause.items, scope, 'SET');
        return { scope };
      case 'remove':
        for (const item of clause.items) {
          if (item.kind === 'removeProperty') this.exprs.check(item.target, this.env(scope, 'REMOVE'));
          else {
            this.variable(item.variable, scope, 'REMOVE');
            this.state.noteUnsupported(
              'LabelMutation',
              `REMOVE ${item.variable.name}:${item.labels.map((l) => l.name).join(':')}: labels cannot be changed`,
              item.span,
            );
          }
        }
        return { scope };
      case 'delete':
        for (const target of clause.targets) {
          const what = clause.detach ? 'DETACH DELETE' : 'DELETE';
          if (target.kind === 'hasLabels') {
            throw semanticError(
              'InvalidDelete',
              `${what} deletes nodes, relationships and paths, not labels (${describe(target)})`,
              target.span,
            );
          }
          const ty = this.exprs.check(target, this.env(scope, what));
          if (!mayBe(ty, ['node', 'relationship', 'path', 'list'])) {
            throw semanticError(
              'InvalidArgumentType',
              `${what} deletes nodes, relationships and paths, but ${describe(target)} is ${showTy(ty)}`,
              target.span,
            );
          }
        }
        return { scope };
      case 'with':
      case 'return': {
        const result = checkProjection(clause, scope, this.exprs, this.state);
        return { scope: result.scope, columns: clause.kind === 'return' ? result.columns : undefined };
      }
      case 'unwind': {
        const ty = this.exprs.check(clause.list, this.env(scope, 'UNWIND'));
        const element = isList(ty) ? elementOf(ty) : ty;
        return { scope: this.bind(scope, clause.variable, element, 'UNWIND') };
      }
      case 'foreach': {
        const ty = this.exprs.check(clause.list, this.env(scope, 'FOREACH'));
        let inner: Scope = new Map([...scope, [clause.variable.name, { ty: elementOf(ty), span: clause.variable.span }]]);
        this.state.noteKind(clause.variable, elementOf(ty));
        for (const c of clause.clauses) inner = this.clause(c, inner).scope;
        return { scope };
      }
      case 'call': {
        const full = [...clause.namespace, clause.procedure].map((n) => n.name).join('.');
        this.state.noteUnsupported('CallProcedure', `CALL ${full}: procedures are not supported`, clause.span);
        for (const arg of clause.args ?? []) this.exprs.check(arg, this.env(scope, `the arguments of CALL ${full}`));
        let next = scope;
        for (const item of clause.yield?.items ?? []) next = this.bind(next, item.alias ?? item.field, ANY, 'YIELD');
        if (clause.yield?.where != null) this.exprs.checkPredicate(clause.yield.where, this.env(next, 'WHERE'));
        return { scope: next };
      }
      case 'callSubquery': {
        this.state.noteUnsupported('CallSubquery', 'CALL { } subqueries are not supported', clause.span);
        // Not analysed: its returned columns are bound as unknown values.
        const inner = clause.query.kind === 'union' ? clause.query.queries[0]! : clause.query;
        const last = inner.clauses[inner.clauses.length - 1];
        const next = new Map(scope);
        if (last?.kind === 'return') for (const item of last.items) next.set(columnName(item), { ty: ANY, span: item.span });
        return { scope: next };
      }
    }
  }

  /** A new variable (UNWIND, YIELD): VariableAlreadyBound if the name is taken. */
  private bind(scope: Scope, name: Name, ty: Binding['ty'], clause: string): Scope {
    if (scope.has(name.name)) {
      throw semanticError(
        'VariableAlreadyBound',
        `variable \`${name.name}\` is already bound: ${clause} cannot introduce it again`,
        name.span,
      );
    }
    this.state.noteKind(name, ty);
    return new Map([...scope, [name.name, { ty, span: name.span }]]);
  }

  /** A name that must be a variable in scope (SET n = ..., REMOVE n:L). */
  private variable(name: Name, scope: Scope, clause: string): Binding {
    const binding = scope.get(name.name);
    if (binding === undefined)
      throw semanticError('UndefinedVariable', `variable \`${name.name}\` is not defined (in ${clause})`, name.span);
    this.state.noteKind(name, binding.ty);
    return binding;
  }

  private setItems(items: readonly SetItem[], scope: Scope, clause: string): void {
    for (const item of items) {
      switch (item.kind) {
        case 'setProperty':
          this.exprs.check(item.target, this.env(scope, clause));
          this.exprs.check(item.value, this.env(scope, clause));
          break;
        case 'setAll':
        case 'setMerge': {
          const binding = this.variable(item.variable, scope, clause);
          if (!mayBe(binding.ty, ['node', 'relationship'])) {
            throw semanticError(
              'InvalidArgumentType',
              `${clause} ${item.variable.name} ${item.kind === 'setAll' ? '=' : '+='} ...: \`${item.variable.name}\` is ${showTy(binding.ty)}, not a node or relationship`,
              item.variable.span,
            );
          }
          this.exprs.check(item.value, this.env(scope, clause));
          break;
        }
        case 'setLabels':
          this.variable(item.variable, scope, clause);
          this.state.noteUnsupported(
            'LabelMutation',
            `SET ${item.variable.name}:${item.labels.map((l) => l.name).join(':')}: labels cannot be changed`,
            item.span,
          );
          break;
      }
    }
  }
}
