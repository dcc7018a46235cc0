/**
 * Semantic checks of one expression against the variables in scope, inferring its static type
 * (check-types.ts) as it goes:
 *  - UndefinedVariable: a name not in scope (comprehension variables are in scope only inside);
 *  - UnknownFunction, InvalidNumberOfArguments: against plan/functions.ts (names are
 *    case-insensitive; a namespaced name is unknown, but for temporal ones: out of scope);
 *  - InvalidAggregation: an aggregate where aggregates are not allowed (WHERE, SET, inside a
 *    comprehension...); NestedAggregation; NonConstantExpression: rand() inside an aggregate;
 *  - InvalidArgumentType: an operand or argument whose type is known and wrong (`123 AND
 *    true`, `1 IN 'foo'`, `'a' % 2`, `labels(path)`, `p.name` on a path); property access on
 *    a number, string, boolean or list is the TCK's TypeError at compile time (type_error);
 *  - pattern predicates (`WHERE (a)-->(b)`) may not introduce variables: UndefinedVariable.
 * EXISTS { } subqueries and temporal functions are noted as out of scope (AnalysisState).
 */
import type { CallExpr, CountStarExpr, Expr, Name } from './ast.js';
import { bindReadPattern } from './check-patterns.js';
import { ANY, elementOf, isList, isNumeric, join, listOf, mayBe, showTy, type ScalarTy, type Ty } from './check-types.js';
import { functionSignature } from '../plan/functions.js';
import { children, exprKey, isAggregateCall } from './ast-walk.js';
import { describe, semanticError, type AnalysisState, type Binding, type Scope } from './scope.js';

/** Temporal functions and types: out of scope (unsupported_feature TemporalFunction). */
const TEMPORAL_FUNCTIONS: ReadonlySet<string> = new Set(['date', 'time', 'localtime', 'datetime', 'localdatetime', 'duration']);

export interface ExprEnv {
  readonly scope: Scope;
  /** Where the expression stands, for messages: 'RETURN', 'WHERE', 'SET'... */
  readonly clause: string;
  /** null: aggregate functions are allowed here (a WITH or RETURN item); else where we are, for the message. */
  readonly noAggregates: string | null;
}

interface Ctx extends ExprEnv {
  /** The aggregate call the expression is an argument of. */
  readonly inAggregate: CallExpr | CountStarExpr | null;
}

/** The types a function's first argument may have (plus null and unknowns); the rest are not checked. */
const FIRST_ARGUMENT: { readonly [name: string]: readonly (ScalarTy | 'list')[] } = {
  id: ['node', 'relationship'],
  type: ['relationship'],
  labels: ['node'],
  properties: ['node', 'relationship', 'map'],
  keys: ['node', 'relationship', 'map'],
  startnode: ['relationship'],
  endnode: ['relationship'],
  nodes: ['path'],
  relationships: ['path'],
  // Paths; strings and lists too (older Cypher), which the TCK does not reject.
  length: ['path', 'string', 'list'],
  size: ['list', 'string'],
};

const STRING_RESULT = new Set([
  'type',
  'tostring',
  'tostringornull',
  'substring',
  'left',
  'right',
  'trim',
  'ltrim',
  'rtrim',
  'tolower',
  'toupper',
  'replace',
]);
const FLOAT_RESULT = new Set([
  'tofloat',
  'tofloatornull',
  'ceil',
  'floor',
  'round',
  'sqrt',
  'exp',
  'log',
  'log10',
  'e',
  'pi',
  'rand',
  'sin',
  'cos',
  'tan',
  'cot',
  'asin',
  'acos',
  'atan',
  'atan2',
  'degrees',
  'radians',
  'haversin',
  'stdev',
  'stdevp',
  'percentilecont',
]);
const INTEGER_RESULT = new Set(['id', 'length', 'size', 'sign', 'tointeger', 'tointegerornull', 'count']);
const BOOLEAN_RESULT = new Set(['exists', 'isnan', 'toboolean', 'tobooleanornull']);

/** A function's result type from its (lower-case) name and argument types. */
function resultType(name: string, args: readonly Ty[]): Ty {
  const first = args[0] ?? ANY;
  if (STRING_RESULT.has(name)) return 'string';
  if (FLOAT_RESULT.has(name)) return 'float';
  if (INTEGER_RESULT.has(name)) return 'integer';
  if (BOOLEAN_RESULT.has(name)) return 'boolean';
  switch (name) {
    case 'labels':
    case 'keys':
    case 'split':
    case 'tostringlist':
      return listOf('string');
    case 'properties':
      return 'map';
    case 'startnode':
    case 'endnode':
      return 'node';
    case 'nodes':
      return listOf('node');
    case 'relationships':
      return listOf('relationship');
    case 'head':
    case 'last':
      return elementOf(first);
    case 'tail':
      return isList(first) ? first : ANY;
    case 'reverse':
      return isList(first) || first === 'string' ? first : ANY;
    case 'range':
    case 'tointegerlist':
      return listOf('integer');
    case 'tofloatlist':
      return listOf('float');
    case 'tobooleanlist':
      return listOf('boolean');
    case 'abs':
      return isNumeric(first) ? first : ANY;
    case 'min':
    case 'max':
      return first;
    case 'collect':
      return listOf(first === 'null' ? ANY : first);
    case 'coalesce':
      return args.reduce<Ty>((a, b) => join(a, b), 'null');
    default:
      return ANY;
  }
}

