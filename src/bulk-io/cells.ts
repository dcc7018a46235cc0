/**
 * One cell to one value, by the column's type (header.ts), from text (CSV) or from a value
 * a JSON or Parquet reader made. A cell that does not fit its type throws a CellError with
 * the reason; the reader adds the file, line and column.
 *
 * Types: int long short byte -> i64 (each in its range); double -> f64; float -> f32 (a
 * double rounded to the nearest float, as Trellis keeps f32); boolean -> `true` or `false`
 * (any case); string and char -> text; date -> the date-time of that day's midnight UTC;
 * datetime and localdatetime -> a date-time (RFC 3339; without an offset, UTC); json -> a
 * tagged value of the v2 wire (`{"i64": 5}`, `{"f32_array": [..]}`, `"null"`...). Arrays
 * split their text at the array delimiter; float[] is a vector (f32 array), double[] an f64
 * array, int/long/short/byte[] an i64 array.
 */
import { parseJson } from '../core/json.js';
import { DateTime, F32_MAX, I64_MAX, I64_MIN, type Value } from '../core/value.js';
import { MAX_DATE_MS, parseRfc3339 } from '../core/datetime.js';
import { propertyValue } from '../wire/values.js';
import { clip } from '../core/clip.js';
import type { ScalarType, ValueType } from './header.js';

export class CellError extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'CellError';
  }
}

const INT_RANGE: Partial<Record<ScalarType, [bigint, bigint]>> = {
  int: [-(2n ** 31n), 2n ** 31n - 1n],
  short: [-(2n ** 15n), 2n ** 15n - 1n],
  byte: [-128n, 127n],
  long: [I64_MIN, I64_MAX],
};

export const isIntType = (t: ScalarType): boolean => t === 'int' || t === 'long' || t === 'short' || t === 'byte';

const INTEGER = /^[+-]?\d+$/;
const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;
const SPECIAL: Record<string, number> = {
  nan: NaN,
  '+nan': NaN,
  '-nan': NaN,
  infinity: Infinity,
  '+infinity': Infinity,
  inf: Infinity,
  '+inf': Infinity,
  '-infinity': -Infinity,
  '-inf': -Infinity,
};

const show = (text: string) => JSON.stringify(clip(text));

/** An integer of a type: a number within ±(2^53 - 1), else a bigint. */
export function parseInteger(text: string, type: ScalarType): number | bigint {
  const t = text.trim();
  if (!INTEGER.test(t)) throw new CellError(`${show(text)} is not an integer (type ${type})`);
  const [min, max] = INT_RANGE[type]!;
  if (t.length <= 15) {
    const n = Number(t);
    if (n < Number(min) || n > Number(max)) throw new CellError(`${t} is outside the range of ${type} (${min} to ${max})`);
    return n + 0;
  }
  const big = BigInt(t);
  if (big < min || big > max) throw new CellError(`${t} is outside the range of ${type} (${min} to ${max})`);
  return Number.isSafeInteger(Number(big)) ? Number(big) : big;
}

/** A double (NaN and ±Infinity by name, any case). */
export function parseDouble(text: string, type: ScalarType = 'double'): number {
  const t = text.trim();
  const special = SPECIAL[t.toLowerCase()];
  if (special !== undefined) return special;
  if (!DECIMAL.test(t)) throw new CellError(`${show(text)} is not a number (type ${type})`);
  return Number(t);
}

export function parseFloat32(text: string): number {
  const d = parseDouble(text, 'float');
  if (Number.isFinite(d) && Math.abs(d) > F32_MAX) throw new CellError(`${text.trim()} is outside the range of float (use double)`);
  return Math.fround(d);
}

function parseBoolean(text: string): boolean {
  const t = text.trim().toLowerCase();
  if (t === 'true') return true;
  if (t === 'false') return false;
  throw new CellError(`${show(text)} is not a boolean (true or false)`);
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;

function parseDate(text: string): DateTime {
  const t = text.trim();
  const m = DATE.exec(t);
  const ms = m === null ? NaN : Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]));
  if (m === null || Number.isNaN(ms) || new Date(ms).getUTCDate() !== Number(m[3])) {
    throw new CellError(`${show(text)} is not a date (YYYY-MM-DD)`);
  }
  return new DateTime(ms);
}

/** RFC 3339 date-times; without an offset (neo4j's local date-times) they are UTC. */
function parseDateTime(text: string, type: ScalarType): DateTime {
  let t = text.trim().replace(' ', 'T');
  if (/^\d{4}-\d{2}-\d{2}$/.test(t)) t += 'T00:00:00Z';
  else if (!/(?:[zZ]|[+-]\d{2}:\d{2})$/.test(t)) t += 'Z';
  const ms = parseRfc3339(t);
  if (ms === null || Math.abs(ms) > MAX_DATE_MS) {
    throw new CellError(`${show(text)} is not a date-time (type ${type}; RFC 3339, such as 2024-05-01T12:30:00Z)`);
  }
  return new DateTime(ms);
}

