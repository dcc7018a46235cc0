/**
 * The scalar Cypher functions: one implementation per non-aggregate name of
 * plan/functions.ts (a test checks the two agree). Semantic analysis has already checked
 * the argument count.
 *
 * Conventions, from the TCK: a null argument gives null (except coalesce and exists); an
 * argument of a type the function does not take is type_error InvalidArgumentValue at
 * runtime (TCK Graph3 [9], Graph4 [6], TypeConversion1-4); a value of the right type but out
 * of range is argument_error NumberOutOfRange. Strings are sequences of Unicode code points,
 * as openCypher compares them, so size, substring, left, right and reverse count code points
 * and never split a surrogate pair.
 */
import {
  NodeRef,
  PathValue,
  RelRef,
  isCypherMap,
  mapSet,
  newMap,
  propertiesOf,
  typeName,
  type CypherValue,
} from '../../core/cypher-value.js';
import { I64_MAX, I64_MIN } from '../../core/value.js';
import { LIMITS } from '../../plan/limits.js';
import type { Where } from '../../plan/table.js';
import { labelsOf, runtimeError, type ElementAccess } from './env.js';
import { checkedInt, isNumber, toStringText } from './operators.js';

export interface FunctionDef {
  call(args: readonly CypherValue[], access: ElementAccess, at: Where): CypherValue;
}

type Call = FunctionDef['call'];

function invalid(fn: string, v: CypherValue, at: Where): Error {
  return runtimeError('type_error', 'InvalidArgumentValue', `${fn}() cannot take a ${typeName(v)}`, at);
}

function outOfRange(fn: string, what: string, at: Where): Error {
  return runtimeError('argument_error', 'NumberOutOfRange', `${fn}(): ${what}`, at);
}

/** A function of one argument that maps null to null. */
function unary(fn: string, body: (v: Exclude<CypherValue, null>, access: ElementAccess, at: Where) => CypherValue): FunctionDef {
  return { call: (args, access, at) => (args[0] === null ? null : body(args[0]!, access, at)) };
}

/** A function whose every argument is required to be non-null for a non-null result. */
function strict(body: Call): FunctionDef {
  return { call: (args, access, at) => (args.some((a) => a === null) ? null : body(args, access, at)) };
}

/** A math function of one number, giving a float. */
function math(fn: string, f: (x: number) => number): FunctionDef {
  return unary(fn, (v, _access, at) => f(numberArg(fn, v, at)));
}

function numberArg(fn: string, v: CypherValue, at: Where): number {
  if (!isNumber(v)) throw invalid(fn, v, at);
  return Number(v);
}

function intArg(fn: string, v: CypherValue, at: Where): bigint {
  if (typeof v !== 'bigint') throw invalid(fn, v, at);
  return v;
}

function stringArg(fn: string, v: CypherValue, at: Where): string {
  if (typeof v !== 'string') throw invalid(fn, v, at);
  return v;
}

/** A non-negative integer argument as a JS number (clamped: no string or list is that long anyway). */
function countArg(fn: string, v: CypherValue, what: string, at: Where): number {
  const n = intArg(fn, v, at);
  if (n < 0n) throw outOfRange(fn, `${what} must not be negative`, at);
  return n > BigInt(Number.MAX_SAFE_INTEGER) ? Number.MAX_SAFE_INTEGER : Number(n);
}

const codePoints = (s: string): string[] => Array.from(s);

// ---- conversion ----

const inI64 = (n: bigint): bigint | null => (n > I64_MAX || n < I64_MIN ? null : n);

/** A float truncated toward zero, or null when no 64-bit integer is that value (NaN, infinities, huge). */
function floatToInt(f: number): bigint | null {
  return Number.isFinite(f) ? inI64(BigInt(Math.trunc(f))) : null;
}

/** Java's decimal float syntax (what Double.parseDouble takes, less hex and type suffixes). */
const FLOAT_TEXT = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

function parseFloatText(s: string): number | null {
  const t = s.trim();
  if (FLOAT_TEXT.test(t)) return Number(t);
  if (t === 'NaN') return NaN;
  if (/^[+-]?Infinity$/.test(t)) return t.startsWith('-') ? -Infinity : Infinity;
  return null;
}

/** Each conversion gives undefined for a value of a type it does not take; the callers decide error or null. */
function toStringValue(v: Exclude<CypherValue, null>): CypherValue | undefined {
  return typeof v === 'object' ? undefined : toStringText(v);
}

