/**
 * Row expressions (plan/table.ts RowExpr) evaluated against one row. The value semantics
 * (equality, ordering, arithmetic, functions) are in operators.ts and functions.ts; this
 * file is the walk, three-valued logic and the scoped constructs (comprehensions,
 * quantifiers, reduce, subqueries).
 */
import { NodeRef, RelRef, isCypherMap, mapSet, newMap, propertiesOf, typeName, type CypherValue } from '../../core/cypher-value.js';
import type { ComparisonOp, PlanLiteral, RowExpr, Where } from '../../plan/table.js';
import { runtimeError, labelsOf } from './env.js';
import {
  arithmetic,
  checkNumber,
  comparison,
  equals,
  indexValue,
  inList,
  logical,
  negate,
  propertyOf,
  sliceList,
  stringOp,
} from './operators.js';
import { FUNCTIONS } from './functions.js';
import type { TableRun, TableRow } from './rows.js';

export function evaluate(e: RowExpr, row: TableRow, run: TableRun): CypherValue {
  switch (e.k) {
    case 'literal':
      return literal(e.value);
    case 'param':
      return run.param(e.name, e.at);
    case 'slot':
      return row[e.slot] ?? null;
    case 'property':
      return propertyOf(evaluate(e.object, row, run), e.key, e.at, run.access);
    case 'index':
      return indexValue(evaluate(e.object, row, run), evaluate(e.index, row, run), e.at, run.access);
    case 'slice':
      return sliceList(
        evaluate(e.object, row, run),
        e.from === null ? undefined : evaluate(e.from, row, run),
        e.to === null ? undefined : evaluate(e.to, row, run),
        e.at,
      );
    case 'has_labels':
      return hasLabels(evaluate(e.object, row, run), e.labels, e.at, run);
    case 'not': {
      const v = logical(evaluate(e.operand, row, run), e.at);
      return v === null ? null : !v;
    }
    case 'negate':
      return negate(evaluate(e.operand, row, run), e.at);
    case 'plus':
      return checkNumber(evaluate(e.operand, row, run), e.at);
    // Both operands are checked even when one decides: `false AND 123` is a type error (TCK Boolean1-4).
    case 'and': {
      const a = logical(evaluate(e.left, row, run), e.at);
      const b = logical(evaluate(e.right, row, run), e.at);
      return a === false || b === false ? false : a === null || b === null ? null : true;
    }
    case 'or': {
      const a = logical(evaluate(e.left, row, run), e.at);
      const b = logical(evaluate(e.right, row, run), e.at);
      return a === true || b === true ? true : a === null || b === null ? null : false;
    }
    case 'xor': {
      const a = logical(evaluate(e.left, row, run), e.at);
      const b = logical(evaluate(e.right, row, run), e.at);
      return a === null || b === null ? null : a !== b;
    }
    case 'arith':
      return arithmetic(e.op, evaluate(e.left, row, run), evaluate(e.right, row, run), e.at);
    case 'string_op':
      return stringOp(e.op, evaluate(e.left, row, run), evaluate(e.right, row, run), e.at);
    case 'in':
      return inList(evaluate(e.left, row, run), evaluate(e.right, row, run), e.at);
    case 'compare':
      return compareChain(e.ops, e.operands, row, run);
    case 'is_null': {
      const isNull = evaluate(e.operand, row, run) === null;
      return e.negated ? !isNull : isNull;
    }
    case 'list':
      return e.items.map((item) => evaluate(item, row, run));
    case 'map': {
      const out = newMap();
      for (const [key, value] of e.entries) mapSet(out, key, evaluate(value, row, run));
      return out;
    }
    case 'call': {
      const fn = FUNCTIONS[e.name];
      if (fn === undefined) throw runtimeError('syntax_error', 'UnknownFunction', `unknown function ${e.name}()`, e.at);
      return fn.call(
        e.args.map((a) => evaluate(a, row, run)),
        run.access,
        e.at,
      );
    }
    case 'case':
      return caseOf(e, row, run);
    case 'list_comprehension': {
      const list = listOrNull(evaluate(e.list, row, run), e.at, 'list comprehension');
      if (list === null) return null;
      const out: CypherValue[] = [];
      const inner = row.slice();
      for (const item of list) {
        inner[e.slot] = item;
        if (e.where !== null && logical(evaluate(e.where, inner, run), e.at) !== true) continue;
        out.push(e.project === null ? item : evaluate(e.project, inner, run));
      }
      return out;
    }
    case 'quantifier':
      return quantify(e, row, run);
    case 'reduce': {
      const list = listOrNull(evaluate(e.list, row, run), e.at, 'reduce');
      if (list === null) return null;
      const inner = row.slice();
      inner[e.accumulator] = evaluate(e.init, row, run);
      for (const item of list) {
        inner[e.slot] = item;
        inner[e.accumulator] = evaluate(e.step, inner, run);
      }
      return inner[e.accumulator] ?? null;
    }
    case 'map_projection':
      return mapProjection(e, row, run);
    case 'subquery': {
      const rows = run.rows(e.plan, row);
      if (e.exists) return rows.length > 0;
      return rows.map((r) => evaluate(e.project!, r, run));
    }
  }
}