/** A json cell: a tagged property value of the v2 wire. */
export function parseTagged(text: string): Value {
  let json: unknown;
  try {
    json = parseJson(text);
  } catch (err) {
    throw new CellError(`${show(text)} is not JSON: ${err instanceof Error ? err.message : String(err)}`);
  }
  try {
    return propertyValue(json, 'value');
  } catch (err) {
    throw new CellError(`not a tagged value (such as {"i64": 5}): ${err instanceof Error ? err.message : String(err)}`);
  }
}

/** One scalar from text. */
export function scalarFromText(text: string, scalar: ScalarType): Value {
  switch (scalar) {
    case 'int':
    case 'long':
    case 'short':
    case 'byte': {
      const n = parseInteger(text, scalar);
      return typeof n === 'bigint' ? n : BigInt(n);
    }
    case 'double':
      return parseDouble(text);
    case 'float':
      return parseFloat32(text);
    case 'boolean':
      return parseBoolean(text);
    case 'string':
      return text;
    case 'char':
      if ([...text].length !== 1) throw new CellError(`${show(text)} is not one character (type char)`);
      return text;
    case 'date':
      return parseDate(text);
    case 'datetime':
    case 'localdatetime':
      return parseDateTime(text, scalar);
    case 'json':
      return parseTagged(text);
  }
}

/** An array cell's items made into the array kind Trellis keeps for the type. */
export function arrayOf(items: readonly Value[], scalar: ScalarType): Value {
  if (isIntType(scalar)) return BigInt64Array.from(items as bigint[]);
  if (scalar === 'double') return Float64Array.from(items as number[]);
  if (scalar === 'float') return Float32Array.from(items as number[]);
  return items as Value[];
}

/**
 * A cell's text as a value of `type`. `quoted`: the text was quoted in the file (an empty
 * quoted cell is an empty string, or an empty array).
 */
export function fromText(text: string, type: ValueType, arrayDelimiter: string): Value {
  if (!type.array) return scalarFromText(text, type.scalar);
  const items = text === '' ? [] : text.split(arrayDelimiter).map((item) => scalarFromText(item, type.scalar));
  return arrayOf(items, type.scalar);
}

const describe = (v: unknown): string => {
  if (v === null) return 'null';
  if (Array.isArray(v)) return 'an array';
  if (v instanceof Date) return 'a timestamp';
  if (typeof v === 'bigint') return `the integer ${v}`;
  if (typeof v === 'object') return 'an object';
  return `${typeof v} ${clip(JSON.stringify(v) ?? String(v))}`;
};

/** One scalar from a value a JSON or Parquet reader made (strings are read as text). */
export function scalarFromNative(v: unknown, scalar: ScalarType): Value {
  // A json member holds the tagged value itself, and the tagged null is the string "null".
  if (scalar === 'json' && v === 'null') return null;
  if (typeof v === 'string') return scalarFromText(v, scalar);
  switch (scalar) {
    case 'int':
    case 'long':
    case 'short':
    case 'byte': {
      if (typeof v === 'bigint' || (typeof v === 'number' && Number.isInteger(v))) {
        const n = parseInteger(String(v), scalar);
        return typeof n === 'bigint' ? n : BigInt(n);
      }
      break;
    }
    case 'double':
    case 'float':
      if (typeof v === 'number' || typeof v === 'bigint') {
        const n = Number(v);
        if (scalar === 'double') return n;
        if (Number.isFinite(n) && Math.abs(n) > F32_MAX) throw new CellError(`${n} is outside the range of float (use double)`);
        return Math.fround(n);
      }
      break;
    case 'boolean':
      if (typeof v === 'boolean') return v;
      break;
    case 'date':
    case 'datetime':
    case 'localdatetime':
      if (v instanceof Date && !Number.isNaN(v.getTime())) return new DateTime(v.getTime());
      if (typeof v === 'number' || typeof v === 'bigint') {
        const ms = Number(v);
        if (Number.isInteger(ms) && Math.abs(ms) <= MAX_DATE_MS) return new DateTime(ms);
      }
      break;
    case 'json':
      try {
        return propertyValue(v, 'value');
      } catch (err) {
        throw new CellError(`not a tagged value (such as {"i64": 5}): ${err instanceof Error ? err.message : String(err)}`);
      }
    default:
      break;
  }
  throw new CellError(`${describe(v)} is not a ${scalar}`);
}

/**
 * A value of `type` from a JSON or Parquet value; arrays from arrays (or typed arrays), or
 * from text split at the array delimiter (a Parquet export writes arrays as text cells).
 */
export function fromNative(v: unknown, type: ValueType, arrayDelimiter = ';'): Value {
  if (!type.array) return scalarFromNative(v, type.scalar);
  if (typeof v === 'string') return fromText(v, type, arrayDelimiter);
  const items = ArrayBuffer.isView(v) ? Array.from(v as unknown as ArrayLike<unknown>) : v;
  if (!Array.isArray(items)) throw new CellError(`${describe(v)} is not an array (type ${type.scalar}[])`);
  return arrayOf(
    items.map((item: unknown) => scalarFromNative(item, type.scalar)),
    type.scalar,
  );
}