function toIntegerValue(v: Exclude<CypherValue, null>): CypherValue | undefined {
  switch (typeof v) {
    case 'bigint':
      return v;
    case 'number':
      return floatToInt(v);
    case 'boolean':
      return v ? 1n : 0n;
    case 'string': {
      const t = v.trim();
      if (/^[+-]?\d+$/.test(t)) return inI64(BigInt(t));
      const f = parseFloatText(t);
      return f === null ? null : floatToInt(f);
    }
  }
  return undefined;
}

function toFloatValue(v: Exclude<CypherValue, null>): CypherValue | undefined {
  if (isNumber(v)) return Number(v);
  return typeof v === 'string' ? parseFloatText(v) : undefined;
}

/** Booleans, the strings 'true' and 'false' (any case), and integers (0 is false); floats are refused (TCK TypeConversion1 [5]). */
function toBooleanValue(v: Exclude<CypherValue, null>): CypherValue | undefined {
  switch (typeof v) {
    case 'boolean':
      return v;
    case 'bigint':
      return v !== 0n;
    case 'string': {
      const t = v.trim().toLowerCase();
      return t === 'true' ? true : t === 'false' ? false : null;
    }
  }
  return undefined;
}

type Conversion = (v: Exclude<CypherValue, null>) => CypherValue | undefined;

function converter(fn: string, convert: Conversion): FunctionDef {
  return unary(fn, (v, _access, at) => {
    const out = convert(v);
    if (out === undefined) throw invalid(fn, v, at);
    return out;
  });
}

function orNull(convert: Conversion): FunctionDef {
  return { call: (args) => (args[0] === null ? null : (convert(args[0]!) ?? null)) };
}

/** toXList(list): each item converted as toXOrNull converts it. */
function listConverter(fn: string, convert: Conversion): FunctionDef {
  return unary(fn, (v, _access, at) => {
    if (!Array.isArray(v)) throw invalid(fn, v, at);
    return v.map((item) => (item === null ? null : (convert(item) ?? null)));
  });
}

// ---- numbers ----

const ROUNDING_MODES = ['UP', 'DOWN', 'CEILING', 'FLOOR', 'HALF_UP', 'HALF_DOWN', 'HALF_EVEN'] as const;
type RoundingMode = (typeof ROUNDING_MODES)[number];

/**
 * x rounded to `precision` decimal places the way Java's BigDecimal rounds the shortest
 * decimal text of a double (which round(x, precision, mode) is defined by): on the decimal
 * digits, so round(2.675, 2) is 2.68 although the double lies just below 2.675.
 */
function roundDecimal(x: number, precision: number, mode: RoundingMode): number {
  if (!Number.isFinite(x) || x === 0) return x;
  const negative = x < 0;
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(Math.abs(x)))!;
  let digits = m[1]! + (m[2] ?? '');
  let point = m[1]!.length + Number(m[3] ?? 0);
  let keep = point + precision;
  if (keep >= digits.length) return x;
  if (keep < 0) {
    digits = '0'.repeat(-keep) + digits;
    point -= keep;
    keep = 0;
  }
  const kept = digits.slice(0, keep);
  const rest = digits.slice(keep);
  const restZero = /^0*$/.test(rest);
  const half = rest[0] === '5' && /^0*$/.test(rest.slice(1));
  const aboveHalf = rest[0]! > '5' || (rest[0] === '5' && !half);
  const lastOdd = kept.length > 0 && Number(kept[kept.length - 1]) % 2 === 1;
  const up: Record<RoundingMode, boolean> = {
    UP: !restZero,
    DOWN: false,
    CEILING: !restZero && !negative,
    FLOOR: !restZero && negative,
    HALF_UP: aboveHalf || half,
    HALF_DOWN: aboveHalf,
    HALF_EVEN: aboveHalf || (half && lastOdd),
  };
  const magnitude = BigInt(kept === '' ? '0' : kept) + (up[mode] ? 1n : 0n);
  const out = Number(`${magnitude}e${point - keep}`);
  // BigDecimal has no negative zero: -0.001 rounded to 2 places is 0.0.
  return negative && out !== 0 ? -out : out;
}

const round: FunctionDef = strict((args, _access, at) => {
  const x = numberArg('round', args[0]!, at);
  // One argument: Java's Math.round, half-way values toward positive infinity (round(-2.5) is -2.0).
  if (args.length === 1) return Number.isFinite(x) ? Math.round(x) + 0 : x;
  const precision = Number(checkedInt(intArg('round', args[1]!, at), at));
  const name = args.length === 3 ? stringArg('round', args[2]!, at).toUpperCase() : 'HALF_UP';
  if (!(ROUNDING_MODES as readonly string[]).includes(name))
    throw runtimeError('argument_error', 'InvalidArgumentValue', `round(): unknown rounding mode ${JSON.stringify(name)}`, at);
  return roundDecimal(x, Math.max(-400, Math.min(400, precision)), name as RoundingMode);
});

