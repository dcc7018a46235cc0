/**
 * The value semantics of openCypher 9's operators, as the TCK tests them and as
 * CIP2016-06-14 defines the four notions of sameness and order:
 *
 * - equality (`=`, `<>`, `IN`): three-valued; null when an operand is or contains a null
 *   that decides the answer; 1 = 1.0; NaN equals nothing.
 * - comparability (`<`, `<=`, `>`, `>=`): only within a type (integers and floats mix);
 *   null across types; every comparison with NaN is false.
 * - orderability (ORDER BY, min, max): a total order across all types.
 * - equivalence (DISTINCT, grouping, UNION): equality where null is null and NaN is NaN;
 *   aligned with orderability (equivalent exactly when orderValues gives 0).
 *
 * Integers are exact (bigint) and compared with floats exactly, not through a rounding
 * conversion, so 2^53 + 1 <> 2^53 as a float.
 */
import { isScalar, nonFiniteName, scalarText, type Scalar, type ScalarStyle } from '../../core/scalar-text.js';
import {
  NodeRef,
  PathValue,
  RelRef,
  fromStored,
  isCypherMap,
  typeName,
  type CypherMap,
  type CypherValue,
} from '../../core/cypher-value.js';
import { I64_MAX, I64_MIN } from '../../core/value.js';
import { floatText } from '../../core/json-stringify.js';
import type { ArithmeticOp, ComparisonOp, StringOp, Where } from '../../plan/table.js';
import { compareStrings, numCompare } from '../compare.js';
import { runtimeError, type ElementAccess } from './env.js';

type Num = bigint | number;

export function isNumber(v: CypherValue): v is Num {
  return typeof v === 'bigint' || typeof v === 'number';
}

/** A type_error InvalidArgumentType: the operand kind an operator does not take (TCK's detail for operators). */
export function operandError(what: string, v: CypherValue, at: Where): Error {
  return runtimeError('type_error', 'InvalidArgumentType', `${what} cannot take a ${typeName(v)}`, at);
}

// ---- equality ----

/** Cypher `=`: true, false, or null when a null (at any depth) leaves the answer unknown. */
export function equals(a: CypherValue, b: CypherValue): boolean | null {
  if (a === null || b === null) return null;
  if (isNumber(a) || isNumber(b)) {
    if (!isNumber(a) || !isNumber(b)) return false;
    if (Number.isNaN(a) || Number.isNaN(b)) return false;
    return numCompare(a, b) === 0;
  }
  if (typeof a !== 'object' || typeof b !== 'object') return a === b;
  if (Array.isArray(a)) return Array.isArray(b) ? listEquals(a, b) : false;
  if (a instanceof NodeRef) return b instanceof NodeRef && a.id === b.id;
  if (a instanceof RelRef) return b instanceof RelRef && a.id === b.id;
  if (a instanceof PathValue) return b instanceof PathValue && listEquals(pathElements(a), pathElements(b));
  return isCypherMap(b) ? mapEquals(a, b) : false;
}

/** Sizes must agree, then the three-valued AND of the pairs: one false decides over nulls. */
function listEquals(a: readonly CypherValue[], b: readonly CypherValue[]): boolean | null {
  if (a.length !== b.length) return false;
  let unknown = false;
  for (let i = 0; i < a.length; i++) {
    const eq = equals(a[i]!, b[i]!);
    if (eq === false) return false;
    if (eq === null) unknown = true;
  }
  return unknown ? null : true;
}

/** The same keys (null-valued keys count), then the three-valued AND of the values. */
function mapEquals(a: CypherMap, b: CypherMap): boolean | null {
  const keys = Object.keys(a);
  if (keys.length !== Object.keys(b).length) return false;
  for (const k of keys) if (!Object.hasOwn(b, k)) return false;
  let unknown = false;
  for (const k of keys) {
    const eq = equals(a[k]!, b[k]!);
    if (eq === false) return false;
    if (eq === null) unknown = true;
  }
  return unknown ? null : true;
}

