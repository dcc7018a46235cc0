/**
 * A batch of read rows to what the loaders take: property columns (BulkColumn, numbers as
 * doubles), keys, labels and edge ends. Every cell goes through cells.ts; a cell that
 * does not fit its type, or a row of the wrong shape, is an ImportError at its file, line
 * and column, or with --skip-bad-rows a reject (the row is left out and the load goes on).
 */
import type { Value } from '../core/value.js';
import type { BulkColumn } from '../store/index.js';
import { untypedValue } from '../wire/values.js';
import { CellError, fromNative, fromText, isIntType, parseDouble, parseFloat32, parseInteger } from './cells.js';
import { PLAIN, type CsvBatch } from './csv.js';
import { CsvPlaces } from './csv-places.js';
import { GLOBAL_SPACE, parseField, typeName, type Field, type IdType, type ValueType } from './header.js';

/** The read batch's row of kept row i. */
export const rowIndex = (batch: ParsedBatch, i: number): number => (batch.rowOf === null ? i : batch.rowOf[i]!);

/** A key of an id space: integer keys as numbers (or bigints), others as text. */
export type Key = string | number | bigint;

/**
 * A batch's keys, one a row (undefined: none): an array, or a Float64Array when every key
 * is a number and the batch came from a reading thread (batch-message.ts).
 */
export type Keys = ArrayLike<Key | undefined>;

/** A row left out, and why (written to the rejects file). */
export interface Reject {
  readonly file: string;
  readonly line: number;
  readonly column: number;
  readonly reason: string;
  readonly row: string;
}

/** A problem with the input at a place in a file: the import stops (or the row is rejected). */
export class ImportError extends Error {
  constructor(
    readonly file: string,
    readonly line: number,
    readonly column: number,
    readonly reason: string,
  ) {
    super(`${file}:${line}:${column}: ${reason}`);
    this.name = 'ImportError';
  }
}

/** Where a batch's rows came from, for errors and rejects. */
export interface RowPlaces {
  readonly file: string;
  /** Line and column of row r's cell of column c (c -1: the row itself). */
  position(r: number, c: number): { line: number; column: number };
  raw(r: number): string;
}

/** Rows converted: every array has one entry per row kept. */
export interface ParsedBatch {
  count: number;
  columns: BulkColumn[];
  /** A node's key (undefined: none). */
  keys: Keys | null;
  /** Per-row label or type, when a :LABEL or :TYPE column gave one. */
  labels: (string | undefined)[] | null;
  starts: Keys | null;
  ends: Keys | null;
  /** The id spaces of the keys, the starts and the ends (header.ts GLOBAL_SPACE: none named). */
  spaces: { id: string; start: string; end: string };
  /**
   * The row of the read batch each kept row was (for errors found later: a duplicate key,
   * a missing end); null when every row was kept (row i is row i).
   */
  readonly rowOf: readonly number[] | null;
  readonly places: RowPlaces;
}

export interface ConvertContext {
  readonly arrayDelimiter: string;
  readonly quote: number;
  /** Called with each rejected row; without it the first bad row throws. */
  readonly reject: ((r: Reject) => void) | undefined;
}

/** One column being built: numbers in doubles while they allow it, else values. */
class ColumnBuilder {
  private doubles: Float64Array;
  private present: Uint8Array;
  private values: (Value | undefined)[] | null = null;
  private missing = 0;

  constructor(
    readonly name: string,
    private readonly kind: 'i64' | 'f64' | 'value',
    rows: number,
  ) {
    this.doubles = kind === 'value' ? new Float64Array(0) : new Float64Array(rows);
    this.present = kind === 'value' ? new Uint8Array(0) : new Uint8Array(rows).fill(1);
    if (kind === 'value') this.values = new Array<Value | undefined>(rows);
  }

  setNumber(r: number, v: number): void {
    if (this.values !== null) this.values[r] = this.kind === 'i64' ? BigInt(v) : v;
    else this.doubles[r] = v;
  }