/** A plan literal as a value: lists are copied, so no consumer can change the plan. */
function literal(v: PlanLiteral): CypherValue {
  return Array.isArray(v) ? (v as readonly PlanLiteral[]).map(literal) : (v as CypherValue);
}

function compareChain(ops: readonly ComparisonOp[], operands: readonly RowExpr[], row: TableRow, run: TableRun): boolean | null {
  let left = evaluate(operands[0]!, row, run);
  let result: boolean | null = true;
  for (let i = 0; i < ops.length; i++) {
    const right = evaluate(operands[i + 1]!, row, run);
    const r = comparison(ops[i]!, left, right);
    if (r === false) return false;
    if (r === null) result = null;
    left = right;
  }
  return result;
}

function hasLabels(v: CypherValue, labels: readonly string[], at: Where, run: TableRun): boolean | null {
  if (v === null) return null;
  // On a relationship, `r:T` tests its type (TCK Graph5 [2]).
  if (v instanceof RelRef) return labels.every((label) => label === run.access.relType(v.id, at));
  if (!(v instanceof NodeRef))
    throw runtimeError('type_error', 'InvalidArgumentType', `a label test needs a node or relationship, not a ${typeName(v)}`, at);
  const have = labelsOf(run.access.node(v.id, at));
  return labels.every((label) => have.includes(label));
}

function caseOf(e: Extract<RowExpr, { k: 'case' }>, row: TableRow, run: TableRun): CypherValue {
  const subject = e.subject === null ? undefined : evaluate(e.subject, row, run);
  for (const [when, then] of e.alternatives) {
    const w = evaluate(when, row, run);
    const hit = subject === undefined ? w === true : equals(subject, w) === true;
    if (hit) return evaluate(then, row, run);
  }
  return e.otherwise === null ? null : evaluate(e.otherwise, row, run);
}

function listOrNull(v: CypherValue, at: Where, what: string): CypherValue[] | null {
  if (v === null) return null;
  if (!Array.isArray(v)) throw runtimeError('type_error', 'InvalidArgumentType', `${what} needs a list, not a ${typeName(v)}`, at);
  return v;
}

function quantify(e: Extract<RowExpr, { k: 'quantifier' }>, row: TableRow, run: TableRun): boolean | null {
  const list = listOrNull(evaluate(e.list, row, run), e.at, `${e.quantifier}()`);
  if (list === null) return null;
  let trues = 0;
  let nulls = 0;
  const inner = row.slice();
  for (const item of list) {
    inner[e.slot] = item;
    const v = logical(evaluate(e.predicate, inner, run), e.at);
    if (v === true) trues++;
    else if (v === null) nulls++;
  }
  const falses = list.length - trues - nulls;
  switch (e.quantifier) {
    case 'all':
      return falses > 0 ? false : nulls > 0 ? null : true;
    case 'any':
      return trues > 0 ? true : nulls > 0 ? null : false;
    case 'none':
      return trues > 0 ? false : nulls > 0 ? null : true;
    case 'single':
      return trues > 1 ? false : nulls > 0 ? null : trues === 1;
  }
}

function mapProjection(e: Extract<RowExpr, { k: 'map_projection' }>, row: TableRow, run: TableRun): CypherValue {
  const object = evaluate(e.object, row, run);
  if (object === null) return null;
  let props: { readonly [key: string]: CypherValue };
  if (object instanceof NodeRef) props = propertiesOf(run.access.node(object.id, e.at).props);
  else if (object instanceof RelRef) props = propertiesOf(run.access.rel(object.id, e.at).props);
  else if (isCypherMap(object)) props = object;
  else
    throw runtimeError(
      'type_error',
      'InvalidArgumentType',
      `a map projection needs a node, relationship or map, not a ${typeName(object)}`,
      e.at,
    );
  const out = newMap();
  for (const item of e.items) {
    if (item.kind === 'all') for (const key of Object.keys(props)) mapSet(out, key, props[key]!);
    else if (item.kind === 'property') mapSet(out, item.key, Object.hasOwn(props, item.key) ? props[item.key]! : null);
    else mapSet(out, item.key, evaluate(item.value, row, run));
  }
  return out;
}