/** A path as the list of its alternating nodes and relationships (how paths compare). */
function pathElements(p: PathValue): CypherValue[] {
  const out: CypherValue[] = [p.nodes[0]!];
  for (let i = 0; i < p.rels.length; i++) out.push(p.rels[i]!, p.nodes[i + 1]!);
  return out;
}

// ---- comparability ----

/**
 * The order of two values for `<`, `<=`, `>`, `>=`: negative, 0 or positive; null when they
 * are incomparable (a null, different types other than two numbers); NaN when a NaN is
 * compared with a number, so that every one of the four operators is false (TCK
 * Comparison2 [5]). Lists compare lexicographically: the first pair that is not equal
 * decides, so [1, 2] < [3, null] is true but [1, 2] < [1, null] is null.
 */
export function compareValues(a: CypherValue, b: CypherValue): number | null {
  if (a === null || b === null) return null;
  if (isNumber(a) && isNumber(b)) return Number.isNaN(a) || Number.isNaN(b) ? NaN : numCompare(a, b);
  if (typeof a === 'string' && typeof b === 'string') return compareStrings(a, b);
  if (typeof a === 'boolean' && typeof b === 'boolean') return a === b ? 0 : a ? 1 : -1;
  if (Array.isArray(a) && Array.isArray(b)) return compareLists(a, b);
  // Nodes and relationships compare by identity, paths as their element lists (CIP2016-06-14).
  if (a instanceof NodeRef && b instanceof NodeRef) return a.id - b.id;
  if (a instanceof RelRef && b instanceof RelRef) return a.id - b.id;
  if (a instanceof PathValue && b instanceof PathValue) return compareLists(pathElements(a), pathElements(b));
  if (isCypherMap(a) && isCypherMap(b)) return compareMaps(a, b);
  return null;
}

function compareLists(a: readonly CypherValue[], b: readonly CypherValue[]): number | null {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = compareValues(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

/**
 * The CIP leaves the order of maps to implementations: here their sorted key lists first,
 * then the values key by key. A map holding a null is incomparable (as the CIP requires).
 */
function compareMaps(a: CypherMap, b: CypherMap): number | null {
  for (const m of [a, b]) for (const k of Object.keys(m)) if (m[k] === null) return null;
  const ka = sortedKeys(a);
  const kb = sortedKeys(b);
  const byKeys = compareLists(ka, kb);
  if (byKeys !== 0) return byKeys;
  return compareLists(
    ka.map((k) => a[k]!),
    kb.map((k) => b[k]!),
  );
}

function sortedKeys(m: CypherMap): string[] {
  return Object.keys(m).sort(compareStrings);
}

/** A comparison operator's three-valued result. */
export function comparison(op: ComparisonOp, a: CypherValue, b: CypherValue): boolean | null {
  if (op === '=' || op === '<>') {
    const eq = equals(a, b);
    return eq === null ? null : op === '=' ? eq : !eq;
  }
  const c = compareValues(a, b);
  if (c === null) return null;
  switch (op) {
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    case '>=':
      return c >= 0;
  }
}

// ---- orderability and equivalence ----

/** The global sort order of types, ascending (CIP2016-06-14; TCK ReturnOrderBy1 [11]). */
function typeRank(v: CypherValue): number {
  if (v === null) return 8;
  switch (typeof v) {
    case 'string':
      return 5;
    case 'boolean':
      return 6;
    case 'bigint':
    case 'number':
      return 7;
  }
  if (Array.isArray(v)) return 3;
  if (v instanceof NodeRef) return 1;
  if (v instanceof RelRef) return 2;
  if (v instanceof PathValue) return 4;
  return 0;
}

/**
 * The total order of ORDER BY, min and max: maps < nodes < relationships < lists < paths <
 * strings < booleans < numbers < null; NaN after every other number; containers order their
 * items by this same order. 0 exactly when the values are equivalent (groupKey agrees).
 */
export function orderValues(a: CypherValue, b: CypherValue): number {
  const ra = typeRank(a);
  const rb = typeRank(b);
  if (ra !== rb) return ra - rb;
  switch (ra) {
    case 8:
      return 0;
    case 7: {
      const na = Number.isNaN(a);
      const nb = Number.isNaN(b);
      if (na || nb) return na && nb ? 0 : na ? 1 : -1;
      return numCompare(a as Num, b as Num);
    }
    case 6:
    case 5:
      return compareValues(a, b)!;
    case 3:
      return orderLists(a as CypherValue[], b as CypherValue[]);
    case 4:
      return orderLists(pathElements(a as PathValue), pathElements(b as PathValue));
    case 1:
    case 2:
      return (a as NodeRef).id - (b as NodeRef).id;
    default: {
      const ka = sortedKeys(a as CypherMap);
      const kb = sortedKeys(b as CypherMap);
      return (
        orderLists(ka, kb) ||
        orderLists(
          ka.map((k) => (a as CypherMap)[k]!),
          kb.map((k) => (b as CypherMap)[k]!),
        )
      );
    }
  }
}

function orderLists(a: readonly CypherValue[], b: readonly CypherValue[]): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const c = orderValues(a[i]!, b[i]!);
    if (c !== 0) return c;
  }
  return a.length - b.length;
}

