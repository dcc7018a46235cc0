/** Decoders for Expr, Predicate, PropertyInput, StreamBound and NodeRef/EdgeRef (reference §4). */
import {
  CAST_TARGETS,
  type ArithOp,
  type ElementRef,
  type Expr,
  type Predicate,
  type PropertyInput,
  type StreamBound,
} from '../plan/expr.js';
import type { PathEnd, PlanNode } from '../plan/ops.js';
import {
  bool,
  component,
  described,
  describe,
  fail,
  list,
  name,
  oneOf,
  optional,
  required,
  schemaOf,
  str,
  struct,
  tagged,
  taggedSchema,
  u64,
  withDefault,
  type Field,
} from './schema.js';
import { propertyValue } from './values.js';
import { isMathFunction, MATH_FUNCTIONS } from '../plan/math-functions.js';
import { clip } from '../core/clip.js';

/** `{"name", "property"?}`: a batch variable (and an entry of what it holds), read as values. */
const variableBody = struct({ name: required(name), property: optional(name) });

/** `{"depth"}`: the element a traversal expression that many levels out started from. */
const outerRefBody = struct({ depth: required(u64) });

const ARITH: readonly string[] = ['add', 'sub', 'mul', 'div', 'mod'];
const COMPARE = ['eq', 'neq', 'gt', 'gte', 'lt', 'lte'] as const;

function pair<K extends string>(b: { value: Expr } & Record<K, Expr>, key: K): { value: Expr; arg: Expr } {
  return { value: b.value, arg: b[key] };
}

export interface ExpressionDecoders {
  readonly expr: Field<Expr>;
  readonly predicate: Field<Predicate>;
  readonly propertyInput: Field<PropertyInput>;
  readonly streamBound: Field<StreamBound>;
}

/**
 * The decoders of expressions and of what holds them, given the decoder of operation trees
 * that traversal expressions hold. Operations hold expressions in turn, so ops.ts builds
 * these with its own decoder: neither file imports the other (no import cycles).
 */