export class ExprChecker {
  constructor(readonly state: AnalysisState) {}

  /** Checks `e` in `env`; returns its static type. Throws CypherError (syntax_error, type_error). */
  check(e: Expr, env: ExprEnv): Ty {
    return this.expr(e, { ...env, inAggregate: null });
  }

  /** A predicate (WHERE): it must be able to be a boolean. */
  checkPredicate(e: Expr, env: ExprEnv): void {
    const ty = this.check(e, env);
    this.requireBoolean(ty, e, `the ${env.clause} predicate`);
  }

  private requireBoolean(ty: Ty, e: Expr, what: string): void {
    if (!mayBe(ty, ['boolean'])) {
      throw semanticError('InvalidArgumentType', `${what} must be a boolean, but ${describe(e)} is ${showTy(ty)}`, e.span);
    }
  }

  private requireNumber(ty: Ty, e: Expr, op: string): void {
    if (!mayBe(ty, ['integer', 'float'])) {
      throw semanticError('InvalidArgumentType', `operator ${op} needs numbers, but ${describe(e)} is ${showTy(ty)}`, e.span);
    }
  }

  /** The scope of a comprehension's body: the outer one plus its variable. */
  private local(ctx: Ctx, name: Name, ty: Ty): Ctx {
    const scope = new Map<string, Binding>(ctx.scope);
    scope.set(name.name, { ty, span: name.span });
    this.state.noteKind(name, ty);
    return { ...ctx, scope, noAggregates: ctx.noAggregates ?? 'a comprehension or quantifier body' };
  }

