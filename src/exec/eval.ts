/**
 * Expression and predicate evaluation against a row (reference §4.3, §4.4), and property
 * name resolution (§6.2): $from/$to (and dotted paths through them) on edges, $id, the
 * virtual $distance/$score, $label, stored properties, then dotted paths into objects.
 */
import { GraphError } from '../core/errors.js';
import type { Expr, Predicate } from '../plan/expr.js';
import { DateTime, I64_MIN, isValueObject, type Value } from '../core/value.js';
import { compareForPredicate, valueEquals } from './compare.js';
import type { Exec } from './context.js';
import { EDGE, NODE, NONE, Row } from './row.js';
import { evalTraversal } from './traversal-expr.js';
import { castValue } from './cast.js';
import { clip } from '../core/clip.js';

/** A property of the row's element, or undefined when it is missing. */
export function resolveProperty(x: Exec, row: Row, name: string): Value | undefined {
  if (row.kind === NONE) return undefined;
  if (name.charCodeAt(0) === 36 /* $ */) {
    if (name === '$id') return BigInt(row.id);
    if (name === '$distance') return row.distance;
    if (name === '$score') return row.score;
    if (row.kind === EDGE && (name.startsWith('$from') || name.startsWith('$to'))) {
      const edge = x.edge(row);
      if (!edge) return undefined;
      const isFrom = name.startsWith('$from');
      const rest = name.slice(isFrom ? 5 : 3);
      const endpoint = isFrom ? edge.from : edge.to;
      if (rest === '') return BigInt(endpoint);
      if (rest.charCodeAt(0) === 46 /* . */) return resolveProperty(x, new Row(NODE, endpoint), rest.slice(1));
    }
  }
  const rec = x.record(row);
  if (!rec) return undefined;
  if (name === '$label') return labelValue(rec.label);
  const direct = rec.props[name];
  if (direct !== undefined || name.indexOf('.') < 0) return Object.hasOwn(rec.props, name) ? direct : undefined;
  let cur: Value | undefined = rec.props;
  for (const part of name.split('.')) {
    if (!isValueObject(cur) || !Object.hasOwn(cur, part)) return undefined;
    cur = cur[part];
  }
  return cur;
}

function numeric(v: Value, path: string, op: string): number {
  if (typeof v === 'number') return v;
  if (typeof v === 'bigint') return Number(v);
  throw new GraphError(
    'invalid_query',
    `${path}: "${op}" needs numbers, got ${v === null ? 'null' : typeof v === 'object' ? 'a non-numeric value' : typeof v}`,
  );
}

export function evalExpr(x: Exec, row: Row, e: Expr): Value {
  switch (e.e) {
    case 'property':
      return resolveProperty(x, row, e.name) ?? null;
    case 'constant':
      return e.value;
    case 'param':
      return x.param(e.name, e.path);
    case 'id':
      if (row.kind === NONE) throw new GraphError('invalid_query', `${e.path}: "id" is used where there is no current node or edge`);
      return BigInt(row.id);
    case 'timestamp':
      return BigInt(x.now);
    case 'date_time_now':
      return new DateTime(x.now);
    case 'add':
    case 'sub':
    case 'mul':
    case 'div': {
      const a = numeric(evalExpr(x, row, e.left), e.path, e.e);
      const b = numeric(evalExpr(x, row, e.right), e.path, e.e);
      // The result is always f64, as in the reference (4 + 1 is 5.0).
      return e.e === 'add' ? a + b : e.e === 'sub' ? a - b : e.e === 'mul' ? a * b : a / b;
    }
    case 'mod': {
      const a = evalExpr(x, row, e.left);
      const b = evalExpr(x, row, e.right);
      if (typeof a !== 'bigint' || typeof b !== 'bigint') throw new GraphError('invalid_query', `${e.path}: "mod" needs two i64 operands`);
      if (b === 0n) throw new GraphError('invalid_query', `${e.path}: "mod" by zero`);
      return a % b;
    }
    case 'neg': {
      const v = evalExpr(x, row, e.expr);
      if (typeof v === 'bigint') {
        if (v === I64_MIN) throw new GraphError('invalid_query', `${e.path}: "neg" of ${v} overflows i64`);
        return -v;
      }
      if (typeof v === 'number') return -v;
      throw new GraphError('invalid_query', `${e.path}: "neg" needs a number`);
    }
    case 'cast':
      return castValue(evalExpr(x, row, e.expr), e.to, row, e.path);
    case 'math':
      return mathValue(x, row, e);
    case 'case':
      for (const branch of e.whenThen) if (evalPredicate(x, row, branch.when)) return evalExpr(x, row, branch.then);
      return e.elseExpr ? evalExpr(x, row, e.elseExpr) : null;
    case 'traversal':
      return evalTraversal(x, row, e);
    case 'variable':
      return variableValue(x, e);
    case 'outer': {
      // Validation bounds the depth by the traversal expressions around it.
      const origin = x.origins[x.origins.length - e.depth];
      if (origin === undefined) throw new GraphError('invalid_query', `${e.path}: no traversal expression ${e.depth} level(s) out`);
      return resolveProperty(x, origin, e.name) ?? null;
    }
  }
}

