/**
 * Node property columns: for every property, the values of 1024 consecutive node ids in
 * one chunk, so a scan that filters or sorts on a few properties reads a few chunks per
 * thousand nodes instead of decoding every node record. The label column (property id 0)
 * holds each slot's label id (0: no node), and doubles as the label index.
 *
 * Columns are derived data: node records stay the source of truth, and every write of a
 * node updates its chunks in the same transaction (a batch edits chunks in memory and
 * writes each one once, at its end).
 *
 * Chunk encodings (typed arrays in the platform's byte order, little-endian everywhere
 * Node runs): an 8-byte header [kind, 0, n: u16, dictSize: u32], then
 * - num: presence bitmap (128 bytes), integer bitmap (128), f64 x n. Every value is a
 *   number, or an i64 within +-2^53 (its integer bit set), so f64 holds it exactly.
 * - str: presence bitmap, u16 codes x n (padded to 8 bytes), then the dictionary as
 *   [u32 byte length, UTF-8 bytes] per string.
 * - gen: presence bitmap, then the msgpack array of the n values (null where absent).
 * - label chunks: u32 x 1024, no header.
 */
import type { Database } from 'lmdb';
import type { Value } from '../value.js';
import { storePackr } from './codec.js';
import { columnKey, readU64 } from './keys.js';
import { COLUMN_BLOCK, LABEL_COLUMN } from './layout.js';

const packr = storePackr;

const KIND_NUM = 1;
const KIND_STR = 2;
const KIND_GEN = 3;
const HEADER = 8;
const BITMAP = COLUMN_BLOCK / 8;
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

export interface NumChunk {
  readonly kind: 'num';
  readonly n: number;
  readonly present: Uint8Array;
  readonly isInt: Uint8Array;
  readonly values: Float64Array;
}
export interface StrChunk {
  readonly kind: 'str';
  readonly n: number;
  readonly present: Uint8Array;
  readonly codes: Uint16Array;
  readonly dict: readonly string[];
}
export interface GenChunk {
  readonly kind: 'gen';
  readonly n: number;
  readonly present: Uint8Array;
  readonly values: readonly Value[];
}
export type ColumnChunk = NumChunk | StrChunk | GenChunk;

/** One block of nodes as a scan sees it. */
export interface ColumnBlock {
  /** Id of slot 0. */
  readonly base: number;
  /** Label id per slot; 0 where there is no node. */
  readonly labels: Uint32Array;
  /** Per requested property: its chunk, or null when no node of the block has it. */
  readonly columns: readonly (ColumnChunk | null)[];
}

export const bit = (bits: Uint8Array, slot: number): boolean => ((bits[slot >> 3]! >> (slot & 7)) & 1) === 1;
const setBit = (bits: Uint8Array, slot: number): void => {
  bits[slot >> 3]! |= 1 << (slot & 7);
};

/** The exact value of a slot, or undefined when the node lacks the property. */
export function chunkValue(chunk: ColumnChunk, slot: number): Value | undefined {
  if (slot >= chunk.n || !bit(chunk.present, slot)) return undefined;
  switch (chunk.kind) {
    case 'num': {
      const v = chunk.values[slot]!;
      return bit(chunk.isInt, slot) ? BigInt(v) : v;
    }
    case 'str':
      return chunk.dict[chunk.codes[slot]!]!;
    case 'gen':
      return chunk.values[slot]!;
  }
}

/** A copy of `len` bytes at `offset` in memory aligned for any typed array. */
function aligned(buf: Uint8Array, offset: number, len: number): ArrayBuffer {
  const out = new ArrayBuffer(len);
  new Uint8Array(out).set(buf.subarray(offset, offset + len));
  return out;
}

export function decodeChunk(buf: Uint8Array): ColumnChunk {
  const b = buf as Buffer;
  const kind = b[0];
  const n = b.readUInt16LE(2);
  const present = b.subarray(HEADER, HEADER + BITMAP);
  if (kind === KIND_NUM) {
    const isInt = b.subarray(HEADER + BITMAP, HEADER + 2 * BITMAP);
    const values = new Float64Array(aligned(b, HEADER + 2 * BITMAP, n * 8));
    return { kind: 'num', n, present, isInt, values };
  }
  if (kind === KIND_STR) {
    const codes = new Uint16Array(aligned(b, HEADER + BITMAP, n * 2));
    const size = b.readUInt32LE(4);
    const dict: string[] = [];
    let at = HEADER + BITMAP + pad8(n * 2);
    for (let i = 0; i < size; i++) {
      const len = b.readUInt32LE(at);
      dict.push(b.toString('utf8', at + 4, at + 4 + len));
      at += 4 + len;
    }
    return { kind: 'str', n, present, codes, dict };
  }
  if (kind === KIND_GEN) return { kind: 'gen', n, present, values: packr.unpack(b.subarray(HEADER + BITMAP)) as Value[] };
  throw new Error(`storage: unknown column chunk kind ${kind}`);
}

const pad8 = (n: number) => (n + 7) & ~7;
const isNum = (v: Value): boolean => typeof v === 'number' || (typeof v === 'bigint' && v >= -SAFE && v <= SAFE);

