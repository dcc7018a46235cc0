/**
 * WHERE conditions (reference §4.3): comparisons of a property of `_`, of a count of a
 * traversal from it, or of the first value a traversal from it reaches (`_::ToN::ID`,
 * `_::InE<T>::{at}`: v1 compares the first value), with a literal, a parameter, a math
 * expression or a property of a variable's element (`EQ(other::{name})`); EXISTS, AND, OR
 * and their negations; as /v2/query predicates. Also what ORDER sorts by.
 */
import type { Expr, Step, TypeExpr } from './ast.js';
import {
  COUNT_TYPE,
  F64_TYPE,
  ID_TYPE,
  lookup,
  nestedTraversal,
  outerScope,
  propertyOf,
  singleField,
  traversalStart,
  withInput,
  type ElementTy,
  type Lowering,
} from './lower-context.js';
import { listExpr, literal, mathCall, paramRef, valueExpr } from './lower-value.js';
import { CompileError, describeTy, typeText } from './types.js';
import { and, compare, constant, CONTEXT, ID_EXPR, not, op, or, param, type Wire } from './wire-build.js';

/** A condition about the current element `_` of type `el`, as a /v2/query predicate. */
export function lowerCondition(l: Lowering, e: Expr, el: ElementTy): Wire {
  switch (e.kind) {
    case 'logic': {
      const parts = e.items.map((item) => lowerCondition(l, item, el));
      const joined = e.op === 'AND' ? and(parts) : or(parts);
      return e.negated ? not(joined) : joined;
    }
    case 'exists': {
      const test = compare('eq', existsExpr(l, e, el), constant({ bool: true }));
      return e.negated ? not(test) : test;
    }
    case 'literal':
      if (typeof e.value !== 'boolean') throw new CompileError(e.pos, 'a condition is true, false, a comparison, EXISTS, AND or OR');
      return compare('eq', constant({ bool: true }), constant({ bool: e.value }));
    case 'traversal':
      return comparison(l, e, el);
    default:
      throw new CompileError(e.pos, 'a condition is a comparison such as _::{age}::GT(18), EXISTS(...), AND(...) or OR(...)');
  }
}

/** `EXISTS(_::...)` as a boolean expression of the current element (its negation is the caller's). */
export function existsExpr(l: Lowering, e: Extract<Expr, { kind: 'exists' }>, el: ElementTy): Wire {
  const t = e.traversal;
  if (t.kind !== 'traversal' || (t.source.kind !== 'anon' && t.source.kind !== 'var')) {
    throw new CompileError(t.pos, 'EXISTS takes a traversal from the current element, such as EXISTS(_::Out<Follows>)');
  }
  // `EXISTS(u::Out<Likes>)`: from an enclosing |u| item, or from a variable's elements.
  let start: { root: Wire; el: ElementTy } = { root: CONTEXT, el };
  if (t.source.kind === 'var') {
    const from = traversalStart(l, t.source.name.text, t.source.pos);
    if (from === null)
      throw new CompileError(
        t.source.pos,
        `EXISTS asks whether a traversal from nodes, edges or vectors finds something; "${t.source.name.text}" is none`,
      );
    start = from;
  }
  const sub = nestedTraversal(l, { ...t, source: { kind: 'anon', pos: t.source.pos } }, start.el);
  if (sub.show.path !== null) {
    // `EXISTS(_::ShortestPath<E>::To(x))`: paths are values, not elements; one exists when one is counted.
    const counted = { traversal: { root: op('count', { input: withInput(sub.root, start.root) }) } };
    const found = compare('gt', counted, constant({ i64: 0n }));
    return { case: { when_then: [{ when: found, then: constant({ bool: true }) }], else_expr: constant({ bool: false }) } };
  }
  if (sub.ty.k !== 'element')
    throw new CompileError(t.pos, `EXISTS asks whether a traversal finds nodes, edges or vectors; this one gives ${describeTy(sub.ty)}`);
  return { traversal: { root: op('exists', { input: withInput(sub.root, start.root) }) } };
}

type Compare = Extract<Step, { kind: 'compare' }>;

function comparison(l: Lowering, e: Extract<Expr, { kind: 'traversal' }>, el: ElementTy): Wire {
  if (e.source.kind === 'var' && e.steps.length === 0) {
    const v = l.scope.get(e.source.name.text);
    if (v?.ty.k === 'param' && v.ty.type.kind === 'primitive' && v.ty.type.name === 'Boolean')
      return compare('eq', param(e.source.name.text), constant({ bool: true }));
  }
  const last = e.steps[e.steps.length - 1];
  if (last === undefined || last.kind !== 'compare') {
    throw new CompileError(
      e.pos,
      'a traversal in WHERE ends with a comparison (EQ, NEQ, GT, GTE, LT, LTE, CONTAINS, IS_IN); to test that it finds something, wrap it in EXISTS(...)',
    );
  }
  if (e.source.kind !== 'anon') throw new CompileError(e.source.pos, 'a comparison in WHERE starts from "_", the element being tested');
  const valueSteps = e.steps.slice(0, -1);
  if (valueSteps.length === 0)
    throw new CompileError(
      last.pos,
      `${last.op} needs a value to compare: _::{property}::${last.op}(...) or _::...::COUNT::${last.op}(...)`,
    );
  const only = valueSteps.length === 1 ? valueSteps[0]! : null;
  if (only !== null && (only.kind === 'ID' || only.kind === 'project')) {
    const { expr, type } = directValue(l, only, el);
    return compared(l, last, expr, type);
  }
  if (valueSteps[valueSteps.length - 1]!.kind === 'COUNT') {
    const sub = nestedTraversal(l, { ...e, steps: valueSteps }, el);
    return compared(l, last, { traversal: { root: sub.root } }, COUNT_TYPE);
  }
  return firstValue(l, e, valueSteps, last, el);
}