/** range(start, end[, step]): integers only (TCK List11 [5]: ArgumentError InvalidArgumentType); step 0 is NumberOutOfRange. */
const range: FunctionDef = strict((args, _access, at) => {
  const [start, end, step] = [args[0]!, args[1]!, args[2] ?? 1n].map((v) => {
    if (typeof v !== 'bigint')
      throw runtimeError('argument_error', 'InvalidArgumentType', `range() takes integers, not a ${typeName(v)}`, at);
    return v;
  }) as [bigint, bigint, bigint];
  if (step === 0n) throw outOfRange('range', 'the step must not be 0', at);
  const span = end - start;
  if (span !== 0n && span > 0n !== step > 0n) return [];
  const count = span / step + 1n;
  if (count > BigInt(LIMITS.maxRowsInMemory))
    throw runtimeError('resource_limit', 'ListTooLarge', `range() would make ${count} items (limit ${LIMITS.maxRowsInMemory})`, at);
  const out: bigint[] = [];
  for (let i = 0n, v = start; i < count; i++, v += step) out.push(v);
  return out;
});

// ---- strings ----

const substring: FunctionDef = strict((args, _access, at) => {
  const s = codePoints(stringArg('substring', args[0]!, at));
  const start = countArg('substring', args[1]!, 'the start', at);
  const length = args.length === 3 ? countArg('substring', args[2]!, 'the length', at) : s.length;
  return s.slice(start, start + length).join('');
});

function trimmer(fn: string, trim: (s: string) => string): FunctionDef {
  return unary(fn, (v, _access, at) => trim(stringArg(fn, v, at)));
}

// ---- the table ----

