/**
 * WHERE conditions (reference §4.3): comparisons of a property of `_` or of a count of a
 * traversal from it, EXISTS, AND, OR and their negations, as /v2/query predicates.
 */
import type { Expr, Step, TypeExpr } from './ast.js';
import { COUNT_TYPE, ID_TYPE, propertyOf, singleField, type ElementTy, type Lowering } from './lower-context.js';
import { listExpr, valueExpr } from './lower-value.js';
import { CompileError, describeTy, typeText } from './types.js';
import { and, compare, constant, ID_EXPR, not, op, or, param, type Wire } from './wire-build.js';

/** A condition about the current element `_` of type `el`, as a /v2/query predicate. */
export function lowerCondition(l: Lowering, e: Expr, el: ElementTy): Wire {
  switch (e.kind) {
    case 'logic': {
      const parts = e.items.map((item) => lowerCondition(l, item, el));
      const joined = e.op === 'AND' ? and(parts) : or(parts);
      return e.negated ? not(joined) : joined;
    }
    case 'exists': {
      if (e.traversal.kind !== 'traversal' || e.traversal.source.kind !== 'anon') {
        throw new CompileError(e.traversal.pos, 'EXISTS takes a traversal from the current element, such as EXISTS(_::Out<Follows>)');
      }
      const sub = l.hooks.traversal(l, e.traversal, el);
      if (sub.ty.k !== 'element')
        throw new CompileError(
          e.traversal.pos,
          `EXISTS asks whether a traversal finds nodes or edges; this one gives ${describeTy(sub.ty)}`,
        );
      const test = compare('eq', { traversal: { root: op('exists', { input: sub.root }) } }, constant({ bool: true }));
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
  const { expr: left, type } = comparedValue(l, e, valueSteps, el);
  const right = last.op === 'IS_IN' ? listExpr(l, last.value, type) : valueExpr(l, last.value, type);
  switch (last.op) {
    case 'EQ':
      return compare('eq', left, right);
    case 'NEQ':
      // A missing property is neither equal nor unequal (reference §4.3).
      return left === ID_EXPR || type === COUNT_TYPE
        ? compare('neq', left, right)
        : and([{ is_not_null: { property: (left as { property: string }).property } }, compare('neq', left, right)]);
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

/** The left side of a comparison: a property of `_`, its id, or a count of a traversal from it. */
function comparedValue(
  l: Lowering,
  e: Extract<Expr, { kind: 'traversal' }>,
  steps: readonly Step[],
  el: ElementTy,
): { expr: Wire; type: TypeExpr | null } {
  const only = steps.length === 1 ? steps[0]! : null;
  if (only !== null && only.kind === 'ID') return { expr: ID_EXPR, type: ID_TYPE };
  if (only !== null && only.kind === 'project') {
    const name = singleField(only);
    if (name === null) throw new CompileError(only.pos, 'compare one property at a time: _::{property}::EQ(...)');
    return propertyOf(l, el, name.text, name.pos);
  }
  const sub = l.hooks.traversal(l, { ...e, steps }, el);
  if (sub.show.unwrap !== 'count')
    throw new CompileError(e.pos, `a comparison needs one value; this traversal gives ${describeTy(sub.ty)} (count it with ::COUNT)`);
  return { expr: { traversal: { root: sub.root } }, type: COUNT_TYPE };
}

/** The property ORDER sorts by: ORDER<Asc>(_::{property}) or _::ID. */
export function orderProperty(l: Lowering, by: Expr, el: ElementTy): string {
  if (by.kind === 'traversal' && by.source.kind === 'anon' && by.steps.length === 1) {
    const s = by.steps[0]!;
    if (s.kind === 'ID') return '$id';
    if (s.kind === 'project') {
      const name = singleField(s);
      if (name !== null) {
        const { expr } = propertyOf(l, el, name.text, name.pos);
        return expr === ID_EXPR ? '$id' : (expr as { property: string }).property;
      }
    }
  }
  throw new CompileError(
    by.pos,
    'ORDER sorts by a property of the element: ORDER<Asc>(_::{property}) (ordering by a computed value is not supported yet)',
  );
}
