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

/**
 * One column being built, value by value: typed while its values allow (one kind of
 * number, integers within ±(2^53 - 1)), then plain values. The request parser fills it
 * from tokens, `tabulate` from parsed values.
 */
export class ColumnBuilder {
  private kind: 'new' | 'int' | 'float' | 'any' = 'new';
  // Small at first: the parser starts one for every array of objects it meets.
  private doubles = new Float64Array(64);
  private n = 0;
  private values: Value[] = [];

  /** A number: an integer that a double holds exactly (`int`), or a float. */
  number(d: number, int: boolean): void {
    const kind = int ? 'int' : 'float';
    if (this.kind === 'new') this.kind = kind;
    if (this.kind !== kind) {
      this.value(int ? BigInt(d) : d);
      return;
    }
    if (this.n === this.doubles.length) {
      const grown = new Float64Array(this.n * 2);
      grown.set(this.doubles);
      this.doubles = grown;
    }
    this.doubles[this.n++] = int ? d + 0 : d; // the integer -0 is 0; the float -0.0 stays
  }

  /** Any value (a number too, then as it is). */
  value(v: Value): void {
    if (this.kind !== 'any') {
      const ints = this.kind === 'int';
      this.values = Array.from(this.doubles.subarray(0, this.n), (d) => (ints ? BigInt(d) : d));
      this.kind = 'any';
    }
    this.values.push(v);
  }

  finish(): Column {
    if (this.kind === 'int' || this.kind === 'float') return { kind: this.kind, values: this.doubles.slice(0, this.n) };
    return { kind: 'any', values: this.values };
  }
}

/** The column of `key` over rows that all have it. */
function column(rows: readonly ValueObject[], key: string): Column {
  const builder = new ColumnBuilder();
  for (const row of rows) {
    const v = row[key]!;
    // Number() of a bigint beyond ±(2^53 - 1) lands beyond it too, so the check is exact.
    if (typeof v === 'bigint' && Number.isSafeInteger(Number(v))) builder.number(Number(v), true);
    else if (typeof v === 'number') builder.number(v, false);
    else builder.value(v);
  }
  return builder.finish();
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
  table.keys.forEach((key, c) =>
    Object.defineProperty(row, key, { value: cellValue(table, c, i), enumerable: true, writable: true, configurable: true }),
  );
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
