/**
 * Property values as they live in memory, in storage and in thread messages.
 *
 * The wire has thirteen tagged kinds (reference v2-wire §4.1); in memory we keep the
 * distinctions that change behaviour and collapse the ones that never show:
 * - i64 is a `bigint` and f64 a `number`, so `5` and `5.0` stay different kinds
 *   (arithmetic, `sack_add` and response encoding depend on it);
 * - f32 is a `number` already rounded with `Math.fround` (it prints widened to f64, as the
 *   reference does, and compares numerically, so nothing else can tell it apart);
 * - date_time is a `DateTime` (UTC epoch milliseconds), never a bare number or string;
 * - bytes is a `Uint8Array`; i64/f64/f32 arrays are typed arrays; string arrays and
 *   heterogeneous arrays are plain arrays (they print the same);
 * - object is a plain record of values.
 */
export type Value =
  null | boolean | bigint | number | string | DateTime | Uint8Array | BigInt64Array | Float64Array | Float32Array | Value[] | ValueObject;

export interface ValueObject {
  [key: string]: Value;
}

export class DateTime {
  constructor(readonly ms: number) {}
}

/** The largest and smallest i64, for range checks on integer tokens. */
export const I64_MAX = (1n << 63n) - 1n;
export const I64_MIN = -(1n << 63n);
/** 2^53 - 1 as an i64: the largest id or count a JS number holds exactly. */
export const SAFE_I64 = BigInt(Number.MAX_SAFE_INTEGER);
/** Whether a double holds the integer `n` exactly. */
export const isSafeI64 = (n: bigint): boolean => n >= -SAFE_I64 && n <= SAFE_I64;
/** The largest finite f32. */
export const F32_MAX = 3.4028234663852886e38;

export function isNumeric(v: Value): v is bigint | number {
  return typeof v === 'bigint' || typeof v === 'number';
}

export function toNumber(v: bigint | number): number {
  return typeof v === 'bigint' ? Number(v) : v;
}

export function isValueObject(v: unknown): v is ValueObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !ArrayBuffer.isView(v) && !(v instanceof DateTime);
}

/** Own-property assignment that is safe for a key named `__proto__`. */
export function setOwn(target: ValueObject, key: string, value: Value): void {
  if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
  else target[key] = value;
}
