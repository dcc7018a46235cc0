/**
 * Row tables: an array of flat objects that all have the same keys, held column by
 * column. A bulk load sends hundreds of thousands of such rows in one `for_each`
 * parameter; a read worker hands the plan to the writer thread as msgpack, and packing,
 * unpacking and collecting that many small objects cost more than running the inserts.
 * As a table, integer and float columns travel as one typed array each, and the writer's
 * bulk-insert path reads them without making an object per row.
 *
 * A table stands in for its array through `tableArray`: any code that treats it as an
 * array gets the very rows (built on first use), so nothing else needs to know tables.
 */
import { isValueObject, type Value, type ValueObject } from './value.js';

/** One column: i64 values within ±(2^53 - 1) or f64 values as doubles, anything else as values. */
export type Column =
  | { readonly kind: 'int'; readonly values: Float64Array }
  | { readonly kind: 'float'; readonly values: Float64Array }
  | { readonly kind: 'any'; readonly values: readonly Value[] };

export interface RowTable {
  readonly length: number;
  /** Every row's keys, in order. */
  readonly keys: readonly string[];
  readonly columns: readonly Column[];
}

/** Arrays shorter than this travel as they are (a table would not pay for itself). */
export const MIN_TABLE_ROWS = 64;

/** One pass: a typed column while every value allows it, values from the first that does not. */
function column(rows: readonly ValueObject[], key: string): Column {
  const n = rows.length;
  const doubles = new Float64Array(n);
  const first = rows[0]![key]!;
  const kind = typeof first === 'bigint' ? 'int' : typeof first === 'number' ? 'float' : 'any';
  for (let i = 0; kind !== 'any' && i < n; i++) {
    const v = rows[i]![key]!;
    // Number() of a bigint beyond ±(2^53 - 1) lands beyond it too, so the check is exact.
    const d = kind === 'int' ? (typeof v === 'bigint' ? Number(v) : NaN) : typeof v === 'number' ? v : NaN;
    if (kind === 'int' ? !Number.isSafeInteger(d) : Number.isNaN(d)) return { kind: 'any', values: rows.map((row) => row[key]!) };
    doubles[i] = d;
  }
  return kind === 'any' ? { kind, values: rows.map((row) => row[key]!) } : { kind, values: doubles };
}

/**
 * The table of `value` when it is an array of at least MIN_TABLE_ROWS plain objects with
 * the same keys in the same order, else null.
 */
export function tabulate(value: Value): RowTable | null {
  if (!Array.isArray(value) || value.length < MIN_TABLE_ROWS) return null;
  const first = value[0];
  if (!isValueObject(first)) return null;
  const keys = Object.keys(first);
  for (const row of value) {
    if (!isValueObject(row)) return null;
    let k = 0;
    for (const key in row) if (keys[k++] !== key) return null;
    if (k !== keys.length) return null;
  }
  const rows = value as ValueObject[];
  return { length: rows.length, keys, columns: keys.map((key) => column(rows, key)) };
}

/** Row `i`'s value of column `c`, as the value kinds have it (an int column's are bigints). */
export function cellValue(table: RowTable, c: number, i: number): Value {
  const col = table.columns[c]!;
  return col.kind === 'int' ? BigInt(col.values[i]!) : col.values[i]!;
}

/** Row `i` as the object it was. */
export function rowObject(table: RowTable, i: number): ValueObject {
  const row: ValueObject = {};
  // defineProperty keeps a key named "__proto__" an own member, as the parser does.
  table.keys.forEach((key, c) => Object.defineProperty(row, key, { value: cellValue(table, c, i), enumerable: true, writable: true, configurable: true }));
  return row;
}

const tables = new WeakMap<object, RowTable>();

/**
 * An array that stands for the table's rows: the rows are built the first time anything
 * looks at it, and from then on it is an ordinary array behind the proxy.
 */
export function tableArray(table: RowTable): Value[] {
  const target: Value[] = [];
  let built = false;
  const build = (): Value[] => {
    if (!built) {
      built = true;
      for (let i = 0; i < table.length; i++) target.push(rowObject(table, i));
    }
    return target;
  };
  const proxy = new Proxy(target, {
    get: (_t, p) => Reflect.get(build(), p),
    set: (_t, p, v) => Reflect.set(build(), p, v),
    has: (_t, p) => Reflect.has(build(), p),
    ownKeys: () => Reflect.ownKeys(build()),
    getOwnPropertyDescriptor: (_t, p) => Reflect.getOwnPropertyDescriptor(build(), p),
    defineProperty: (_t, p, d) => Reflect.defineProperty(build(), p, d),
    deleteProperty: (_t, p) => Reflect.deleteProperty(build(), p),
  });
  tables.set(proxy, table);
  return proxy;
}

/** The table behind an array made by tableArray, if it is one. */
export function tableOf(value: Value): RowTable | undefined {
  return typeof value === 'object' && value !== null ? tables.get(value) : undefined;
}