  setValue(r: number, v: Value): void {
    if (this.values === null) {
      // A value the doubles cannot hold (an i64 beyond ±2^53): every value from now on.
      this.values = Array.from(this.doubles, (d, i) =>
        this.present[i] === 0 ? undefined : this.kind === 'i64' ? BigInt(d) : (d as Value),
      );
    }
    this.values[r] = v;
  }

  setMissing(r: number): void {
    this.missing++;
    if (this.values !== null) this.values[r] = undefined;
    else this.present[r] = 0;
  }

  finish(keep: Uint8Array | null, kept: number): BulkColumn {
    if (this.values !== null) {
      const values = keep === null ? this.values : this.values.filter((_, i) => keep[i] === 1);
      return { name: this.name, kind: 'value', values };
    }
    const kind = this.kind as 'i64' | 'f64';
    if (keep === null) return { name: this.name, kind, values: this.doubles, present: this.missing === 0 ? null : this.present };
    const values = new Float64Array(kept);
    const present = new Uint8Array(kept);
    for (let i = 0, k = 0; i < keep.length; i++) {
      if (keep[i] === 0) continue;
      values[k] = this.doubles[i]!;
      present[k++] = this.present[i]!;
    }
    return { name: this.name, kind, values, present: this.missing === 0 ? null : present };
  }
}

const builderKind = (type: ValueType): 'i64' | 'f64' | 'value' =>
  type.array ? 'value' : isIntType(type.scalar) ? 'i64' : type.scalar === 'double' || type.scalar === 'float' ? 'f64' : 'value';

/** Rows kept so far; a rejected row is marked 0. */
class RowFilter {
  keep: Uint8Array | null = null;
  dropped = 0;

  constructor(private readonly rows: number) {}

  drop(r: number): void {
    this.keep ??= new Uint8Array(this.rows).fill(1);
    if (this.keep[r] === 0) return;
    this.keep[r] = 0;
    this.dropped++;
  }

  kept(r: number): boolean {
    return this.keep === null || this.keep[r] === 1;
  }

  compact<T>(values: T[]): T[] {
    return this.keep === null ? values : values.filter((_, i) => this.keep![i] === 1);
  }
}

/** Reports a bad cell: throws, or rejects the row. */
function bad(ctx: ConvertContext, places: RowPlaces, filter: RowFilter, r: number, c: number, reason: string): void {
  const { line, column } = places.position(r, c);
  if (ctx.reject === undefined) throw new ImportError(places.file, line, column, reason);
  ctx.reject({ file: places.file, line, column, reason, row: places.raw(r) });
  filter.drop(r);
}

const POW10 = [1, 10, 100, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16];

/**
 * A plain decimal integer or fixed-point number of at most 15 digits, straight from the
 * bytes; NaN for anything else (the text path then decides). Exact: the digits make an
 * integer below 2^53 and a power of ten up to 10^15 is exact, so the one division is
 * correctly rounded.
 */
function quickNumber(bytes: Buffer, s: number, e: number, allowFraction: boolean): number {
  let i = s;
  let negative = false;
  if (i < e && bytes[i] === 45) {
    negative = true;
    i++;
  }
  if (i >= e) return NaN;
  let m = 0;
  let digits = 0;
  let scale = -1;
  for (; i < e; i++) {
    const b = bytes[i]!;
    if (b >= 48 && b <= 57) {
      m = m * 10 + (b - 48);
      digits++;
      if (scale >= 0) scale++;
    } else if (b === 46 && allowFraction && scale < 0) {
      scale = 0;
    } else return NaN;
  }
  if (digits === 0 || digits > 15 || scale === 0) return NaN;
  const v = scale > 0 ? m / POW10[scale]! : m;
  return negative ? -v : v + 0;
}

