/**
 * The columnar batches a bulk load hands the store (bulk-build.ts): one property per
 * column, one row per element. Numbers travel as doubles with a presence byte per row, so
 * a load of millions of integers makes no bigint per value; anything else as values.
 */
import { setOwn, type Value, type ValueObject } from '../core/value.js';
import { packStored } from './codec.js';

/**
 * One property of a batch's rows. `i64`: integers within ±(2^53 - 1) as doubles; `f64`:
 * doubles; `present[i]` 0 means row i lacks the property (null: every row has it).
 * `value`: any values, undefined where the row lacks the property.
 */
export type BulkColumn =
  | { readonly name: string; readonly kind: 'i64' | 'f64'; readonly values: Float64Array; readonly present: Uint8Array | null }
  | { readonly name: string; readonly kind: 'value'; readonly values: readonly (Value | undefined)[] };

/** Row `i`'s value of the column (an i64 as a bigint), or undefined. */
export function cellOf(column: BulkColumn, i: number): Value | undefined {
  if (column.kind === 'value') return column.values[i];
  if (column.present !== null && column.present[i] === 0) return undefined;
  const v = column.values[i]!;
  return column.kind === 'i64' ? BigInt(v) : v;
}

/** Row `i`'s properties as an object: each column's cell i, absent where it has none. */
export function cellsOf(columns: readonly BulkColumn[], i: number): ValueObject {
  const props: ValueObject = {};
  for (const c of columns) {
    const v = cellOf(c, i);
    if (v !== undefined) setOwn(props, c.name, v);
  }
  return props;
}

/** A node record is the msgpack array [label id, properties]: its first byte (fixarray of 2). */
const NODE_RECORD_HEAD = 0x92;

/**
 * Writes msgpack property maps straight from columns, in the forms the store's codec
 * (codec.ts) reads back as the same values: i64 as int64, f64 as float64 (so -0.0 and
 * NaN survive), strings, booleans and null directly, anything else through packStored.
 * A map holds the row's present properties in column order.
 */
export class PropertyMapWriter {
  private buf = Buffer.allocUnsafe(64 * 1024);
  private at = 0;
  /** Each column's name, msgpack-encoded once. */
  private readonly keys: Buffer[];

  constructor(private readonly columns: readonly BulkColumn[]) {
    this.keys = columns.map((c) => stringBytes(c.name));
  }

  /** Starts a value in the reusable buffer. */
  reset(): void {
    this.at = 0;
  }

  /** An unsigned integer (a label id) as msgpack. */
  uint(n: number): void {
    this.room(5);
    if (n < 128) this.buf[this.at++] = n;
    else this.sized(0xcc, n);
  }

  /** Row `i`'s node record, [labelId, its map] (valid until the next write). */
  nodeRecord(labelId: number, i: number): Buffer {
    this.reset();
    this.room(1);
    this.buf[this.at++] = NODE_RECORD_HEAD;
    this.uint(labelId);
    this.map(i);
    return this.bytes();
  }

  /** Row `i`'s edge property map from the buffer's start: its length, 0 for a row with no property. */
  edgeMap(i: number): number {
    this.reset();
    return this.columns.length > 0 && this.map(i) > 0 ? this.at : 0;
  }

  /** Row `i`'s map (always a map16 header, so it is written in one pass); returns how many properties it holds. */
  map(i: number): number {
    this.room(3);
    const head = this.at;
    this.buf[head] = 0xde;
    this.at += 3;
    let count = 0;
    const columns = this.columns;
    for (let c = 0; c < columns.length; c++) {
      const column = columns[c]!;
      if (column.kind === 'value') {
        const v = column.values[i];
        if (v === undefined) continue;
        this.key(c);
        this.value(v);
      } else {
        if (column.present !== null && column.present[i] === 0) continue;
        this.key(c);
        if (column.kind === 'f64') this.float(column.values[i]!);
        else this.int(column.values[i]!);
      }
      count++;
    }
    this.buf[head + 1] = count >>> 8;
    this.buf[head + 2] = count & 0xff;
    return count;
  }

  /** Column c's name (names are short: a loop beats Buffer.copy's call overhead). */
  private key(c: number): void {
    const key = this.keys[c]!;
    this.room(key.length + 9);
    const buf = this.buf;
    let at = this.at;
    for (let k = 0; k < key.length; k++) buf[at++] = key[k]!;
    this.at = at;
  }

  /** The buffer written to (edgeMap's bytes are at its start). */
  get buffer(): Buffer {
    return this.buf;
  }

  /** The bytes written since reset (valid until the next reset). */
  bytes(): Buffer {
    return this.buf.subarray(0, this.at);
  }

  private room(n: number): void {
    if (this.at + n <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(this.buf.length * 2, this.at + n));
    this.buf.copy(grown, 0, 0, this.at);
    this.buf = grown;
  }

  private float(v: number): void {
    this.buf[this.at] = 0xcb;
    this.buf.writeDoubleBE(v, this.at + 1);
    this.at += 9;
  }

  /** An i64 within ±2^53 as int64, from two 32-bit halves (no bigint). */
  private int(v: number): void {
    const hi = Math.floor(v / 2 ** 32);
    this.buf[this.at] = 0xd3;
    this.buf.writeInt32BE(hi, this.at + 1);
    this.buf.writeUInt32BE(v - hi * 2 ** 32, this.at + 5);
    this.at += 9;
  }

  value(v: Value): void {
    if (typeof v === 'string') {
      const len = Buffer.byteLength(v);
      this.room(len + 5);
      this.stringHeader(len);
      this.at += this.buf.write(v, this.at, 'utf8');
      return;
    }
    if (typeof v === 'number') return this.float(v);
    if (typeof v === 'boolean') {
      this.buf[this.at++] = v ? 0xc3 : 0xc2;
      return;
    }
    if (v === null) {
      this.buf[this.at++] = 0xc0;
      return;
    }
    const packed = packStored(v);
    this.room(packed.length);
    packed.copy(this.buf, this.at);
    this.at += packed.length;
  }

  private stringHeader(len: number): void {
    if (len < 32) this.buf[this.at++] = 0xa0 | len;
    else this.sized(0xd9, len);
  }

  /**
   * `n` in 8, 16 or 32 bits after its code: msgpack numbers those codes one after
   * another (uint 0xcc-0xce, str 0xd9-0xdb), `code8` being the 8-bit one.
   */
  private sized(code8: number, n: number): void {
    if (n < 256) {
      this.buf[this.at++] = code8;
      this.buf[this.at++] = n;
    } else if (n < 65536) {
      this.buf[this.at++] = code8 + 1;
      this.buf.writeUInt16BE(n, this.at);
      this.at += 2;
    } else {
      this.buf[this.at++] = code8 + 2;
      this.buf.writeUInt32BE(n, this.at);
      this.at += 4;
    }
  }
}

/** A string's msgpack bytes. */
function stringBytes(text: string): Buffer {
  const w = new PropertyMapWriter([]);
  w.reset();
  w.value(text);
  return Buffer.from(w.bytes());
}