/**
 * A string that two values share exactly when they are equivalent (DISTINCT, grouping keys,
 * UNION, collect(DISTINCT)): null with null, NaN with NaN, 1 with 1.0 (equality holds, so
 * equivalence does: CIP2016-06-14), nodes and relationships by id, containers item by item.
 * Strings are JSON-quoted so that nested keys cannot run into each other.
 */
export function groupKey(v: CypherValue): string {
  if (v === null) return 'N';
  switch (typeof v) {
    case 'boolean':
      return v ? 'T' : 'F';
    case 'bigint':
      return `I${v}`;
    case 'number':
      // A float equal to an integer shares the integer's key (-0.0 included, as 0).
      if (Number.isInteger(v)) return `I${BigInt(v)}`;
      return Number.isNaN(v) ? 'NaN' : `D${v}`;
    case 'string':
      return JSON.stringify(v);
  }
  if (Array.isArray(v)) return `[${v.map(groupKey).join(',')}]`;
  if (v instanceof NodeRef) return `n${v.id}`;
  if (v instanceof RelRef) return `r${v.id}`;
  if (v instanceof PathValue) return `p[${pathElements(v).map(groupKey).join(',')}]`;
  return `{${sortedKeys(v)
    .map((k) => `${JSON.stringify(k)}:${groupKey(v[k]!)}`)
    .join(',')}}`;
}

// ---- arithmetic ----

function overflow(at: Where): Error {
  return runtimeError('arithmetic_error', 'IntegerOverflow', 'the result does not fit a 64-bit integer', at);
}

/** An integer result, or arithmetic_error IntegerOverflow outside the 64-bit range. */
export function checkedInt(n: bigint, at: Where): bigint {
  if (n > I64_MAX || n < I64_MIN) throw overflow(at);
  return n;
}

/**
 * `+ - * / % ^`. Integer with integer stays an integer (checked for overflow; `/` and `%`
 * truncate toward zero; a zero divisor is arithmetic_error DivisionByZero); any float makes
 * the result a float (IEEE: x / 0.0 is infinite or NaN); `^` is always a float. `+` also
 * concatenates (CIP2017-05-18): a list with a list or an item (TCK List4), or a string with
 * a string or another scalar, which is converted as toString() does. A null operand gives
 * null; any other combination is type_error InvalidArgumentType.
 */
export function arithmetic(op: ArithmeticOp, a: CypherValue, b: CypherValue, at: Where): CypherValue {
  if (a === null || b === null) return null;
  if (op === '+') {
    if (Array.isArray(a)) return Array.isArray(b) ? [...a, ...b] : [...a, b];
    if (Array.isArray(b)) return [a, ...b];
    if ((typeof a === 'string' || typeof b === 'string') && isScalar(a) && isScalar(b)) return toStringText(a) + toStringText(b);
  }
  if (!isNumber(a) || !isNumber(b)) {
    // Name the operand that made the combination invalid: for 'x' + {}, the map.
    const culprit = isNumber(a) || (op === '+' && typeof a === 'string') ? b : a;
    throw operandError(`'${op}'`, culprit, at);
  }
  if (op === '^') return Math.pow(Number(a), Number(b));
  if (typeof a === 'bigint' && typeof b === 'bigint') return intArithmetic(op, a, b, at);
  const x = Number(a);
  const y = Number(b);
  switch (op) {
    case '+':
      return x + y;
    case '-':
      return x - y;
    case '*':
      return x * y;
    case '/':
      return x / y;
    case '%':
      return x % y;
  }
}