/** The label (or type) of a cell: neo4j allows several, Trellis elements have one. */
function oneLabel(text: string, arrayDelimiter: string, what: string): string {
  const labels = text
    .split(arrayDelimiter)
    .map((l) => l.trim())
    .filter((l) => l !== '');
  if (labels.length === 0) throw new CellError(`the ${what} is empty`);
  if (labels.length > 1) throw new CellError(`${labels.length} ${what}s (${labels.join(', ')}): a Trellis element has exactly one`);
  return labels[0]!;
}

/** CSV rows of one batch (fields in header order) converted by `fields`. */
export function convertCsv(batch: CsvBatch, fields: readonly Field[], file: string, ctx: ConvertContext): ParsedBatch {
  const rows = batch.rows;
  const width = fields.length;
  const places: RowPlaces = new CsvPlaces(file, batch);
  const filter = new RowFilter(rows);
  for (let r = 0; r < rows; r++) {
    const n = batch.fieldCount(r);
    if (n !== width) bad(ctx, places, filter, r, -1, `the row has ${n} fields, the header has ${width}`);
  }
  const out = emptyBatch(places);
  const quote = ctx.quote;
  fields.forEach((field, c) => {
    const at = (r: number) => batch.rowField[r]! + c;
    const text = (r: number) => batch.text(at(r), quote);
    const missing = (r: number) => batch.isMissing(at(r));
    switch (field.role) {
      case 'ignore':
        return;
      case 'label':
      case 'type': {
        const labels = new Array<string | undefined>(rows);
        for (let r = 0; r < rows; r++) {
          if (!filter.kept(r) || missing(r)) continue;
          try {
            labels[r] = oneLabel(text(r), ctx.arrayDelimiter, field.role);
          } catch (err) {
            if (!(err instanceof CellError)) throw err;
            bad(ctx, places, filter, r, c, err.message);
          }
        }
        out.labels = labels;
        return;
      }
      case 'id':
      case 'start':
      case 'end': {
        const column = field.role === 'id' && field.name !== '' ? new ColumnBuilder(field.name, builderKind(field.type), rows) : null;
        const keys = csvKeys(batch, c, field.role, field.type, column, filter, ctx, places);
        if (field.role === 'id') out.keys = keys;
        else if (field.role === 'start') out.starts = keys;
        else out.ends = keys;
        out.spaces[field.role] = field.space;
        if (column !== null) out.builders.push(column);
        return;
      }
      case 'property':
        out.builders.push(csvProperty(batch, c, field.name, field.type, filter, ctx, places));
        return;
    }
  });
  return finishBatch(out, rows, filter);
}

/** The keys of an ID, START_ID or END_ID column (and, for a kept ID, its property column). */
function csvKeys(
  batch: CsvBatch,
  c: number,
  role: 'id' | 'start' | 'end',
  type: ValueType,
  column: ColumnBuilder | null,
  filter: RowFilter,
  ctx: ConvertContext,
  places: RowPlaces,
): Key[] {
  const rows = batch.rows;
  const keys = new Array<Key>(rows);
  const ints = type.scalar !== 'string';
  const { bytes, rowField, start, end, kind } = batch;
  for (let r = 0; r < rows; r++) {
    if (!filter.kept(r)) continue;
    const f = rowField[r]! + c;
    if (kind[f] === PLAIN && start[f] === end[f]) {
      bad(ctx, places, filter, r, c, `the ${role === 'id' ? 'key (:ID)' : role === 'start' ? ':START_ID' : ':END_ID'} is empty`);
      continue;
    }
    try {
      let key: Key;
      if (ints) {
        // Plain integers (up to 15 digits) straight from the bytes; anything else by the text.
        const quick = kind[f] === PLAIN ? quickNumber(bytes, start[f]!, end[f]!, false) : NaN;
        key = Number.isNaN(quick) ? parseInteger(batch.text(f, ctx.quote), 'long') : quick + 0; // "-0" is the key 0
      } else key = batch.text(f, ctx.quote);
      keys[r] = key;
      if (column !== null) {
        if (typeof key === 'number') column.setNumber(r, key);
        else column.setValue(r, key);
      }
    } catch (err) {
      if (!(err instanceof CellError)) throw err;
      bad(ctx, places, filter, r, c, err.message);
    }
  }
  return keys;
}