export function expressionDecoders(operationTree: Field<PlanNode>): ExpressionDecoders {
  const expr: Field<Expr> = described((json, path) => {
    const { tag, body, bodyPath } = tagged(json, path, 'an expression');
    const unit = (e: 'id' | 'timestamp' | 'date_time_now'): Expr =>
      body === undefined ? { e, path } : fail(path, `"${e}" is a bare string, not an object key`);
    switch (tag) {
      case 'id':
      case 'timestamp':
      case 'date_time_now':
        return unit(tag);
      case 'property':
        return { e: 'property', name: name(body, bodyPath), path };
      case 'param':
        return { e: 'param', name: name(body, bodyPath), path: bodyPath };
      case 'constant':
        return { e: 'constant', value: propertyValue(body, bodyPath), path };
      case 'neg':
        return { e: 'neg', expr: neg(body, bodyPath).expr, path: bodyPath };
      case 'cast': {
        const c = castBody(body, bodyPath);
        return { e: 'cast', expr: c.expr, to: c.to, path: bodyPath };
      }
      case 'case': {
        const c = caseBody(body, bodyPath);
        return { e: 'case', whenThen: c.when_then, elseExpr: c.else_expr, path: bodyPath };
      }
      case 'traversal': {
        const t = traversalBody(body, bodyPath);
        return { e: 'traversal', root: t.root, first: t.first, path: bodyPath };
      }
      case 'math': {
        const m = mathBody(body, bodyPath);
        if (!isMathFunction(m.function))
          return fail(
            `${bodyPath}.function`,
            `unknown math function "${clip(m.function)}" (known: ${Object.keys(MATH_FUNCTIONS).join(', ')})`,
          );
        const arity = MATH_FUNCTIONS[m.function];
        if (m.args.length !== arity)
          return fail(`${bodyPath}.args`, `"${m.function}" takes ${arity} argument${arity === 1 ? '' : 's'}, got ${m.args.length}`);
        return { e: 'math', fn: m.function, args: m.args, path: bodyPath };
      }
      case 'outer': {
        const o = outerBody(body, bodyPath);
        if (o.depth < 1) fail(`${bodyPath}.depth`, 'depth counts enclosing traversal expressions from 1 (the innermost)');
        return { e: 'outer', depth: o.depth, name: o.property, path: bodyPath };
      }
      case 'variable': {
        const v = variableBody(body, bodyPath);
        return { e: 'variable', name: v.name, property: v.property ?? null, path: bodyPath };
      }
      default:
        if (ARITH.includes(tag)) {
          const b = binary(body, bodyPath);
          return { e: tag as ArithOp, left: b.left, right: b.right, path: bodyPath };
        }
        return fail(path, `unknown expression "${clip(tag)}"`);
    }
  }, EXPRESSION);

  const binary = struct({ left: required(expr), right: required(expr) });
  const neg = struct({ expr: required(expr) });
  const castBody = struct({ expr: required(expr), to: required(oneOf(CAST_TARGETS)) });
  const traversalBody = struct({ root: required(operationTree), first: withDefault(bool, false) });
  const outerBody = struct({ depth: required(u64), property: required(name) });
  const mathBody = struct({ function: required(str), args: withDefault(list(expr), []) });

  const predicate: Field<Predicate> = described((json, path) => {
    const { tag, body, bodyPath } = tagged(json, path, 'a predicate');
    switch (tag) {
      case 'eq':
      case 'neq':
      case 'gt':
      case 'gte':
      case 'lt':
      case 'lte': {
        const b = binary(body, bodyPath);
        return { p: 'compare', op: tag, left: b.left, right: b.right, path: bodyPath };
      }
      case 'compare': {
        const b = compareBody(body, bodyPath);
        return { p: 'compare', op: b.op, left: b.left, right: b.right, path: bodyPath };
      }
      case 'between': {
        const b = betweenBody(body, bodyPath);
        return { p: 'between', value: b.value, min: b.min, max: b.max, path: bodyPath };
      }
      case 'has_key':
      case 'is_null':
      case 'is_not_null':
        return { p: tag, property: propertyBody(body, bodyPath).property, path: bodyPath };
      case 'starts_with':
        return { p: tag, ...pair(startsWith(body, bodyPath), 'prefix'), path: bodyPath };
      case 'ends_with':
        return { p: tag, ...pair(endsWith(body, bodyPath), 'suffix'), path: bodyPath };
      case 'contains':
        return { p: tag, ...pair(contains(body, bodyPath), 'substring'), path: bodyPath };
      case 'is_in': {
        const b = isIn(body, bodyPath);
        return { p: 'is_in', value: b.value, values: b.values, path: bodyPath };
      }
      case 'and':
      case 'or': {
        const b = logic(body, bodyPath);
        if (b.predicates.length === 0) fail(`${bodyPath}.predicates`, `"${tag}" needs at least one predicate`, 'invalid_predicate_arity');
        return { p: tag, predicates: b.predicates, path: bodyPath };
      }
      case 'not':
        return { p: 'not', predicate: notBody(body, bodyPath).predicate, path: bodyPath };
      default:
        return fail(path, `unknown predicate "${clip(tag)}"`);
    }
  }, PREDICATE);

  const compareBody = struct({ left: required(expr), op: required(oneOf(COMPARE)), right: required(expr) });
  const betweenBody = struct({ value: required(expr), min: required(expr), max: required(expr) });
  const propertyBody = struct({ property: required(name) });
  const startsWith = struct({ value: required(expr), prefix: required(expr) });
  const endsWith = struct({ value: required(expr), suffix: required(expr) });
  const contains = struct({ value: required(expr), substring: required(expr) });
  const isIn = struct({ value: required(expr), values: required(expr) });
  const logic = struct({ predicates: required(list(predicate)) });
  const notBody = struct({ predicate: required(predicate) });
  const whenThen = struct({ when: required(predicate), then: required(expr) });
  const caseBody = struct({
    when_then: required(list(whenThen)),
    else_expr: described(
      (json: unknown, path: string) => (json === undefined || json === null ? null : expr(json, path)),
      { anyOf: [EXPRESSION, { type: 'null' }] },
      true,
    ),
  });

  component('Expression', () =>
    taggedSchema(['id', 'timestamp', 'date_time_now'], {
      property: name,
      param: name,
      constant: propertyValue,
      neg,
      cast: castBody,
      case: caseBody,
      traversal: traversalBody,
      outer: outerBody,
      variable: variableBody,
      math: mathBody,
      ...Object.fromEntries(ARITH.map((op) => [op, binary])),
    }),
  );
  component('Predicate', () =>
    taggedSchema([], {
      ...Object.fromEntries(COMPARE.map((op) => [op, binary])),
      compare: compareBody,
      between: betweenBody,
      has_key: propertyBody,
      is_null: propertyBody,
      is_not_null: propertyBody,
      starts_with: startsWith,
      ends_with: endsWith,
      contains,
      is_in: isIn,
      and: logic,
      or: logic,
      not: notBody,
    }),
  );

  const propertyInput: Field<PropertyInput> = described(
    (json, path) => {
      const { tag, body, bodyPath } = tagged(json, path, 'a property input ({"value": ...} or {"expr": ...})');
      if (tag === 'value') return { kind: 'value', value: propertyValue(body, bodyPath) };
      if (tag === 'expr') return { kind: 'expr', expr: expr(body, bodyPath) };
      return fail(path, `expected "value" or "expr", got "${clip(tag)}"`);
    },
    component('PropertyInput', () => taggedSchema([], { value: propertyValue, expr })),
  );

  /** A stream bound; a constant i64 >= 0 folds to a literal, any other constant is rejected. */
  const streamBound: Field<StreamBound> = described(
    (json, path) => {
      const { tag, body, bodyPath } = tagged(json, path, 'a stream bound ({"literal": n} or {"expr": ...})');
      if (tag === 'literal') return { kind: 'literal', n: u64(body, bodyPath) };
      if (tag !== 'expr') return fail(path, `expected "literal" or "expr", got "${clip(tag)}"`);
      const e = expr(body, bodyPath);
      if (e.e === 'constant') {
        if (typeof e.value === 'bigint' && e.value >= 0n) return { kind: 'literal', n: Number(e.value) };
        return fail(bodyPath, `a constant bound must be a non-negative i64, got ${describe(e.value)}`, 'invalid_stream_bound_expression');
      }
      return { kind: 'expr', expr: e, path: bodyPath };
    },
    component('StreamBound', () => taggedSchema([], { literal: u64, expr })),
  );

  return { expr, predicate, propertyInput, streamBound };
}