function intArithmetic(op: Exclude<ArithmeticOp, '^'>, a: bigint, b: bigint, at: Where): bigint {
  switch (op) {
    case '+':
      return checkedInt(a + b, at);
    case '-':
      return checkedInt(a - b, at);
    case '*':
      return checkedInt(a * b, at);
    case '/':
    case '%':
      if (b === 0n) throw runtimeError('arithmetic_error', 'DivisionByZero', 'division of an integer by zero', at);
      return op === '/' ? checkedInt(a / b, at) : a % b;
  }
}

/** Scalars as toString() writes them: strings as they are, floats keep a fraction (`3.0`), non-finite ones are named. */
const TO_STRING: ScalarStyle = { string: (s) => s, number: (n) => (Number.isFinite(n) ? floatText(n) : nonFiniteName(n)) };

/** A scalar as Cypher's toString() writes it. */
export function toStringText(v: Scalar): string {
  return scalarText(v, TO_STRING);
}

/** Unary minus: integers checked for overflow (-(-2^63) does not fit). */
export function negate(v: CypherValue, at: Where): CypherValue {
  if (v === null) return null;
  if (typeof v === 'bigint') return checkedInt(-v, at);
  if (typeof v === 'number') return -v;
  throw operandError("unary '-'", v, at);
}

/** Unary plus: the operand itself, when it is a number. */
export function checkNumber(v: CypherValue, at: Where): CypherValue {
  if (v === null || isNumber(v)) return v;
  throw operandError("unary '+'", v, at);
}

// ---- strings, lists, booleans ----

/**
 * STARTS WITH, ENDS WITH, CONTAINS: null unless both operands are strings (TCK String8-10
 * [8]: every non-string pairing is null, not an error). `=~` matches the whole string with
 * a Java-style pattern; a non-string operand gives null too.
 */
export function stringOp(op: StringOp, a: CypherValue, b: CypherValue, at: Where): boolean | null {
  if (typeof a !== 'string' || typeof b !== 'string') return null;
  switch (op) {
    case 'startsWith':
      return a.startsWith(b);
    case 'endsWith':
      return a.endsWith(b);
    case 'contains':
      return a.includes(b);
    case 'regex':
      return compileRegex(b, at).test(a);
  }
}

const regexCache = new Map<string, RegExp>();
const REGEX_CACHE_SIZE = 256;

/**
 * A Java regular expression as a JS RegExp anchored at both ends. Leading inline flags
 * (`(?i)`, `(?s)`, `(?m)`), which Cypher users write often and JS does not parse, become
 * RegExp flags. Unicode mode (code points, as Java matches) is used when the pattern
 * allows it; Java accepts escapes that unicode mode rejects (`\-` outside a class), so
 * such a pattern falls back to plain mode.
 */
function compileRegex(pattern: string, at: Where): RegExp {
  const cached = regexCache.get(pattern);
  if (cached !== undefined) return cached;
  let source = pattern;
  let flags = '';
  const inline = /^\(\?([a-zA-Z]+)\)/.exec(source);
  if (inline !== null && /^[ims]+$/.test(inline[1]!)) {
    flags = [...new Set(inline[1]!)].join('');
    source = source.slice(inline[0].length);
  }
  const anchored = `^(?:${source})$`;
  let re: RegExp;
  try {
    re = new RegExp(anchored, `${flags}u`);
  } catch {
    try {
      re = new RegExp(anchored, flags);
    } catch (err) {
      throw runtimeError(
        'argument_error',
        'InvalidArgumentValue',
        `invalid regular expression ${JSON.stringify(pattern)}: ${String(err)}`,
        at,
      );
    }
  }
  if (regexCache.size >= REGEX_CACHE_SIZE) regexCache.clear();
  regexCache.set(pattern, re);
  return re;
}