/** `_::{p}` or `_::ID` of the element: its expression and type. */
function directValue(l: Lowering, s: Step, el: ElementTy): { expr: Wire; type: TypeExpr | null } {
  if (s.kind === 'ID') return { expr: ID_EXPR, type: ID_TYPE };
  const name = s.kind === 'project' ? singleField(s) : null;
  if (name === null) throw new CompileError(s.pos, 'compare one property at a time: _::{property}::EQ(...)');
  return propertyOf(l, el, name.text, name.pos);
}

/**
 * `_::ToN::ID::EQ(id)`, `_::Out<E>::{name}::EQ(x)`: the first element the traversal reaches
 * is compared (v1 compares the first value), as "the traversal's first element exists and
 * its property compares true".
 */
function firstValue(l: Lowering, e: Extract<Expr, { kind: 'traversal' }>, steps: readonly Step[], last: Compare, el: ElementTy): Wire {
  const final = steps[steps.length - 1]!;
  if (final.kind !== 'ID' && !(final.kind === 'project' && singleField(final) !== null))
    throw new CompileError(
      e.pos,
      `a comparison needs one value: a property (::{name}), ::ID or ::COUNT at the end of the traversal before ${last.op}`,
    );
  const sub = nestedTraversal(l, { ...e, steps: steps.slice(0, -1) }, el);
  if (sub.ty.k !== 'element')
    throw new CompileError(e.pos, `a comparison reads a property of nodes, edges or vectors, not of ${describeTy(sub.ty)}`);
  const { expr, type } = directValue(l, final, { ...sub.ty, single: true });
  const first = op('limit', { input: sub.root, count: { literal: 1 } });
  // The comparison runs inside the traversal expression of firstMeets, one level deeper.
  l.expressionLevel++;
  try {
    return firstMeets(first, compared(l, last, expr, type));
  } finally {
    l.expressionLevel--;
  }
}

/** Whether the row `first` gives (at most one) meets `test`: an exists over a where, as a predicate. */
function firstMeets(first: Wire, test: Wire): Wire {
  return compare(
    'eq',
    { traversal: { root: op('exists', { input: op('where', { input: first, predicate: test }) }) } },
    constant({ bool: true }),
  );
}

/** `left OP value` for the comparison step `last`, the value checked against `type`. */
function compared(l: Lowering, last: Compare, left: Wire, type: TypeExpr | null): Wire {
  const ofItem = outerItemValue(l, last.value);
  const fromVariable = ofItem === null ? variableValue(l, last.value, left, last) : null;
  if (fromVariable !== null) return fromVariable;
  const right = ofItem ?? (last.op === 'IS_IN' ? listExpr(l, last.value, type) : rightValue(l, last.value, type));
  switch (last.op) {
    case 'EQ':
      return compare('eq', left, right);
    case 'NEQ':
      // A missing property is neither equal nor unequal (reference §4.3).
      return isStoredProperty(left)
        ? and([{ is_not_null: { property: (left as { property: string }).property } }, compare('neq', left, right)])
        : compare('neq', left, right);
    case 'GT':
    case 'GTE':
    case 'LT':
    case 'LTE':
      if (type !== null && type.kind === 'primitive' && type.name === 'Boolean')
        throw new CompileError(last.pos, `${last.op} compares numbers, dates and strings; this value is Boolean`);
      return compare(last.op.toLowerCase() as 'gt', left, right);
    case 'CONTAINS':
      if (type !== null && !(type.kind === 'primitive' && type.name === 'String'))
        throw new CompileError(last.pos, `CONTAINS looks for a substring; this value is ${typeText(type)}`);
      return { contains: { value: left, substring: right } };
    case 'IS_IN':
      return { is_in: { value: left, values: right } };
  }
}

function isStoredProperty(e: Wire): boolean {
  return typeof e === 'object' && 'property' in e && typeof e.property === 'string' && !e.property.startsWith('$');
}

/** The compared value: a literal, a parameter, or math over numbers and parameters. */
function rightValue(l: Lowering, e: Expr, type: TypeExpr | null): Wire {
  if (e.kind === 'math') return mathCall(e, (arg) => rightValue(l, arg, F64_TYPE));
  if (e.kind === 'literal' && type !== null && type.kind === 'primitive' && type.name === 'F64' && typeof e.value === 'bigint')
    return constant(literal(e.value, null, e.pos));
  return valueExpr(l, e, type);
}

