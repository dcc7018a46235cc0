/**
 * Values on the wire: tagged literals in the operation tree (reference §4.1), untagged
 * parameter values (§2.2) and typed parameters (`parameter_types`, contract and D6/D7).
 */
import { DateTime, F32_MAX, I64_MAX, I64_MIN, setOwn, type Value, type ValueObject } from '../core/value.js';
import { isObject } from '../core/json.js';
import { MAX_DATE_MS, parseRfc3339 } from '../core/datetime.js';
import { component, described, describe, fail, tagged, taggedSchema, type Field, type JsonSchema } from './schema.js';
import { rowObject, tableOf, type RowTable } from '../core/row-table.js';
import { clip } from '../core/clip.js';

const inI64 = (v: bigint) => v <= I64_MAX && v >= I64_MIN;
const outsideI64 = (v: bigint) => `${clip(String(v))} is outside the i64 range`;
const NOT_FINITE = 'numbers must be finite';
const PROTO_KEY = 'an object key cannot be "__proto__"';

function i64(json: unknown, path: string): bigint {
  if (typeof json !== 'bigint') return fail(path, `expected an integer (i64), got ${describe(json)}`);
  if (!inI64(json)) return fail(path, outsideI64(json));
  return json;
}

function f64(json: unknown, path: string): number {
  const n = typeof json === 'bigint' ? Number(json) : json;
  if (typeof n !== 'number') return fail(path, `expected a number, got ${describe(json)}`);
  if (!Number.isFinite(n)) return fail(path, NOT_FINITE);
  return n;
}

function f32(json: unknown, path: string): number {
  const n = f64(json, path);
  if (Math.abs(n) > F32_MAX) return fail(path, `${n} is outside the f32 range`);
  return Math.fround(n);
}

function arrayOf<T>(json: unknown, path: string, item: (v: unknown, p: string) => T): T[] {
  if (!Array.isArray(json)) return fail(path, `expected an array, got ${describe(json)}`);
  return json.map((v, i) => item(v, `${path}[${i}]`));
}

/**
 * A numeric array into a typed array. A vector of 768 floats is the common case: each
 * plain number in range is stored as it is (a Float32Array rounds as Math.fround), and an
 * element's path is made only when `item` must convert (an integer token) or refuse it.
 */
function numericArray<A extends Float32Array | Float64Array>(
  json: unknown,
  path: string,
  make: (length: number) => A,
  limit: number,
  item: (v: unknown, p: string) => number,
): A {
  if (!Array.isArray(json)) return fail(path, `expected an array, got ${describe(json)}`);
  const out = make(json.length);
  for (let i = 0; i < json.length; i++) {
    const v: unknown = json[i];
    out[i] = typeof v === 'number' && Math.abs(v) <= limit ? v : item(v, `${path}[${i}]`);
  }
  return out;
}

function dateTimeMillis(json: unknown, path: string): DateTime {
  const ms = i64(json, path);
  if (ms > BigInt(MAX_DATE_MS) || ms < -BigInt(MAX_DATE_MS))
    return fail(path, `date_time ${ms} ms is outside the supported range (±8.64e15 ms)`);
  return new DateTime(Number(ms));
}

const I64: JsonSchema = { type: 'integer', description: 'i64' };
const F64: JsonSchema = { type: 'number', description: 'f64: finite' };
const F32: JsonSchema = { type: 'number', description: 'f32: finite, within the f32 range' };
const PROPERTY_VALUE = component('PropertyValue', () =>
  taggedSchema(['null'], {
    bool: { type: 'boolean' },
    i64: I64,
    f64: F64,
    f32: F32,
    date_time: { type: 'integer', description: 'milliseconds since 1970-01-01T00:00:00Z, within ±8.64e15' },
    string: { type: 'string' },
    bytes: { type: 'array', items: { type: 'integer', minimum: 0, maximum: 255 } },
    i64_array: { type: 'array', items: I64 },
    f64_array: { type: 'array', items: F64 },
    f32_array: { type: 'array', items: F32 },
    string_array: { type: 'array', items: { type: 'string' } },
    array: { type: 'array', items: PROPERTY_VALUE },
    object: { type: 'object', additionalProperties: PROPERTY_VALUE },
  }),
);