/** `x IN list`: true if an item equals x; otherwise null if some comparison was unknown, else false. */
export function inList(v: CypherValue, list: CypherValue, at: Where): boolean | null {
  if (list === null) return null;
  if (!Array.isArray(list)) throw operandError("the right side of 'IN'", list, at);
  let unknown = false;
  for (const item of list) {
    const eq = equals(v, item);
    if (eq === true) return true;
    if (eq === null) unknown = true;
  }
  return unknown ? null : false;
}

/** An operand of AND, OR, XOR, NOT or a predicate: a boolean or null (TCK Boolean1-4: InvalidArgumentType). */
export function logical(v: CypherValue, at: Where): boolean | null {
  if (v === null || typeof v === 'boolean') return v;
  throw operandError('a boolean operator', v, at);
}

// ---- property, index and slice access ----

/** A stored property of a node or relationship; null when absent ('$' properties are internal). */
function elementProperty(el: NodeRef | RelRef, key: string, at: Where, access: ElementAccess): CypherValue {
  const props = el instanceof NodeRef ? access.node(el.id, at).props : access.rel(el.id, at).props;
  if (key.startsWith('$') || !Object.hasOwn(props, key)) return null;
  return fromStored(props[key]!);
}

/** `x.key`: of a map (missing key: null), a node or relationship (missing: null), or null. */
export function propertyOf(object: CypherValue, key: string, at: Where, access: ElementAccess): CypherValue {
  if (object === null) return null;
  if (object instanceof NodeRef || object instanceof RelRef) return elementProperty(object, key, at, access);
  if (isCypherMap(object)) return Object.hasOwn(object, key) ? object[key]! : null;
  throw operandError('property access', object, at);
}

/**
 * `x[i]`: a list by integer index (negative counts from the end; out of range is null), a
 * map, node or relationship by string key (any other key: MapElementAccessByNonString,
 * TCK Map2 [6-7]). A null container or index gives null; indexing anything else is
 * type_error InvalidArgumentType (TCK List1 [6], Map2 [8]).
 */
export function indexValue(object: CypherValue, index: CypherValue, at: Where, access: ElementAccess): CypherValue {
  if (object === null) return null;
  if (Array.isArray(object)) {
    if (index === null) return null;
    if (typeof index !== 'bigint') throw operandError('a list index', index, at);
    const i = index < 0n ? BigInt(object.length) + index : index;
    return i >= 0n && i < BigInt(object.length) ? object[Number(i)]! : null;
  }
  const element = object instanceof NodeRef || object instanceof RelRef;
  if (!element && !isCypherMap(object)) throw operandError('indexing', object, at);
  if (index === null) return null;
  if (typeof index !== 'string')
    throw runtimeError('type_error', 'MapElementAccessByNonString', `a map is indexed by a string, not a ${typeName(index)}`, at);
  if (element) return elementProperty(object, index, at, access);
  return Object.hasOwn(object, index) ? object[index]! : null;
}

/**
 * `list[from..to]`: `undefined` is an omitted bound (start or end of the list); a null
 * bound or list gives null (TCK List2 [9]). Negative bounds count from the end; bounds are
 * clamped to the list, and from >= to is the empty list.
 */
export function sliceList(list: CypherValue, from: CypherValue | undefined, to: CypherValue | undefined, at: Where): CypherValue {
  if (list === null || from === null || to === null) return null;
  if (!Array.isArray(list)) throw operandError('slicing', list, at);
  const n = BigInt(list.length);
  const bound = (b: CypherValue | undefined, fallback: bigint): number => {
    if (b === undefined) return Number(fallback);
    if (typeof b !== 'bigint') throw operandError('a slice bound', b, at);
    const i = b < 0n ? n + b : b;
    return Number(i < 0n ? 0n : i > n ? n : i);
  };
  const start = bound(from, 0n);
  const end = bound(to, n);
  return start >= end ? [] : list.slice(start, end);
}
