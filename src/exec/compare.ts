/**
 * Value equality and ordering (reference §4.4 and §5.4).
 * - equality: numbers by mathematical value across i64/f64 (1 == 1.0); other kinds must
 *   match in kind and value; null == null.
 * - comparison (gt/lt...): only number/number, date_time/date_time, string/string;
 *   anything else is incomparable (the predicate is false).
 * - total order (order_by): null < bool < number < date_time < string < bytes <
 *   i64_array < f64_array < f32_array < array < object.
 */
import { DateTime, type Value, isValueObject } from '../core/value.js';

/** Exact numeric order across i64 (bigint) and f64, without rounding an i64 through a double; NaN callers decide for themselves. */
export function numCompare(a: bigint | number, b: bigint | number): number {
  if (typeof a === typeof b) return a < b ? -1 : a > b ? 1 : 0;
  // Mixed i64 / f64: compare exactly, without rounding the i64 through a double.
  const [big, num, sign] = typeof a === 'bigint' ? [a, b as number, 1] : [b as bigint, a as number, -1];
  if (Number.isNaN(num)) return 0;
  if (num === Infinity) return -sign;
  if (num === -Infinity) return sign;
  const floor = BigInt(Math.floor(num));
  if (big < floor) return -sign;
  if (big > floor) return sign;
  return Number.isInteger(num) ? 0 : -sign;
}

export function valueEquals(a: Value, b: Value): boolean {
  if (a === b) return true;
  if (a === null || b === null) return false;
  const ta = typeof a;
  const tb = typeof b;
  if ((ta === 'bigint' || ta === 'number') && (tb === 'bigint' || tb === 'number')) {
    return numCompare(a as bigint | number, b as bigint | number) === 0 && !Number.isNaN(a) && !Number.isNaN(b);
  }
  if (ta !== 'object' || tb !== 'object') return false;
  if (a instanceof DateTime) return b instanceof DateTime && a.ms === b.ms;
  if (ArrayBuffer.isView(a) || Array.isArray(a)) {
    if (!(ArrayBuffer.isView(b) || Array.isArray(b))) return false;
    if (rank(a) !== rank(b)) return false;
    const x = a as ArrayLike<Value>;
    const y = b as ArrayLike<Value>;
    if (x.length !== y.length) return false;
    for (let i = 0; i < x.length; i++) if (!valueEquals(x[i] as Value, y[i] as Value)) return false;
    return true;
  }
  if (isValueObject(a) && isValueObject(b)) {
    const ka = Object.keys(a);
    if (ka.length !== Object.keys(b).length) return false;
    return ka.every((k) => Object.hasOwn(b, k) && valueEquals(a[k] as Value, b[k] as Value));
  }
  return false;
}

/** gt/gte/lt/lte semantics: a number, or null when the pair is incomparable. */
export function compareForPredicate(a: Value, b: Value): number | null {
  const ta = typeof a;
  const tb = typeof b;
  if ((ta === 'bigint' || ta === 'number') && (tb === 'bigint' || tb === 'number')) {
    if (Number.isNaN(a) || Number.isNaN(b)) return null;
    return numCompare(a as bigint | number, b as bigint | number);
  }
  if (ta === 'string' && tb === 'string') return compareStrings(a as string, b as string);
  if (a instanceof DateTime && b instanceof DateTime) return a.ms < b.ms ? -1 : a.ms > b.ms ? 1 : 0;
  return null;
}

/** Byte order of the UTF-8 encodings, which is code point order (not UTF-16 unit order). */
export function compareStrings(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i++) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (ca !== cb) {
      const surrogateA = ca >= 0xd800 && ca <= 0xdfff;
      const surrogateB = cb >= 0xd800 && cb <= 0xdfff;
      if (surrogateA === surrogateB) return ca < cb ? -1 : 1;
      return surrogateA ? 1 : -1;
    }
  }
  return a.length - b.length < 0 ? -1 : a.length === b.length ? 0 : 1;
}

function rank(v: Value): number {
  if (v === null) return 0;
  switch (typeof v) {
    case 'boolean':
      return 1;
    case 'bigint':
    case 'number':
      return 2;
    case 'string':
      return 4;
  }
  if (v instanceof DateTime) return 3;
  if (v instanceof Uint8Array) return 5;
  if (v instanceof BigInt64Array) return 6;
  if (v instanceof Float64Array) return 7;
  if (v instanceof Float32Array) return 8;
  if (Array.isArray(v)) return 9;
  return 10;
}

/** A total order over all values, for order_by. */
export function totalOrder(a: Value, b: Value): number {
  const ra = rank(a);
  const rb = rank(b);
  if (ra !== rb) return ra < rb ? -1 : 1;
  switch (ra) {
    case 0:
      return 0;
    case 1:
      return a === b ? 0 : a ? 1 : -1;
    case 2: {
      const an = Number.isNaN(a as number);
      const bn = Number.isNaN(b as number);
      if (an || bn) return an === bn ? 0 : an ? 1 : -1;
      return numCompare(a as bigint | number, b as bigint | number);
    }
    case 3:
      return Math.sign((a as DateTime).ms - (b as DateTime).ms);
    case 4:
      return compareStrings(a as string, b as string);
    case 10: {
      const ka = Object.keys(a as object).sort();
      const kb = Object.keys(b as object).sort();
      for (let i = 0; i < Math.min(ka.length, kb.length); i++) {
        const c =
          compareStrings(ka[i]!, kb[i]!) || totalOrder((a as Record<string, Value>)[ka[i]!]!, (b as Record<string, Value>)[kb[i]!]!);
        if (c !== 0) return c;
      }
      return Math.sign(ka.length - kb.length);
    }
    default: {
      const x = a as ArrayLike<Value>;
      const y = b as ArrayLike<Value>;
      for (let i = 0; i < Math.min(x.length, y.length); i++) {
        const c = totalOrder(x[i] as Value, y[i] as Value);
        if (c !== 0) return c;
      }
      return Math.sign(x.length - y.length);
    }
  }
}