  private expr(e: Expr, ctx: Ctx): Ty {
    switch (e.kind) {
      case 'integer':
      case 'float':
      case 'string':
      case 'boolean':
      case 'null':
        return e.kind;
      case 'list':
        return listOf(e.items.reduce<Ty>((ty, item) => join(ty, this.expr(item, ctx)), 'null'));
      case 'map':
        for (const entry of e.entries) this.expr(entry.value, ctx);
        return 'map';
      case 'parameter':
        this.state.parameters.add(e.name);
        return ANY;
      case 'variable': {
        const binding = ctx.scope.get(e.name);
        if (binding === undefined)
          throw semanticError('UndefinedVariable', `variable \`${e.name}\` is not defined (in ${ctx.clause})`, e.span);
        this.state.noteKind(e, binding.ty);
        return binding.ty;
      }
      case 'property': {
        const ty = this.expr(e.object, ctx);
        if (ty === 'path') {
          throw semanticError('InvalidArgumentType', `${describe(e.object)} is a path: a path has no property ${e.key.name}`, e.span);
        }
        if (!mayBe(ty, ['map', 'node', 'relationship'])) {
          throw semanticError(
            'InvalidArgumentType',
            `${describe(e.object)} is ${showTy(ty)}: only a node, a relationship or a map has property ${e.key.name}`,
            e.span,
            'type_error',
          );
        }
        return ANY;
      }
      case 'index': {
        const ty = this.expr(e.object, ctx);
        this.expr(e.index, ctx);
        return isList(ty) ? ty.list : ANY;
      }
      case 'slice': {
        const ty = this.expr(e.object, ctx);
        if (e.from !== null) this.expr(e.from, ctx);
        if (e.to !== null) this.expr(e.to, ctx);
        return isList(ty) ? ty : ANY;
      }
      case 'hasLabels':
        this.expr(e.object, ctx);
        return 'boolean';
      case 'unary': {
        const ty = this.expr(e.operand, ctx);
        if (e.op === 'not') {
          this.requireBoolean(ty, e.operand, 'the operand of NOT');
          return 'boolean';
        }
        this.requireNumber(ty, e.operand, `unary ${e.op}`);
        return isNumeric(ty) ? ty : ANY;
      }
      case 'binary':
        return this.binary(e, ctx);
      case 'comparison':
        for (const operand of e.operands) this.expr(operand, ctx);
        return 'boolean';
      case 'isNull':
        this.expr(e.operand, ctx);
        return 'boolean';
      case 'call':
        return this.call(e, ctx);
      case 'countStar':
        this.aggregate(e, ctx);
        return 'integer';
      case 'case': {
        if (e.subject !== null) this.expr(e.subject, ctx);
        let ty: Ty = 'null';
        for (const alt of e.alternatives) {
          this.expr(alt.when, ctx);
          ty = join(ty, this.expr(alt.then, ctx));
        }
        return e.else === null ? ty : join(ty, this.expr(e.else, ctx));
      }
      case 'listComprehension': {
        const inner = this.local(ctx, e.variable, elementOf(this.expr(e.list, ctx)));
        if (e.where !== null) this.requireBoolean(this.expr(e.where, inner), e.where, 'the WHERE of a list comprehension');
        return e.map === null ? listOf(elementOf(inner.scope.get(e.variable.name)!.ty)) : listOf(this.expr(e.map, inner));
      }
      case 'quantifier': {
        const inner = this.local(ctx, e.variable, elementOf(this.expr(e.list, ctx)));
        if (e.where !== null) this.requireBoolean(this.expr(e.where, inner), e.where, `the WHERE of ${e.quantifier}()`);
        return 'boolean';
      }
      case 'reduce': {
        const init = this.expr(e.init, ctx);
        const list = this.expr(e.list, ctx);
        const withAcc = this.local(ctx, e.accumulator, init === 'null' ? ANY : init);
        const inner = this.local(withAcc, e.variable, elementOf(list));
        this.expr(e.expr, inner);
        return ANY;
      }
      case 'patternComprehension': {
        const bound = bindReadPattern([e.pattern], 'comprehension', ctx.scope, this.state, (props, scope) =>
          this.expr(props, { ...ctx, scope }),
        );
        const inner: Ctx = {
          ...ctx,
          scope: new Map([...ctx.scope, ...bound]),
          noAggregates: ctx.noAggregates ?? 'a pattern comprehension',
        };
        if (e.where !== null) this.requireBoolean(this.expr(e.where, inner), e.where, 'the WHERE of a pattern comprehension');
        return listOf(this.expr(e.map, inner));
      }
      case 'mapProjection': {
        this.expr({ kind: 'variable', span: e.variable.span, name: e.variable.name }, ctx);
        const binding = ctx.scope.get(e.variable.name)!;
        this.state.noteKind(e.variable, binding.ty);
        for (const item of e.items) {
          if (item.kind === 'entry') this.expr(item.value, ctx);
          else if (item.kind === 'variable') {
            const b = ctx.scope.get(item.name.name);
            if (b === undefined) {
              throw semanticError('UndefinedVariable', `variable \`${item.name.name}\` is not defined (in ${ctx.clause})`, item.name.span);
            }
            this.state.noteKind(item.name, b.ty);
          }
        }
        return 'map';
      }
      case 'pattern':
        bindReadPattern([e.pattern], 'predicate', ctx.scope, this.state, (props, scope) => this.expr(props, { ...ctx, scope }));
        return 'boolean';
      case 'exists':
        this.state.noteUnsupported('ExistsSubquery', 'EXISTS { } subqueries are not supported', e.span);
        return 'boolean';
    }
  }

  private binary(e: Expr & { kind: 'binary' }, ctx: Ctx): Ty {
    const left = this.expr(e.left, ctx);
    const right = this.expr(e.right, ctx);
    switch (e.op) {
      case 'and':
      case 'or':
      case 'xor': {
        const op = e.op.toUpperCase();
        this.requireBoolean(left, e.left, `the left operand of ${op}`);
        this.requireBoolean(right, e.right, `the right operand of ${op}`);
        return 'boolean';
      }
      case 'in':
        if (!mayBe(right, ['list'])) {
          throw semanticError(
            'InvalidArgumentType',
            `IN needs a list on its right, but ${describe(e.right)} is ${showTy(right)}`,
            e.right.span,
          );
        }
        return 'boolean';
      case 'startsWith':
      case 'endsWith':
      case 'contains':
      case 'regex':
        return 'boolean';
      case '+':
        return this.plus(e, left, right);
      default: {
        this.requireNumber(left, e.left, e.op);
        this.requireNumber(right, e.right, e.op);
        if (e.op === '^') return 'float';
        if (left === 'integer' && right === 'integer') return 'integer';
        if (isNumeric(left) && isNumeric(right)) return left === 'float' || right === 'float' ? 'float' : 'number';
        return ANY;
      }
    }
  }