/** A tagged PropertyValue literal: `"null"`, `{"i64": 5}`, `{"string": "x"}`, ... */
export const propertyValue: Field<Value> = described((json, path) => {
  const { tag, body, bodyPath } = tagged(json, path, 'a property value');
  switch (tag) {
    case 'null':
      return body === undefined ? null : fail(path, '"null" is a bare string, not an object key');
    case 'bool':
      return typeof body === 'boolean' ? body : fail(bodyPath, `expected true or false, got ${describe(body)}`);
    case 'i64':
      return i64(body, bodyPath);
    case 'f64':
      return f64(body, bodyPath);
    case 'f32':
      return f32(body, bodyPath);
    case 'date_time':
      return dateTimeMillis(body, bodyPath);
    case 'string':
      return typeof body === 'string' ? body : fail(bodyPath, `expected a string, got ${describe(body)}`);
    case 'bytes':
      return Uint8Array.from(
        arrayOf(body, bodyPath, (v, p) =>
          typeof v === 'bigint' && v >= 0n && v <= 255n ? Number(v) : fail(p, `expected a byte 0-255, got ${describe(v)}`),
        ),
      );
    case 'i64_array':
      return BigInt64Array.from(arrayOf(body, bodyPath, i64));
    case 'f64_array':
      return numericArray(body, bodyPath, (n) => new Float64Array(n), Number.MAX_VALUE, f64);
    case 'f32_array':
      return numericArray(body, bodyPath, (n) => new Float32Array(n), F32_MAX, f32);
    case 'string_array':
      return arrayOf(body, bodyPath, (v, p) => (typeof v === 'string' ? v : fail(p, `expected a string, got ${describe(v)}`)));
    case 'array':
      return arrayOf(body, bodyPath, propertyValue);
    case 'object': {
      if (!isObject(body)) return fail(bodyPath, `expected an object, got ${describe(body)}`);
      const out: ValueObject = {};
      for (const key in body) setOwn(out, storableKey(key, bodyPath), propertyValue(body[key], `${bodyPath}.${clip(key)}`));
      return out;
    }
    default:
      return fail(path, `unknown property value tag "${clip(tag)}"`);
  }
}, PROPERTY_VALUE);

/**
 * Object keys of values. msgpack, which stores values and carries them between threads,
 * cannot keep a key named "__proto__" (msgpackr renames it), so it is refused rather than
 * silently changed.
 */
export function storableKey(key: string, path: string): string {
  return key === '__proto__' ? fail(path, PROTO_KEY) : key;
}

/**
 * An untagged parameter value: integer tokens are i64 (beyond the i64 range: rejected,
 * where the reference silently loses precision, Q12), other numbers f64. The JSON parser
 * already produces exactly these values, so a valid value is returned as it is: bulk loads
 * send hundreds of thousands of them, and copying each (or naming its path) would cost
 * more than checking it. Paths are spelled out only for the value that fails.
 */
export const untypedValue: Field<Value> = described(
  (json, path) => {
    const problem = untypedProblem(json);
    if (problem === null) return json as Value;
    return fail(path + problem.at, problem.msg);
  },
  { description: 'any JSON value: integers are i64, other numbers f64; no key "__proto__"' },
);

/**
 * A row table's cells (src/core/row-table.ts), in the order the rows' members would be checked:
 * row by row, each row's keys in the order an object enumerates them (integer-like keys
 * first), so the first problem reported is the one the rows as objects would give.
 */
function tableProblem(table: RowTable): { at: string; msg: string } | null {
  if (table.length === 0) return null;
  const order = Object.keys(rowObject(table, 0)).map((key) => table.keys.indexOf(key));
  for (let i = 0; i < table.length; i++) {
    for (const c of order) {
      const key = table.keys[c]!;
      if (key === '__proto__') return { at: `[${i}]`, msg: PROTO_KEY };
      const column = table.columns[c]!;
      // Typed columns hold i64 values within ±2^53 and finite doubles: nothing to check.
      if (column.kind !== 'any') continue;
      const p = untypedProblem(column.values[i]);
      if (p !== null) return { at: `[${i}].${clip(key)}${p.at}`, msg: p.msg };
    }
  }
  return null;
}

