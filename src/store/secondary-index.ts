/**
 * Secondary (property) index entries, equality and range, in the `index_entries`
 * sub-database: one key per indexed element, `[index id u32][value key][element id u64]`,
 * no value. The value key sorts as the values do within a kind, so a range of values is
 * a range of keys:
 *
 * - booleans `0x02 b`; numbers (i64 and f64 alike) `0x03` + the f64 in an order-preserving
 *   8-byte form; date-times `0x05` + their milliseconds the same way;
 * - strings `0x04` + UTF-8 with 0x00 escaped as `0x00 0xFF`, ended by `0x00 0x00`, or, past
 *   MAX_STRING_KEY bytes, cut there and ended by `0x00 0x01` (LMDB keys stop at 1978 bytes).
 *
 * Nulls, arrays, objects and bytes are not indexed. Keys group values that the key cannot
 * tell apart (two i64 past 2^53 with one f64, two long strings with one prefix), so a
 * lookup yields candidates: the query re-checks its predicate on each, and the unique
 * check compares the stored values exactly.
 */
import { DateTime, type Value } from '../core/value.js';
import { readU64, VALUE_KEY_KIND, writeU64 } from './keys.js';
import type { EntryDb } from './layout.js';

/** String bytes kept in a key before it is cut (the rest of the key stays under LMDB's bound). */
const MAX_STRING_KEY = 960;
const EMPTY = Buffer.alloc(0);

/** Order-preserving bytes of a double: flip the sign bit, or every bit of a negative. */
function orderedDouble(n: number): Buffer {
  const b = Buffer.allocUnsafe(8);
  b.writeDoubleBE(n === 0 ? 0 : n, 0); // -0 and 0 are one value
  if ((b[0]! & 0x80) !== 0) for (let i = 0; i < 8; i++) b[i] = ~b[i]! & 0xff;
  else b[0] = b[0]! | 0x80;
  return b;
}

/** The key bytes of a value, or null for a value the index does not hold. */
export function valueKey(v: Value | undefined): Buffer | null {
  switch (typeof v) {
    case 'boolean':
      return Buffer.from([VALUE_KEY_KIND.bool, v ? 1 : 0]);
    case 'number':
      return Number.isNaN(v) ? null : Buffer.concat([Buffer.from([VALUE_KEY_KIND.number]), orderedDouble(v)]);
    case 'bigint':
      return Buffer.concat([Buffer.from([VALUE_KEY_KIND.number]), orderedDouble(Number(v))]);
    case 'string': {
      const utf8 = Buffer.from(v, 'utf8');
      const parts: number[] = [VALUE_KEY_KIND.string];
      let cut = false;
      for (const byte of utf8) {
        if (parts.length > MAX_STRING_KEY) {
          cut = true;
          break;
        }
        if (byte === 0) parts.push(0, 0xff);
        else parts.push(byte);
      }
      parts.push(0, cut ? 1 : 0);
      return Buffer.from(parts);
    }
    default:
      return v instanceof DateTime ? Buffer.concat([Buffer.from([VALUE_KEY_KIND.date]), orderedDouble(v.ms)]) : null;
  }
}

/** Whether two indexed values are the same value (the unique check; numbers across kinds). */
export function sameIndexedValue(a: Value | undefined, b: Value | undefined): boolean {
  if (a === undefined || b === undefined) return false;
  if (typeof a === 'bigint' && typeof b === 'number') return Number.isInteger(b) && BigInt(b) === a;
  if (typeof a === 'number' && typeof b === 'bigint') return Number.isInteger(a) && BigInt(a) === b;
  if (a instanceof DateTime) return b instanceof DateTime && a.ms === b.ms;
  return a === b;
}

function prefix(indexId: number, value: Buffer | null): Buffer {
  const key = Buffer.allocUnsafe(4 + (value?.length ?? 0));
  key.writeUInt32BE(indexId, 0);
  value?.copy(key, 4);
  return key;
}

function entryKey(indexId: number, value: Buffer, id: number): Buffer {
  const key = Buffer.allocUnsafe(4 + value.length + 8);
  key.writeUInt32BE(indexId, 0);
  value.copy(key, 4);
  writeU64(key, 4 + value.length, id);
  return key;
}

/** The first key after every key that starts with `p`. */
function after(p: Buffer): Buffer {
  const out = Buffer.from(p);
  for (let i = out.length - 1; i >= 0; i--) {
    if (out[i]! < 0xff) {
      out[i]!++;
      return out.subarray(0, i + 1);
    }
  }
  return Buffer.concat([p, Buffer.from([0xff])]);
}

/** A bound of a range lookup: the value and whether it is included. */
export interface RangeBound {
  readonly value: Value;
  readonly inclusive: boolean;
}

export class SecondaryEntries {
  constructor(private readonly db: EntryDb) {}

  put(indexId: number, value: Value | undefined, id: number): void {
    const key = valueKey(value);
    if (key !== null) this.db.putSync(entryKey(indexId, key, id), EMPTY);
  }

  remove(indexId: number, value: Value | undefined, id: number): void {
    const key = valueKey(value);
    if (key !== null) this.db.removeSync(entryKey(indexId, key, id));
  }

  /**
   * Ids of elements whose value may equal `value` (ascending id within one key group), or
   * null when there are more than `limit`.
   */
  equal(indexId: number, value: Value, limit = Infinity): number[] | null {
    const key = valueKey(value);
    if (key === null) return [];
    const start = prefix(indexId, key);
    return this.ids(start, after(start), limit);
  }

  /**
   * Ids of elements whose value may lie between the bounds (of the kind of the bounds'
   * values; a missing bound is open to the end of that kind), in value order, or null when
   * there are more than `limit`.
   */
  range(indexId: number, low: RangeBound | null, high: RangeBound | null, limit = Infinity): number[] | null {
    const probe = (low ?? high)!.value;
    const kindKey = valueKey(probe);
    if (kindKey === null) return [];
    const kind = prefix(indexId, kindKey.subarray(0, 1));
    const lowKey = low === null ? null : valueKey(low.value);
    const highKey = high === null ? null : valueKey(high.value);
    // Inclusive bounds take the whole key group of the bound; the query's predicate drops
    // what the group holds beyond it (exclusive bounds too, which also keep the group).
    const start = lowKey === null ? kind : prefix(indexId, lowKey);
    const end = highKey === null ? after(kind) : after(prefix(indexId, highKey));
    return this.ids(start, end, limit);
  }

  private ids(start: Buffer, end: Buffer, limit: number): number[] | null {
    const out: number[] = [];
    for (const key of this.db.getKeys({ start, end })) {
      if (out.length >= limit) return null;
      out.push(readU64(key as Buffer, (key as Buffer).length - 8));
    }
    return out;
  }

  /** Deletes up to `limit` entries of an index; returns how many it deleted. */
  deleteSome(indexId: number, limit: number): number {
    const start = prefix(indexId, null);
    // Collected first: a cursor does not survive deletes under it.
    const keys = [...this.db.getKeys({ start, end: after(start), limit })].map((k) => Buffer.from(k as Buffer));
    for (const key of keys) this.db.removeSync(key);
    return keys.length;
  }
}