export const FUNCTIONS: { readonly [name: string]: FunctionDef } = {
  // elements and paths
  id: unary('id', (v, _access, at) => {
    if (v instanceof NodeRef || v instanceof RelRef) return BigInt(v.id);
    throw invalid('id', v, at);
  }),
  type: unary('type', (v, access, at) => {
    if (v instanceof RelRef) return access.relType(v.id, at);
    throw invalid('type', v, at);
  }),
  labels: unary('labels', (v, access, at) => {
    if (v instanceof NodeRef) return labelsOf(access.node(v.id, at));
    throw invalid('labels', v, at);
  }),
  properties: unary('properties', (v, access, at) => {
    if (v instanceof NodeRef) return propertiesOf(access.node(v.id, at).props);
    if (v instanceof RelRef) return propertiesOf(access.rel(v.id, at).props);
    if (isCypherMap(v)) {
      const copy = newMap();
      for (const k of Object.keys(v)) mapSet(copy, k, v[k]!);
      return copy;
    }
    throw invalid('properties', v, at);
  }),
  keys: unary('keys', (v, access, at) => {
    if (v instanceof NodeRef) return Object.keys(propertiesOf(access.node(v.id, at).props));
    if (v instanceof RelRef) return Object.keys(propertiesOf(access.rel(v.id, at).props));
    if (isCypherMap(v)) return Object.keys(v);
    throw invalid('keys', v, at);
  }),
  startnode: unary('startNode', (v, access, at) => {
    if (v instanceof RelRef) return new NodeRef(access.rel(v.id, at).from);
    throw invalid('startNode', v, at);
  }),
  endnode: unary('endNode', (v, access, at) => {
    if (v instanceof RelRef) return new NodeRef(access.rel(v.id, at).to);
    throw invalid('endNode', v, at);
  }),
  nodes: unary('nodes', (v, _access, at) => {
    if (v instanceof PathValue) return [...v.nodes];
    throw invalid('nodes', v, at);
  }),
  relationships: unary('relationships', (v, _access, at) => {
    if (v instanceof PathValue) return [...v.rels];
    throw invalid('relationships', v, at);
  }),
  length: unary('length', (v, _access, at) => {
    if (v instanceof PathValue) return BigInt(v.rels.length);
    throw invalid('length', v, at);
  }),
  exists: { call: (args) => args[0] !== null },
  // lists
  size: unary('size', (v, _access, at) => {
    if (Array.isArray(v)) return BigInt(v.length);
    if (typeof v === 'string') return BigInt(codePoints(v).length);
    throw invalid('size', v, at);
  }),
  head: unary('head', (v, _access, at) => {
    if (!Array.isArray(v)) throw invalid('head', v, at);
    return v.length === 0 ? null : v[0]!;
  }),
  last: unary('last', (v, _access, at) => {
    if (!Array.isArray(v)) throw invalid('last', v, at);
    return v.length === 0 ? null : v[v.length - 1]!;
  }),
  tail: unary('tail', (v, _access, at) => {
    if (!Array.isArray(v)) throw invalid('tail', v, at);
    return v.slice(1);
  }),
  range,
  reverse: unary('reverse', (v, _access, at) => {
    if (Array.isArray(v)) return [...v].reverse();
    if (typeof v === 'string') return codePoints(v).reverse().join('');
    throw invalid('reverse', v, at);
  }),
  coalesce: { call: (args) => args.find((a) => a !== null) ?? null },
  // conversion
  tostring: converter('toString', toStringValue),
  tointeger: converter('toInteger', toIntegerValue),
  tofloat: converter('toFloat', toFloatValue),
  toboolean: converter('toBoolean', toBooleanValue),
  tostringornull: orNull(toStringValue),
  tointegerornull: orNull(toIntegerValue),
  tofloatornull: orNull(toFloatValue),
  tobooleanornull: orNull(toBooleanValue),
  tobooleanlist: listConverter('toBooleanList', toBooleanValue),
  tointegerlist: listConverter('toIntegerList', toIntegerValue),
  tofloatlist: listConverter('toFloatList', toFloatValue),
  tostringlist: listConverter('toStringList', toStringValue),
  // strings
  substring,
  left: strict((args, _access, at) => {
    const s = codePoints(stringArg('left', args[0]!, at));
    return s.slice(0, countArg('left', args[1]!, 'the length', at)).join('');
  }),
  right: strict((args, _access, at) => {
    const s = codePoints(stringArg('right', args[0]!, at));
    const n = countArg('right', args[1]!, 'the length', at);
    return s.slice(Math.max(0, s.length - n)).join('');
  }),
  trim: trimmer('trim', (s) => s.trim()),
  ltrim: trimmer('lTrim', (s) => s.trimStart()),
  rtrim: trimmer('rTrim', (s) => s.trimEnd()),
  tolower: trimmer('toLower', (s) => s.toLowerCase()),
  toupper: trimmer('toUpper', (s) => s.toUpperCase()),
  replace: strict((args, _access, at) => {
    const [s, search, by] = args.map((a) => stringArg('replace', a, at)) as [string, string, string];
    // An empty search string matches between every two code points (and at both ends).
    if (search === '') return by + codePoints(s).join(by) + (s === '' ? '' : by);
    return s.split(search).join(by);
  }),
  split: strict((args, _access, at) => {
    const s = stringArg('split', args[0]!, at);
    const delimiter = stringArg('split', args[1]!, at);
    return delimiter === '' ? codePoints(s) : s.split(delimiter);
  }),
  // numbers
  abs: unary('abs', (v, _access, at) => {
    if (typeof v === 'bigint') return v < 0n ? checkedInt(-v, at) : v;
    return Math.abs(numberArg('abs', v, at));
  }),
  ceil: math('ceil', Math.ceil),
  floor: math('floor', Math.floor),
  round,
  sign: unary('sign', (v, _access, at) => {
    if (typeof v === 'bigint') return v > 0n ? 1n : v < 0n ? -1n : 0n;
    const x = numberArg('sign', v, at);
    // An integer, as openCypher defines it; NaN has no sign and gives 0 (as Java's (long) NaN).
    return x > 0 ? 1n : x < 0 ? -1n : 0n;
  }),
  rand: { call: () => Math.random() },
  sqrt: math('sqrt', Math.sqrt),
  exp: math('exp', Math.exp),
  log: math('log', Math.log),
  log10: math('log10', Math.log10),
  e: { call: () => Math.E },
  pi: { call: () => Math.PI },
  sin: math('sin', Math.sin),
  cos: math('cos', Math.cos),
  tan: math('tan', Math.tan),
  cot: math('cot', (x) => 1 / Math.tan(x)),
  asin: math('asin', Math.asin),
  acos: math('acos', Math.acos),
  atan: math('atan', Math.atan),
  atan2: strict((args, _access, at) => Math.atan2(numberArg('atan2', args[0]!, at), numberArg('atan2', args[1]!, at))),
  degrees: math('degrees', (x) => (x * 180) / Math.PI),
  radians: math('radians', (x) => (x * Math.PI) / 180),
  haversin: math('haversin', (x) => (1 - Math.cos(x)) / 2),
  isnan: unary('isNaN', (v, _access, at) => {
    if (typeof v === 'bigint') return false;
    return Number.isNaN(numberArg('isNaN', v, at));
  }),
};