function untypedProblem(json: unknown): { at: string; msg: string } | null {
  switch (typeof json) {
    case 'boolean':
    case 'string':
      return null;
    case 'bigint':
      return inI64(json) ? null : { at: '', msg: outsideI64(json) };
    case 'number':
      return Number.isFinite(json) ? null : { at: '', msg: NOT_FINITE };
    case 'object': {
      if (json === null) return null;
      if (Array.isArray(json)) {
        // A row table stands in for an array (src/core/row-table.ts): checked by column.
        const table = tableOf(json as Value);
        if (table !== undefined) return tableProblem(table);
        for (let i = 0; i < json.length; i++) {
          const p = untypedProblem(json[i]);
          if (p !== null) return { at: `[${i}]${p.at}`, msg: p.msg };
        }
        return null;
      }
      if (ArrayBuffer.isView(json) || json instanceof DateTime) return { at: '', msg: `unsupported value ${describe(json)}` };
      const obj = json as Record<string, unknown>;
      for (const key in obj) {
        if (key === '__proto__') return { at: '', msg: PROTO_KEY };
        const member = obj[key];
        // Rows of a bulk load are objects of scalars: those are checked here, without a call.
        const kind = typeof member;
        if (kind === 'string' || kind === 'boolean' || member === null) continue;
        if (kind === 'bigint' && inI64(member as bigint)) continue;
        const p = untypedProblem(member);
        if (p !== null) return { at: `.${clip(key)}${p.at}`, msg: p.msg };
      }
      return null;
    }
    default:
      return { at: '', msg: `unsupported value ${describe(json)}` };
  }
}

/** A `parameter_types` entry: the contract's types only (D6). */
export type ParamType = 'bool' | 'i64' | 'string' | 'date_time' | 'value' | 'object' | { readonly array: ParamType };

const SCALAR_TYPES = ['bool', 'i64', 'string', 'date_time', 'value', 'object'] as const;

const PARAMETER_TYPE = component('ParameterType', () => ({
  anyOf: [
    { type: 'string', enum: [...SCALAR_TYPES] },
    { type: 'object', properties: { array: PARAMETER_TYPE }, required: ['array'], additionalProperties: false },
  ],
}));

export const paramType: Field<ParamType> = described((json, path) => {
  if (typeof json === 'string') {
    if ((SCALAR_TYPES as readonly string[]).includes(json)) return json as ParamType;
    if (json === 'f32' || json === 'f64') {
      return fail(path, `"${json}" is not a declarable parameter type: send floating-point numbers without parameter_types`);
    }
    if (json === 'bytes') return fail(path, 'bytes parameters cannot be sent on this route');
    return fail(path, `unknown parameter type "${clip(json)}" (expected bool, i64, string, date_time, value, object or {"array": T})`);
  }
  if (isObject(json) && Object.keys(json).length === 1 && 'array' in json) return { array: paramType(json.array, `${path}.array`) };
  return fail(path, `expected a parameter type, got ${describe(json)}`);
}, PARAMETER_TYPE);

/** A parameter value checked against its declared type. */
export function typedValue(type: ParamType, json: unknown, path: string): Value {
  if (typeof type === 'object') {
    if (!Array.isArray(json)) return fail(path, `declared {"array": ...} but got ${describe(json)}`);
    return json.map((v, i) => typedValue(type.array, v, `${path}[${i}]`));
  }
  switch (type) {
    case 'bool':
      return typeof json === 'boolean' ? json : fail(path, `declared bool but got ${describe(json)}`);
    case 'i64':
      return typeof json === 'bigint' ? i64(json, path) : fail(path, `declared i64 but got ${describe(json)}`);
    case 'string':
      return typeof json === 'string' ? json : fail(path, `declared string but got ${describe(json)}`);
    case 'date_time': {
      const ms = typeof json === 'string' ? parseRfc3339(json) : null;
      return ms === null
        ? fail(path, `declared date_time but got ${describe(json)}; expected an RFC 3339 date-time such as "2026-01-01T00:00:00.000Z"`)
        : new DateTime(ms);
    }
    case 'object':
      return isObject(json) ? untypedValue(json, path) : fail(path, `declared object but got ${describe(json)}`);
    case 'value':
      return untypedValue(json, path);
  }
}
