/**
 * The `cast` expression (a Trellis extension, docs/queries.md "Expr"): a value converted to
 * another type, for the query language's schema migrations (`field AS U32`,
 * src/hql/migration.ts). Null stays null; a value that cannot convert is 400
 * `invalid_query` naming the value and the element, so a write batch that casts keeps
 * nothing when one value does not fit.
 *
 * - to an integer type (`i8` ... `i64`, `u8` ... `u64`): an integer, or a finite float
 *   truncated toward zero, within the type's range (`u64` stops at the largest i64: Trellis
 *   integers are i64);
 * - to `f64`: a number; to `f32`: a number rounded to f32, finite;
 * - to `string`: a string as it is, a boolean or a number as its text (`true`, `42`, `2.5`),
 *   a date-time in RFC 3339 (UTC, milliseconds);
 * - to `date_time`: a date-time as it is, or a string in RFC 3339 or `YYYY-MM-DD`
 *   (midnight UTC).
 */
import { GraphError } from '../core/errors.js';
import { formatRfc3339, parseRfc3339 } from '../core/datetime.js';
import { DateTime, F32_MAX, I64_MAX, type Value } from '../core/value.js';
import type { CastTarget } from '../plan/expr.js';
import { clip } from '../core/clip.js';
import { EDGE, NODE, type Row } from './row.js';

const INTEGER_RANGES: Readonly<Partial<Record<CastTarget, readonly [bigint, bigint]>>> = {
  i8: [-(2n ** 7n), 2n ** 7n - 1n],
  i16: [-(2n ** 15n), 2n ** 15n - 1n],
  i32: [-(2n ** 31n), 2n ** 31n - 1n],
  i64: [-(2n ** 63n), I64_MAX],
  u8: [0n, 2n ** 8n - 1n],
  u16: [0n, 2n ** 16n - 1n],
  u32: [0n, 2n ** 32n - 1n],
  u64: [0n, I64_MAX],
};

/** `value` as a value of type `to`; throws invalid_query (naming `path` and the row's element) when it cannot be one. */
export function castValue(value: Value, to: CastTarget, row: Row, path: string): Value {
  if (value === null) return null;
  const cannot = (why: string): never => {
    const element = row.kind === NODE ? ` (node ${row.id})` : row.kind === EDGE ? ` (edge ${row.id})` : '';
    throw new GraphError('invalid_query', `${path}: cannot cast ${shown(value)}${element} to ${to}: ${why}`);
  };
  const range = INTEGER_RANGES[to];
  if (range !== undefined) {
    let n: bigint;
    if (typeof value === 'bigint') n = value;
    else if (typeof value === 'number') {
      if (!Number.isFinite(value)) return cannot('it is not a finite number');
      n = BigInt(Math.trunc(value));
    } else return cannot('only numbers cast to an integer type');
    if (n < range[0] || n > range[1]) return cannot(`out of its range, ${range[0]} to ${range[1]}`);
    return n;
  }
  switch (to) {
    case 'f64':
    case 'f32': {
      if (typeof value !== 'bigint' && typeof value !== 'number') return cannot('only numbers cast to a float type');
      const n = Number(value);
      if (to === 'f64') return n;
      if (Number.isFinite(n) && Math.abs(n) > F32_MAX) return cannot(`out of its range, -${F32_MAX} to ${F32_MAX}`);
      return Math.fround(n);
    }
    case 'string':
      if (typeof value === 'string') return value;
      if (typeof value === 'boolean' || typeof value === 'bigint' || typeof value === 'number') return String(value);
      if (value instanceof DateTime) return formatRfc3339(value.ms) ?? cannot('the date is out of range');
      return cannot('only strings, booleans, numbers and date-times cast to string');
    case 'date_time': {
      if (value instanceof DateTime) return value;
      if (typeof value !== 'string') return cannot('only strings and date-times cast to date_time');
      const ms = /^\d{4}-\d{2}-\d{2}$/.test(value) ? parseRfc3339(`${value}T00:00:00Z`) : parseRfc3339(value);
      return ms === null ? cannot('it is not a date (RFC 3339 or YYYY-MM-DD)') : new DateTime(ms);
    }
    default:
      return cannot('unknown target');
  }
}

function shown(v: Value): string {
  if (typeof v === 'string') return JSON.stringify(clip(v));
  if (typeof v === 'bigint' || typeof v === 'number' || typeof v === 'boolean') return String(v);
  if (v instanceof DateTime) return `the date ${formatRfc3339(v.ms) ?? v.ms}`;
  return Array.isArray(v) || ArrayBuffer.isView(v) ? 'an array' : 'an object';
}