/** A property column of CSV rows: numbers straight from the bytes where they are plain. */
function csvProperty(
  batch: CsvBatch,
  c: number,
  name: string,
  type: ValueType,
  filter: RowFilter,
  ctx: ConvertContext,
  places: RowPlaces,
): ColumnBuilder {
  const rows = batch.rows;
  const column = new ColumnBuilder(name, builderKind(type), rows);
  const scalar = type.scalar;
  const intType = !type.array && isIntType(scalar);
  const floatType = !type.array && (scalar === 'double' || scalar === 'float');
  // Plain longs and doubles need no range check or rounding: straight from the bytes.
  const quickOnly = scalar === 'long' || scalar === 'double';
  const { bytes, rowField, start, end, kind } = batch;
  for (let r = 0; r < rows; r++) {
    if (!filter.kept(r)) continue;
    const f = rowField[r]! + c;
    const plain = kind[f] === PLAIN;
    if (plain && start[f] === end[f]) {
      column.setMissing(r);
      continue;
    }
    try {
      if (intType || floatType) {
        if (plain && quickOnly) {
          const quick = quickNumber(bytes, start[f]!, end[f]!, floatType);
          if (quick === quick) {
            column.setNumber(r, quick);
            continue;
          }
        }
        const t = batch.text(f, ctx.quote);
        if (floatType) column.setNumber(r, scalar === 'float' ? parseFloat32(t) : parseDouble(t));
        else {
          const n = parseInteger(t, scalar);
          if (typeof n === 'number') column.setNumber(r, n);
          else column.setValue(r, n);
        }
        continue;
      }
      // An empty quoted cell is an empty string (or array); other types have no empty value.
      const t = batch.text(f, ctx.quote);
      if (t === '' && !type.array && scalar !== 'string') throw new CellError(`an empty value is not a ${typeName(type)}`);
      column.setValue(r, type.array || scalar !== 'string' ? fromText(t, type, ctx.arrayDelimiter) : t);
    } catch (err) {
      if (!(err instanceof CellError)) throw err;
      bad(ctx, places, filter, r, c, `${name}: ${err.message}`);
    }
  }
  return column;
}

/** A batch under construction. */
interface Building extends ParsedBatch {
  keys: Key[] | null;
  starts: Key[] | null;
  ends: Key[] | null;
  builders: ColumnBuilder[];
  rowOf: number[] | null;
}

function emptyBatch(places: RowPlaces): Building {
  return {
    count: 0,
    columns: [],
    keys: null,
    labels: null,
    starts: null,
    ends: null,
    spaces: { id: GLOBAL_SPACE, start: GLOBAL_SPACE, end: GLOBAL_SPACE },
    rowOf: null,
    places,
    builders: [],
  };
}

function finishBatch(out: Building, rows: number, filter: RowFilter): ParsedBatch {
  const kept = rows - filter.dropped;
  out.count = kept;
  out.columns = out.builders.map((b) => b.finish(filter.keep, kept));
  if (out.keys !== null) out.keys = filter.compact(out.keys);
  if (out.labels !== null) out.labels = filter.compact(out.labels);
  if (out.starts !== null) out.starts = filter.compact(out.starts);
  if (out.ends !== null) out.ends = filter.compact(out.ends);
  if (filter.keep !== null) {
    const rowOf: number[] = [];
    for (let r = 0; r < rows; r++) if (filter.kept(r)) rowOf.push(r);
    out.rowOf = rowOf;
  }
  return out;
}

