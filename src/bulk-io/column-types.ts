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
  readonly types = new Map<string, ValueType>();
  /** Property names in first-seen order. */
  readonly names: string[] = [];

  see(name: string, v: Value, arrayDelimiter: string): void {
    const type = typeOfValue(v, arrayDelimiter);
    const known = this.types.get(name);
    if (known === undefined) {
      this.types.set(name, type);
      this.names.push(name);
    } else if (!same(known, type)) this.types.set(name, JSON_TYPE);
  }
}