  /** `+`: numbers, string concatenation (with numbers too), list concatenation and appending. */
  private plus(e: Expr & { kind: 'binary' }, left: Ty, right: Ty): Ty {
    if (isList(left) && isList(right)) return listOf(join(left.list, right.list));
    // appending or prepending one element (any type)
    if (isList(left)) return listOf(right === 'any' ? ANY : join(left.list, right));
    if (isList(right)) return listOf(left === 'any' ? ANY : join(left, right.list));
    if (left === 'string' || right === 'string') {
      for (const [ty, side] of [
        [left, e.left],
        [right, e.right],
      ] as const) {
        if (!mayBe(ty, ['string', 'integer', 'float'])) {
          throw semanticError('InvalidArgumentType', `operator + cannot add ${showTy(ty)} (${describe(side)}) to a string`, side.span);
        }
      }
      return 'string';
    }
    for (const [ty, side] of [
      [left, e.left],
      [right, e.right],
    ] as const) {
      if (!mayBe(ty, ['integer', 'float', 'string', 'list'])) {
        throw semanticError('InvalidArgumentType', `operator + cannot add ${showTy(ty)} (${describe(side)})`, side.span);
      }
    }
    if (left === 'integer' && right === 'integer') return 'integer';
    if (isNumeric(left) && isNumeric(right)) return left === 'float' || right === 'float' ? 'float' : 'number';
    return ANY;
  }

  private aggregate(e: CallExpr | CountStarExpr, ctx: Ctx): void {
    const name = e.kind === 'countStar' ? 'count(*)' : `${e.name.name}(...)`;
    if (ctx.inAggregate !== null) {
      throw semanticError('NestedAggregation', `aggregate ${name} cannot be used inside another aggregate (in ${ctx.clause})`, e.span);
    }
    if (ctx.noAggregates !== null) {
      throw semanticError('InvalidAggregation', `aggregate ${name} is not allowed in ${ctx.noAggregates}`, e.span);
    }
  }

  private call(e: CallExpr, ctx: Ctx): Ty {
    const full = [...e.namespace, e.name].map((n) => n.name).join('.');
    const lower = e.name.name.toLowerCase();
    const head = (e.namespace[0]?.name ?? e.name.name).toLowerCase();
    if (TEMPORAL_FUNCTIONS.has(head)) {
      this.state.noteUnsupported(
        'TemporalFunction',
        `temporal function ${full}() is not supported (temporal types are out of scope)`,
        e.span,
      );
      for (const arg of e.args) this.expr(arg, ctx);
      return ANY;
    }
    const sig = e.namespace.length === 0 ? functionSignature(lower) : undefined;
    if (sig === undefined) throw semanticError('UnknownFunction', `unknown function ${full}()`, e.name.span);
    if (e.args.length < sig.min || (sig.max !== null && e.args.length > sig.max)) {
      const wanted = sig.max === sig.min ? `${sig.min}` : sig.max === null ? `at least ${sig.min}` : `${sig.min} to ${sig.max}`;
      throw semanticError(
        'InvalidNumberOfArguments',
        `function ${full}() takes ${wanted} argument${wanted === '1' ? '' : 's'}, not ${e.args.length}`,
        e.span,
      );
    }
    if (lower === 'rand' && ctx.inAggregate !== null) {
      throw semanticError(
        'NonConstantExpression',
        `rand() cannot be used inside aggregate ${ctx.inAggregate.kind === 'call' ? ctx.inAggregate.name.name : 'count'}()`,
        e.span,
      );
    }
    let argCtx = ctx;
    if (sig.aggregate) {
      this.aggregate(e, ctx);
      argCtx = { ...ctx, inAggregate: e };
    }
    const types = e.args.map((arg) => this.expr(arg, argCtx));
    const allowed = FIRST_ARGUMENT[lower];
    if (allowed !== undefined && !mayBe(types[0]!, allowed)) {
      throw semanticError(
        'InvalidArgumentType',
        `function ${full}() takes ${allowed.map((t) => (t === 'list' ? 'a list' : showTy(t))).join(' or ')}, but ${describe(e.args[0]!)} is ${showTy(types[0]!)}`,
        e.args[0]!.span,
      );
    }
    return resultType(lower, types);
  }
}

/** Whether `e` calls an aggregate function, pattern comprehensions' bodies included (where one is an error). */
export function containsAggregate(e: Expr): boolean {
  let found = false;
  visit(e, (x) => {
    if (isAggregateCall(x)) found = true;
    return !found;
  });
  return found;
}

/** Calls `f` on `e` and its sub-expressions, pre-order; `f` returning false skips the children. */
export function visit(e: Expr, f: (x: Expr) => boolean): void {
  if (!f(e)) return;
  for (const child of children(e)) visit(child, f);
}

/** Structural equality of two expressions, ignoring spans and the case of function names (ORDER BY against projected items). */
export function sameExpr(a: Expr, b: Expr): boolean {
  return exprKey(a) === exprKey(b);
}