/**
 * The fields of records read as objects (JSON Lines, Parquet): each member's field from
 * `declared` (the mapping's columns) or, when its name is written in header syntax
 * (`uid:ID(User)`), from that; any other member is a property whose value is taken as the
 * v2 wire takes an untyped parameter (integers i64, other numbers f64, strings, booleans,
 * arrays, objects), or, from Parquet, by the column's own type.
 */
export class ObjectFields {
  private readonly known = new Map<string, Field | null>();

  constructor(
    private readonly declared: ReadonlyMap<string, Field>,
    private readonly element: 'node' | 'edge',
    private readonly idType: IdType,
  ) {}

  /** The field of a member name; null: an untyped property of that name. */
  of(name: string): Field | null {
    let field = this.known.get(name);
    if (field === undefined) {
      field = this.declared.get(name) ?? (name.includes(':') ? parseField(name, this.element, this.idType) : null);
      this.known.set(name, field);
    }
    return field;
  }
}

/** Records read as objects converted to a batch: members become fields by ObjectFields. */
export function convertObjects(
  records: readonly Record<string, unknown>[],
  fields: ObjectFields,
  places: RowPlaces,
  ctx: ConvertContext,
): ParsedBatch {
  const rows = records.length;
  const filter = new RowFilter(rows);
  const out = emptyBatch(places);
  const builders = new Map<string, ColumnBuilder>();
  const builder = (name: string, kind: 'i64' | 'f64' | 'value') => {
    let b = builders.get(name);
    if (b === undefined) {
      b = new ColumnBuilder(name, kind, rows);
      for (let r = 0; r < rows; r++) b.setMissing(r);
      builders.set(name, b);
      out.builders.push(b);
    }
    return b;
  };
  let keys: Key[] | null = null;
  let starts: Key[] | null = null;
  let ends: Key[] | null = null;
  let labels: (string | undefined)[] | null = null;
  for (let r = 0; r < rows; r++) {
    const record = records[r]!;
    let c = 0;
    for (const name in record) {
      const v = record[name];
      const field = fields.of(name);
      const column = c++;
      if (v === null || v === undefined) {
        if (field !== null && (field.role === 'id' || field.role === 'start' || field.role === 'end')) {
          bad(ctx, places, filter, r, column, `the key "${name}" is null`);
        }
        continue;
      }
      try {
        if (field === null) {
          builder(name, 'value').setValue(r, untyped(v, name));
          continue;
        }
        switch (field.role) {
          case 'ignore':
            break;
          case 'label':
          case 'type':
            (labels ??= new Array<string | undefined>(rows))[r] = oneLabel(String(v), ',', field.role);
            break;
          case 'id':
          case 'start':
          case 'end': {
            const key: Key = field.type.scalar === 'string' ? String(v) : parseInteger(String(v), 'long');
            out.spaces[field.role] = field.space;
            if (field.role === 'id') {
              (keys ??= new Array<Key>(rows))[r] = key;
              if (field.name !== '') {
                const b = builder(field.name, 'value');
                b.setValue(r, typeof key === 'number' ? BigInt(key) : key);
              }
            } else if (field.role === 'start') (starts ??= new Array<Key>(rows))[r] = key;
            else (ends ??= new Array<Key>(rows))[r] = key;
            break;
          }
          case 'property':
            builder(field.name, 'value').setValue(r, fromNative(v, field.type, ctx.arrayDelimiter));
            break;
        }
      } catch (err) {
        if (!(err instanceof CellError)) throw err;
        bad(ctx, places, filter, r, column, `${name}: ${err.message}`);
      }
    }
  }
  out.keys = keys;
  out.starts = starts;
  out.ends = ends;
  out.labels = labels;
  return finishBatch(out, rows, filter);
}

/** An undeclared member's value, as the v2 wire takes an untyped parameter. */
function untyped(v: unknown, name: string): Value {
  try {
    return untypedValue(v, name);
  } catch (err) {
    throw new CellError(err instanceof Error ? err.message : String(err));
  }
}
