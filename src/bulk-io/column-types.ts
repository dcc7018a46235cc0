/**
 * The export's column type of a property: the header type (header.ts) that holds every
 * value the property has among one label's elements exactly, so that the export imports
 * back to the same values; `json` (a tagged value of the v2 wire) when no other does
 * (null, bytes, objects, mixed kinds, arrays a cell cannot split back).
 */
import { DateTime, type Value } from '../core/value.js';
import type { ValueType } from './header.js';

const JSON_TYPE: ValueType = { scalar: 'json', array: false };

/** The narrowest exact type of one value, or json. */
export function typeOfValue(v: Value, arrayDelimiter: string): ValueType {
  switch (typeof v) {
    case 'bigint':
      return { scalar: 'long', array: false };
    case 'number':
      return { scalar: 'double', array: false };
    case 'string':
      return { scalar: 'string', array: false };
    case 'boolean':
      return { scalar: 'boolean', array: false };
  }
  if (v instanceof DateTime) return { scalar: 'datetime', array: false };
  if (v instanceof Float32Array) return { scalar: 'float', array: true };
  if (v instanceof Float64Array) return { scalar: 'double', array: true };
  if (v instanceof BigInt64Array) return { scalar: 'long', array: true };
  if (Array.isArray(v) && v.length > 0) {
    // Plain arrays of strings, booleans or date-times; a cell splits them back at the
    // delimiter, so no item may hold it, and [""] would read back as [].
    if (v.every((x) => typeof x === 'string' && x !== '' && !x.includes(arrayDelimiter))) return { scalar: 'string', array: true };
    if (v.every((x) => typeof x === 'boolean')) return { scalar: 'boolean', array: true };
    if (v.every((x) => x instanceof DateTime)) return { scalar: 'datetime', array: true };
  }
  return JSON_TYPE;
}

const same = (a: ValueType, b: ValueType) => a.scalar === b.scalar && a.array === b.array;

/** Folds the types of one property's values: one type for all, or json. */
export class ColumnTypes {
  private readonly seen = new Map<string, ValueType>();
  /** Properties holding an empty plain array somewhere: it reads back from "" as any plain array type. */
  private readonly emptyLists = new Set<string>();
  /** Property names in first-seen order. */
  readonly names: string[] = [];

  see(name: string, v: Value, arrayDelimiter: string): void {
    if (!this.seen.has(name) && !this.emptyLists.has(name)) this.names.push(name);
    if (Array.isArray(v) && v.length === 0) {
      this.emptyLists.add(name);
      return;
    }
    const type = typeOfValue(v, arrayDelimiter);
    const known = this.seen.get(name);
    if (known === undefined) this.seen.set(name, type);
    else if (!same(known, type)) this.seen.set(name, JSON_TYPE);
  }

  /** The type of a property seen. */
  typeOf(name: string): ValueType {
    const type = this.seen.get(name);
    if (!this.emptyLists.has(name)) return type!;
    if (type === undefined) return { scalar: 'string', array: true };
    const plainList = type.array && (type.scalar === 'string' || type.scalar === 'boolean' || type.scalar === 'datetime');
    return plainList ? type : JSON_TYPE;
  }
}
