/**
 * Grouping, aggregation, fold and unfold (reference §5.6, §5.9, Q11).
 *
 * group and group_count key and order groups by the value's display string, as the
 * reference does: the i64 1, the f64 1.0 and the string "1" share a group, "10" sorts
 * before "9", and a missing value falls into the group of the string "null". The group
 * shows the first value seen.
 */
import { scalarText, type ScalarStyle } from '../core/scalar-text.js';
import { GraphError } from '../core/errors.js';
import type { Value, ValueObject } from '../core/value.js';
import { setOwn } from '../core/value.js';
import { compareStrings } from './compare.js';
import type { Exec, Executor } from './context.js';
import { encodeValue } from './encode.js';
import { resolveProperty } from './eval.js';
import type { RowFlow } from './flow.js';
import { NONE } from './row.js';

/** An f64 as Rust's Display prints it: shortest round-trip digits, never an exponent. */
export function floatDisplay(n: number): string {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return 'inf';
  if (n === -Infinity) return '-inf';
  if (Object.is(n, -0)) return '-0';
  const s = String(n);
  const e = s.indexOf('e');
  if (e < 0) return s;
  const neg = s.startsWith('-');
  const mantissa = s.slice(neg ? 1 : 0, e);
  const exp = Number(s.slice(e + 1));
  const dot = mantissa.indexOf('.');
  const digits = mantissa.replace('.', '');
  const point = (dot < 0 ? mantissa.length : dot) + exp;
  let out: string;
  if (point <= 0) out = `0.${'0'.repeat(-point)}${digits}`;
  else if (point >= digits.length) out = digits + '0'.repeat(point - digits.length);
  else out = `${digits.slice(0, point)}.${digits.slice(point)}`;
  return neg ? `-${out}` : out;
}

/** The display string groups are keyed and ordered by. */
export function displayString(v: Value | undefined): string {
  if (v === undefined || v === null) return 'null';
  return typeof v === 'object' ? encodeValue(v) : scalarText(v, DISPLAY_SCALARS);
}

/** Group keys: strings as they are, floats as floatDisplay writes them. */
const DISPLAY_SCALARS: ScalarStyle = { string: (s) => s, number: floatDisplay };

interface Group {
  readonly value: Value;
  count: number;
  readonly ids: bigint[];
}

function grouped(x: Exec, input: RowFlow, property: string, path: string): Group[] {
  const groups = new Map<string, Group>();
  for (const row of input.rows) {
    const v = resolveProperty(x, row, property);
    const key = displayString(v);
    let g = groups.get(key);
    if (g === undefined) {
      g = { value: v ?? null, count: 0, ids: [] };
      groups.set(key, g);
      if (groups.size % 65536 === 0) x.checkSize(groups.size, path);
    }
    g.count++;
    if (row.kind !== NONE) g.ids.push(BigInt(row.id));
  }
  return [...groups.entries()].sort((a, b) => compareStrings(a[0], b[0])).map(([, g]) => g);
}

export const group: Executor<'group'> = (node, x, ctx) => {
  const input = x.rows(node.input, ctx, node);
  const items = grouped(x, input, node.property, node.path).map((g) => {
    const obj: ValueObject = {};
    setOwn(obj, node.property, g.value);
    obj.count = BigInt(g.count);
    obj.ids = g.ids;
    return obj;
  });
  return { t: 'values', items };
};

export const groupCount: Executor<'group_count'> = (node, x, ctx) => {
  const input = x.rows(node.input, ctx, node);
  const items = grouped(x, input, node.property, node.path).map((g) => {
    const obj: ValueObject = {};
    setOwn(obj, node.property, g.value);
    obj.count = BigInt(g.count);
    return obj;
  });
  return { t: 'values', items };
};

/** What Rust's `str::parse::<f64>` accepts: no whitespace, no hex, inf/infinity/nan in any case. */
const NUMERIC_STRING = /^[+-]?(?:(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|inf|infinity|nan)$/i;

function parseNumeric(s: string): number | null {
  if (!NUMERIC_STRING.test(s)) return null;
  const body = s.replace(/^[+-]/, '').toLowerCase();
  const sign = s.startsWith('-') ? -1 : 1;
  if (body === 'inf' || body === 'infinity') return sign * Infinity;
  if (body === 'nan') return NaN;
  return Number(s);
}

function numericValue(v: Value | undefined): number | null {
  if (typeof v === 'bigint') return Number(v);
  if (typeof v === 'number') return v;
  if (typeof v === 'string') return parseNumeric(v);
  return null;
}

const FN_NAMES = { count: 'Count', sum: 'Sum', min: 'Min', max: 'Max', mean: 'Mean' } as const;

/** Always one object `{"<property>_<Fn>": f64}`; an empty input gives 0.0. */
export const aggregateBy: Executor<'aggregate_by'> = (node, x, ctx) => {
  const input = x.rows(node.input, ctx, node);
  let n = 0;
  let sum = 0;
  let min = Infinity;
  let max = -Infinity;
  for (const row of input.rows) {
    const v = numericValue(resolveProperty(x, row, node.property));
    if (v === null) continue;
    n++;
    sum += v;
    // As Rust's f64::min/max: a NaN never wins against a number.
    if (v < min) min = v;
    if (v > max) max = v;
  }
  let result: number;
  switch (node.function) {
    case 'count':
      result = n;
      break;
    case 'sum':
      result = sum;
      break;
    case 'min':
      result = n === 0 ? 0 : min;
      break;
    case 'max':
      result = n === 0 ? 0 : max;
      break;
    case 'mean':
      result = n === 0 ? 0 : sum / n;
      break;
  }
  const obj: ValueObject = {};
  setOwn(obj, `${node.property}_${FN_NAMES[node.function]}`, result);
  return { t: 'values', items: [obj] };
};

export const fold: Executor<'fold'> = (node, x, ctx) => {
  const input = x.rows(node.input, ctx, node);
  const rows = [];
  for (const row of input.rows) {
    rows.push(row);
    if (rows.length % 65536 === 0) x.checkSize(rows.length, node.path);
  }
  return { ...input, rows, folded: true };
};

export const unfold: Executor<'unfold'> = (node, x, ctx) => {
  const flow = x.run(node.input, ctx);
  if (flow.t !== 'rows') {
    throw new GraphError(
      'invalid_query',
      `${node.path}: "unfold" needs a stream or a folded stream, but its input yields ${flow.t === 'values' ? 'a list of values' : `a ${flow.t}`}`,
    );
  }
  return flow.folded ? { ...flow, folded: false } : flow;
};