/** What a `variable` expression reads: the variable's count or boolean, or its first item (or that item's property). */
export function variableValue(x: Exec, e: Extract<Expr, { e: 'variable' }>): Value {
  const flow = x.vars.get(e.name);
  if (flow === undefined) throw new GraphError('invalid_query', `${e.path}: variable "${clip(e.name)}" is not bound (yet) when this runs`);
  switch (flow.t) {
    case 'count':
      return e.property === null ? BigInt(flow.n) : null;
    case 'bool':
      return e.property === null ? flow.v : null;
    case 'values': {
      const first = flow.items[0];
      if (first === undefined) return null;
      if (e.property === null) return first;
      return isValueObject(first) && Object.hasOwn(first, e.property) ? first[e.property]! : null;
    }
    case 'rows':
      for (const row of flow.rows) {
        if (row.kind !== NODE && row.kind !== EDGE) continue;
        return e.property === null ? BigInt(row.id) : (resolveProperty(x, row, e.property) ?? null);
      }
      return null;
    case 'table':
      throw new GraphError('invalid_query', `${e.path}: variable "${clip(e.name)}" holds a Cypher table, not a value`);
  }
}

/** A math function's value: always a float (a domain error such as sqrt(-1) is NaN, which prints as null). */
function mathValue(x: Exec, row: Row, e: Extract<Expr, { e: 'math' }>): number {
  const arg = (i: number) => numeric(evalExpr(x, row, e.args[i]!), e.path, e.fn);
  const list = (): number[] => {
    const v = evalExpr(x, row, e.args[0]!);
    const items: readonly Value[] = Array.isArray(v) ? v : ArrayBuffer.isView(v) ? Array.from(v as ArrayLike<number>) : [v];
    return items.map((item) => numeric(item, e.path, e.fn));
  };
  switch (e.fn) {
    case 'pi':
      return Math.PI;
    case 'e':
      return Math.E;
    case 'pow':
      return Math.pow(arg(0), arg(1));
    case 'log':
      return Math.log(arg(0)) / Math.log(arg(1));
    case 'atan2':
      return Math.atan2(arg(0), arg(1));
    case 'min':
      return Math.min(arg(0), arg(1));
    case 'max':
      return Math.max(arg(0), arg(1));
    case 'ln':
      return Math.log(arg(0));
    case 'round': {
      // Half away from zero, as Rust's round (Math.round rounds -2.5 to -2).
      const v = arg(0);
      return Math.sign(v) * Math.round(Math.abs(v));
    }
    case 'sum':
      return list().reduce((a, b) => a + b, 0);
    case 'avg': {
      const items = list();
      return items.length === 0 ? NaN : items.reduce((a, b) => a + b, 0) / items.length;
    }
    case 'count': {
      const v = evalExpr(x, row, e.args[0]!);
      return Array.isArray(v) ? v.length : ArrayBuffer.isView(v) ? (v as ArrayLike<number>).length : v === null ? 0 : 1;
    }
    default:
      return Math[e.fn](arg(0));
  }
}

export function evalPredicate(x: Exec, row: Row, p: Predicate): boolean {
  switch (p.p) {
    case 'compare': {
      const a = evalExpr(x, row, p.left);
      const b = evalExpr(x, row, p.right);
      if (p.op === 'eq') return valueEquals(a, b);
      if (p.op === 'neq') return !valueEquals(a, b);
      const c = compareForPredicate(a, b);
      if (c === null) return false;
      return p.op === 'gt' ? c > 0 : p.op === 'gte' ? c >= 0 : p.op === 'lt' ? c < 0 : c <= 0;
    }
    case 'between': {
      const v = evalExpr(x, row, p.value);
      const lo = compareForPredicate(v, evalExpr(x, row, p.min));
      const hi = compareForPredicate(v, evalExpr(x, row, p.max));
      return lo !== null && hi !== null && lo >= 0 && hi <= 0;
    }
    case 'has_key':
      return p.property === '$id' ? row.kind !== NONE : resolveProperty(x, row, p.property) !== undefined;
    case 'is_null':
      return (resolveProperty(x, row, p.property) ?? null) === null;
    case 'is_not_null':
      return (resolveProperty(x, row, p.property) ?? null) !== null;
    case 'starts_with':
    case 'ends_with':
    case 'contains': {
      const v = evalExpr(x, row, p.value);
      const arg = evalExpr(x, row, p.arg);
      if (typeof v !== 'string' || typeof arg !== 'string') return false;
      return p.p === 'starts_with' ? v.startsWith(arg) : p.p === 'ends_with' ? v.endsWith(arg) : v.includes(arg);
    }
    case 'is_in': {
      const v = evalExpr(x, row, p.value);
      const list = evalExpr(x, row, p.values);
      if (Array.isArray(list) || (ArrayBuffer.isView(list) && !(list instanceof Uint8Array))) {
        const items = list as ArrayLike<Value>;
        for (let i = 0; i < items.length; i++) if (valueEquals(v, items[i] as Value)) return true;
        return false;
      }
      return valueEquals(v, list);
    }
    case 'and':
      return p.predicates.every((q) => evalPredicate(x, row, q));
    case 'or':
      return p.predicates.some((q) => evalPredicate(x, row, q));
    case 'not':
      return !evalPredicate(x, row, p.predicate);
  }
}

/** A stored label as /v2/query shows it: '' is a node created by Cypher without a label (D22), shown as null. */
export function labelValue(label: string): Value {
  return label === '' ? null : label;
}