/**
 * `EQ(other::{name})`, `EQ(other::ID)`: a property of the element a variable holds (its
 * first). Read inside a traversal expression that starts from the variable's elements
 * (`select`), the tested element's value reached one level out (`outer`).
 */
function variableValue(l: Lowering, value: Expr, left: Wire, last: Compare): Wire | null {
  if (value.kind !== 'traversal' || value.source.kind !== 'var' || value.steps.length !== 1) return null;
  const v = lookup(l, value.source.name.text, value.source.name.pos);
  if (v.ty.k !== 'element') return null;
  // The tested element is the row the one traversal expression below starts from.
  const outerLeft = outerOf(left, 1);
  if (outerLeft === null)
    throw new CompileError(
      value.pos,
      `${last.op}(${value.source.name.text}::...) compares a property or the id of the element being tested`,
    );
  const { expr } = directValue(l, value.steps[0]!, { ...v.ty, single: true });
  // outer LEFT op value  ==  value (op reversed) outer LEFT
  const reversed = { EQ: 'eq', NEQ: 'neq', GT: 'lt', GTE: 'lte', LT: 'gt', LTE: 'gte' } as const;
  if (!Object.hasOwn(reversed, last.op))
    throw new CompileError(last.pos, `${last.op} does not take a variable's property; EQ, NEQ, GT, GTE, LT and LTE do`);
  const first = op('limit', { input: op('select', { input: 'context', name: value.source.name.text }), count: { literal: 1 } });
  return firstMeets(first, compare(reversed[last.op as keyof typeof reversed], expr, outerLeft));
}

/**
 * `GT(u::{age})`, `EQ(u::ID)` where `u` is an enclosing `|u|` item: its property read from
 * the row the traversal expressions between its scope and here started from (`outer`), or
 * from the element itself when the condition is about the item. Null for anything else.
 */
function outerItemValue(l: Lowering, value: Expr): Wire | null {
  if (value.kind !== 'traversal' || value.source.kind !== 'var' || value.steps.length !== 1) return null;
  const frame = outerScope(l, value.source.name.text);
  if (frame === undefined) return null;
  const { expr } = directValue(l, value.steps[0]!, { ...frame.el, single: true });
  const depth = l.expressionLevel - frame.level;
  if (depth === 0) return expr;
  const read = outerOf(expr, depth);
  if (read === null)
    throw new CompileError(
      value.pos,
      `an enclosing item's ${value.source.name.text}::{score} cannot be compared here; compare a stored property or the id`,
    );
  return read;
}

/** `left` read from the row `depth` traversal expressions out, when it is a property or the id. */
function outerOf(left: Wire, depth: number): Wire | null {
  if (left === ID_EXPR) return { outer: { depth, property: '$id' } };
  if (typeof left === 'object' && 'property' in left && typeof left.property === 'string')
    return { outer: { depth, property: left.property } };
  return null;
}

/** What ORDER sorts by: a property of the element (`_::{p}`, `_::ID`), or any value computed from it (a count, math). */
export function orderKey(l: Lowering, by: Expr, el: ElementTy): { property: string } | { expr: Wire } {
  if (by.kind === 'traversal' && by.source.kind === 'anon' && by.steps.length === 1) {
    const s = by.steps[0]!;
    if (s.kind === 'ID') return { property: '$id' };
    if (s.kind === 'project') {
      const name = singleField(s);
      if (name !== null) {
        const { expr } = propertyOf(l, el, name.text, name.pos);
        if (expr === ID_EXPR) return { property: '$id' };
        const p = (expr as { property?: unknown }).property;
        return typeof p === 'string' ? { property: p } : { expr };
      }
    }
  }
  return { expr: computedKey(l, by, el) };
}

/** A sort key computed per element: a count or value of a traversal from `_`, or math over such values. */
function computedKey(l: Lowering, e: Expr, el: ElementTy): Wire {
  if (e.kind === 'math') return mathCall(e, (arg) => computedKey(l, arg, el));
  if (e.kind === 'literal' && (typeof e.value === 'bigint' || typeof e.value === 'number')) return constant(literal(e.value, null, e.pos));
  if (e.kind === 'traversal' && e.source.kind === 'anon') {
    const last = e.steps[e.steps.length - 1];
    if (e.steps.length === 1 && last !== undefined && (last.kind === 'ID' || last.kind === 'project')) return directValue(l, last, el).expr;
    const sub = nestedTraversal(l, e, el);
    if (sub.show.unwrap === 'count') return { traversal: { root: sub.root } };
  }
  if (e.kind === 'traversal' && e.source.kind === 'var' && e.steps.length === 0) return paramRef(l, e.source.name.text, e.source.pos, null);
  throw new CompileError(e.pos, 'ORDER sorts by a property of the element (_::{property}), a count (_::Out<E>::COUNT) or math over these');
}