const EXPRESSION = { $ref: '#/components/schemas/Expression' };
const PREDICATE = { $ref: '#/components/schemas/Predicate' };

/**
 * NodeRef / EdgeRef: `"all"`, `{"ids": [...]}`, `{"var": name}`, `{"param": name}`, and the
 * Trellis extensions `{"variable": {name, property?}}` and `{"outer": {depth}}`.
 */
export const elementRef: Field<ElementRef> = described(
  (json, path) => {
    const { tag, body, bodyPath } = tagged(json, path, 'an element reference');
    switch (tag) {
      case 'all':
        return body === undefined ? { kind: 'all' } : fail(path, '"all" is a bare string, not an object key');
      case 'ids': {
        const ids = list(u64)(body, bodyPath);
        // Compare the exact tokens: ids beyond 2^53 all decode to Infinity ("cannot exist").
        const seen = new Set<bigint>();
        (body as unknown[]).forEach((token, i) => {
          const id = token as bigint;
          if (seen.has(id)) fail(`${bodyPath}[${i}]`, `id ${id} appears more than once`, 'duplicate_element_id');
          seen.add(id);
        });
        return { kind: 'ids', ids };
      }
      case 'var':
        return { kind: 'var', name: name(body, bodyPath) };
      case 'param':
        return { kind: 'param', name: name(body, bodyPath), path: bodyPath };
      case 'variable': {
        const v = variableBody(body, bodyPath);
        return { kind: 'variable', name: v.name, property: v.property ?? null, path: bodyPath };
      }
      case 'outer': {
        const { depth } = outerRefBody(body, bodyPath);
        if (depth < 1) fail(`${bodyPath}.depth`, 'depth counts enclosing traversal expressions from 1 (the innermost)');
        return { kind: 'outer', depth, path: bodyPath };
      }
      default:
        return fail(path, `unknown reference "${clip(tag)}" (expected "all", "ids", "var", "param", "variable" or "outer")`);
    }
  },
  component('ElementRef', () =>
    taggedSchema(['all'], { ids: list(u64), var: name, param: name, variable: variableBody, outer: outerRefBody }),
  ),
);

const INPUT_END: PathEnd = { kind: 'input' };

/**
 * PathEnd (shortest_path, weighted_shortest_path): a NodeRef, or `"input"` (a Trellis
 * extension): each row of the operation's input, one path per row.
 */
export const pathEnd: Field<PathEnd> = described(
  (json, path) => (json === 'input' ? INPUT_END : elementRef(json, path)),
  component('PathEnd', () => ({ anyOf: [schemaOf(elementRef), { type: 'string', enum: ['input'] }] })),
);

export const order = oneOf(['asc', 'desc'] as const);

export { str };