/** Encodes a block's slots (undefined: absent); null when no slot has a value. */
export function encodeChunk(slots: readonly (Value | undefined)[]): Buffer | null {
  let n = 0;
  let num = true;
  let str = true;
  for (let i = 0; i < slots.length; i++) {
    const v = slots[i];
    if (v === undefined) continue;
    n = i + 1;
    if (num && !isNum(v)) num = false;
    if (str && typeof v !== 'string') str = false;
  }
  if (n === 0) return null;
  const present = new Uint8Array(BITMAP);
  for (let i = 0; i < n; i++) if (slots[i] !== undefined) setBit(present, i);
  if (num) {
    const isInt = new Uint8Array(BITMAP);
    const values = new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const v = slots[i];
      if (v === undefined) continue;
      if (typeof v === 'bigint') setBit(isInt, i);
      values[i] = Number(v);
    }
    return Buffer.concat([header(KIND_NUM, n, 0), present, isInt, new Uint8Array(values.buffer)]);
  }
  if (str) {
    const codes = new Uint16Array(pad8(n * 2) / 2);
    const index = new Map<string, number>();
    const parts: Buffer[] = [];
    for (let i = 0; i < n; i++) {
      const v = slots[i] as string | undefined;
      if (v === undefined) continue;
      let code = index.get(v);
      if (code === undefined) {
        code = index.size;
        index.set(v, code);
        const bytes = Buffer.from(v, 'utf8');
        const len = Buffer.allocUnsafe(4);
        len.writeUInt32LE(bytes.length, 0);
        parts.push(len, bytes);
      }
      codes[i] = code;
    }
    // A chunk has at most 1024 distinct strings, so u16 codes always suffice.
    return Buffer.concat([header(KIND_STR, n, index.size), present, new Uint8Array(codes.buffer), ...parts]);
  }
  const values = Array.from({ length: n }, (_, i) => slots[i] ?? null);
  return Buffer.concat([header(KIND_GEN, n, 0), present, packr.pack(values)]);
}

function header(kind: number, n: number, dictSize: number): Buffer {
  const h = Buffer.alloc(HEADER);
  h[0] = kind;
  h.writeUInt16LE(n, 2);
  h.writeUInt32LE(dictSize, 4);
  return h;
}

export function decodeLabels(buf: Uint8Array): Uint32Array {
  return new Uint32Array(aligned(buf, 0, COLUMN_BLOCK * 4));
}

export type ColumnDb = Database<Buffer, Buffer>;

/** Reads chunks in the current transaction. */
export class ColumnReader {
  constructor(protected readonly db: ColumnDb) {}

  labels(block: number): Uint32Array | null {
    const buf = this.db.getBinary(columnKey(LABEL_COLUMN, block));
    return buf === undefined ? null : decodeLabels(buf);
  }

  chunk(propertyId: number, block: number): ColumnChunk | null {
    const buf = this.db.getBinary(columnKey(propertyId, block));
    return buf === undefined ? null : decodeChunk(buf);
  }

  /** Blocks that hold at least one node, ascending, with their label chunks. */
  *labelBlocks(): Generator<{ block: number; labels: Uint32Array }> {
    const range = { start: columnKey(LABEL_COLUMN, 0), end: columnKey(LABEL_COLUMN + 1, 0) };
    for (const { key, value } of this.db.getRange(range)) {
      yield { block: readU64(key, 4), labels: decodeLabels(value) };
    }
  }
}

/**
 * A write batch's column edits: chunks are loaded on first touch, edited in memory and
 * written once by `flush` (at the end of the batch, or before the batch reads columns).
 */
export class ColumnEdits {
  private readonly props = new Map<string, { propertyId: number; block: number; slots: (Value | undefined)[] }>();
  /** Label chunks read or edited by this batch; `dirty` ones are written by flush. */
  private readonly labelChunks = new Map<number, { labels: Uint32Array; dirty: boolean }>();

  constructor(
    private readonly db: ColumnDb,
    private readonly reader: ColumnReader,
  ) {}

  private labelChunk(id: number): { labels: Uint32Array; dirty: boolean } {
    const block = Math.floor(id / COLUMN_BLOCK);
    let chunk = this.labelChunks.get(block);
    if (chunk === undefined) {
      chunk = { labels: this.reader.labels(block) ?? new Uint32Array(COLUMN_BLOCK), dirty: false };
      this.labelChunks.set(block, chunk);
    }
    return chunk;
  }

  /**
   * The label id of a node as this batch sees it (0: no such node). Batches that connect
   * thousands of nodes check each endpoint; a label chunk answers a thousand of them.
   */
  labelOf(id: number): number {
    return this.labelChunk(id).labels[id % COLUMN_BLOCK]!;
  }

  setLabel(id: number, labelId: number): void {
    const chunk = this.labelChunk(id);
    chunk.labels[id % COLUMN_BLOCK] = labelId;
    chunk.dirty = true;
  }

  /** Sets (or with undefined, clears) one node's value of one property. */
  set(propertyId: number, id: number, value: Value | undefined): void {
    const block = Math.floor(id / COLUMN_BLOCK);
    const key = `${propertyId}:${block}`;
    let entry = this.props.get(key);
    if (entry === undefined) {
      const stored = this.reader.chunk(propertyId, block);
      const slots: (Value | undefined)[] = new Array(COLUMN_BLOCK);
      if (stored !== null) for (let i = 0; i < stored.n; i++) slots[i] = chunkValue(stored, i);
      entry = { propertyId, block, slots };
      this.props.set(key, entry);
    }
    entry.slots[id % COLUMN_BLOCK] = value;
  }

  /** Writes every edited chunk (deleting empty ones) and forgets the edits. */
  flush(): void {
    for (const [block, { labels, dirty }] of this.labelChunks) {
      if (!dirty) continue;
      const key = columnKey(LABEL_COLUMN, block);
      if (labels.some((l) => l !== 0)) this.db.putSync(key, Buffer.from(labels.buffer, labels.byteOffset, labels.byteLength));
      else this.db.removeSync(key);
    }
    for (const { propertyId, block, slots } of this.props.values()) {
      const key = columnKey(propertyId, block);
      const bytes = encodeChunk(slots);
      if (bytes === null) this.db.removeSync(key);
      else this.db.putSync(key, bytes);
    }
    this.labelChunks.clear();
    this.props.clear();
  }
}
