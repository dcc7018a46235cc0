/**
 * The records of one HNSW index (src/search/hnsw.ts) in an LMDB sub-database opened with
 * HNSW_DB_OPTIONS (binary keys and values). Several indexes share the sub-database:
 *
 * - `[indexId u32 BE][elementId u64 BE]` → the element's record;
 * - `[indexId u32 BE]` → the entry point (f64 id, u32 level, little-endian); 4 bytes, so it sorts
 *   before every record of its index.
 *
 * Record value, platform byte order (like the store's other binary values, scratch.ts),
 * laid out so a copy of it is read through typed-array views without parsing:
 *
 *   u32 [format u8 | flags u8 (bit 0: tombstone) | level u16], u32 dimension,
 *   f32 x dimension, padding to 8 bytes,
 *   u32 x 2(level + 1): per level, the neighbour count then the inbound count,
 *   f64 ids: per level, the neighbours then the inbound ids.
 *
 * Calls run in whatever transaction is current, as in graph.ts: the write transaction of a
 * batch, otherwise the thread's read snapshot. Nothing is cached between calls, so a
 * record is never served from an older snapshot than the one being read.
 */
import type { HnswRecord, HnswStorage } from '../search/hnsw.js';
import { readU64, writeU64 } from './keys.js';
import { scratch } from './scratch.js';
import type { HnswDb } from './layout.js';

/** How the store opens the sub-database of HNSW records. */
export const HNSW_DB_OPTIONS = { keyEncoding: 'binary', encoding: 'binary' } as const;

const FORMAT = 1;
const TOMBSTONE = 1;
const HEADER = 8;
const MAX_STORED_LEVEL = 0xffff;
const MAX_INDEX_ID = 0xffffffff;

const align8 = (n: number): number => (n + 7) & ~7;

/**
 * Records read are copied into shared slabs, 8-byte aligned, instead of a buffer each: a
 * typed array of a record's size gets memory outside the JavaScript heap, which cost about
 * 1 µs per record, most of a search's time. A slab lives while any record carved from it
 * does; records live for one operation.
 */
const SLAB_BYTES = 256 * 1024;

class Slab {
  readonly bytes: Uint8Array;
  readonly words: Uint32Array;
  readonly doubles: Float64Array;
  used = 0;

  constructor(readonly buffer: ArrayBuffer) {
    this.bytes = new Uint8Array(buffer);
    this.words = new Uint32Array(buffer);
    this.doubles = new Float64Array(buffer);
  }
}

/** Uninitialised memory: every byte of it a record uses is copied in first. */
const newSlab = (size: number): Slab => new Slab(Buffer.allocUnsafeSlow(size).buffer as ArrayBuffer);

let slab = newSlab(SLAB_BYTES);

/** A slab with `size` free bytes at its `used` offset. */
function slabFor(size: number): Slab {
  if (slab.used + size > slab.bytes.length) slab = newSlab(Math.max(SLAB_BYTES, align8(size)));
  return slab;
}

/**
 * A record read from LMDB: a private copy of the value, with the vector a view of it.
 * The id lists are decoded the first time they are read: a search reads the vectors of
 * most elements it reaches and the links of few, and the inbound lists of none.
 */
class StoredRecord implements HnswRecord {
  level: number;
  deleted: boolean;
  vector: Float32Array;
  private links: number[][] | undefined;
  private from: number[][] | undefined;

  constructor(
    private readonly slab: Slab,
    /** Where the copy starts in the slab, and its size. */
    private readonly at: number,
    readonly size: number,
  ) {
    const bytes = slab.bytes;
    this.level = bytes[at + 2]! | (bytes[at + 3]! << 8);
    this.deleted = (bytes[at + 1]! & TOMBSTONE) !== 0;
    this.vector = new Float32Array(slab.buffer, at + HEADER, slab.words[(at + 4) >> 2]!);
  }

  /** The stored bytes. */
  raw(): Uint8Array {
    return this.slab.bytes.subarray(this.at, this.at + this.size);
  }

  get neighbours(): number[][] {
    return (this.links ??= this.decode(0));
  }

  set neighbours(lists: number[][]) {
    this.links = lists;
  }

  get inbound(): number[][] {
    return (this.from ??= this.decode(1));
  }

  set inbound(lists: number[][]) {
    this.from = lists;
  }

  /** Nothing but the tombstone flag can differ from the stored bytes. */
  untouched(): boolean {
    const bytes = this.slab.bytes;
    return (
      this.links === undefined &&
      this.from === undefined &&
      this.level === (bytes[this.at + 2]! | (bytes[this.at + 3]! << 8)) &&
      this.vector.buffer === this.slab.buffer &&
      this.vector.byteOffset === this.at + HEADER
    );
  }

  /** The neighbour (0) or inbound (1) lists. */
  private decode(which: 0 | 1): number[][] {
    const levels = this.level + 1;
    const countsAt = (this.at + align8(HEADER + 4 * this.vector.length)) >> 2;
    const words = this.slab.words;
    const ids = this.slab.doubles;
    let at = (countsAt >> 1) + levels;
    const out: number[][] = [];
    for (let l = 0; l < levels; l++) {
      for (let k = 0; k < 2; k++) {
        const n = words[countsAt + 2 * l + k]!;
        if (k === which) {
          const list: number[] = new Array<number>(n);
          for (let i = 0; i < n; i++) list[i] = ids[at + i]!;
          out.push(list);
        }
        at += n;
      }
    }
    return out;
  }
}

function decodeRecord(value: Uint8Array): StoredRecord {
  // lmdb-js reuses the buffer of getBinaryFast, and sets its `length` to the value's size
  // over a larger array, which TypedArray methods do not see: copy exactly that size.
  const size = value.length;
  if (value[0] !== FORMAT) throw new Error(`hnsw record of unknown format ${value[0]}`);
  const s = slabFor(size);
  const at = s.used;
  s.bytes.set(value.subarray(0, size), at);
  s.used = align8(at + size);
  return new StoredRecord(s, at, size);
}

function encodeRecord(r: HnswRecord): Buffer {
  if (r instanceof StoredRecord && r.untouched()) {
    // A tombstone flips one bit: copy the stored bytes.
    const s = scratch(r.size);
    s.bytes.set(r.raw());
    s.bytes[1] = r.deleted ? TOMBSTONE : 0;
    return s.bytes.subarray(0, r.size);
  }
  const { level, vector, neighbours, inbound } = r;
  if (!Number.isInteger(level) || level < 0 || level > MAX_STORED_LEVEL) throw new Error(`hnsw record level ${level} out of range`);
  const levels = level + 1;
  const countsAt = align8(HEADER + 4 * vector.length);
  const idsAt = countsAt + 8 * levels;
  let total = 0;
  for (let l = 0; l < levels; l++) total += neighbours[l]!.length + inbound[l]!.length;
  const size = idsAt + 8 * total;
  const s = scratch(size);
  const bytes = s.bytes;
  bytes[0] = FORMAT;
  bytes[1] = r.deleted ? TOMBSTONE : 0;
  bytes[2] = level & 0xff;
  bytes[3] = level >> 8;
  s.words[1] = vector.length;
  new Float32Array(bytes.buffer, bytes.byteOffset + HEADER, vector.length).set(vector);
  if (countsAt > HEADER + 4 * vector.length) s.words[(countsAt >> 2) - 1] = 0;
  const words = s.words;
  const doubles = s.doubles;
  let at = idsAt >> 3;
  for (let l = 0; l < levels; l++) {
    const links = neighbours[l]!;
    const from = inbound[l]!;
    words[(countsAt >> 2) + 2 * l] = links.length;
    words[(countsAt >> 2) + 2 * l + 1] = from.length;
    for (let i = 0; i < links.length; i++) doubles[at++] = links[i]!;
    for (let i = 0; i < from.length; i++) doubles[at++] = from[i]!;
  }
  return bytes.subarray(0, size);
}

function indexKey(indexId: number): Buffer {
  if (!Number.isInteger(indexId) || indexId < 0 || indexId > MAX_INDEX_ID) throw new Error(`hnsw index id ${indexId} out of range`);
  const key = Buffer.allocUnsafe(4);
  key.writeUInt32BE(indexId, 0);
  return key;
}

/** Every key of an index, its entry point's first: [indexId] up to [indexId + 1]. */
function indexRange(indexId: number): { start: Buffer; end?: Buffer } {
  return indexId === MAX_INDEX_ID ? { start: indexKey(indexId) } : { start: indexKey(indexId), end: indexKey(indexId + 1) };
}

const RECORD_KEY = 12;

/** HnswStorage over the records of index `indexId`. */
export class HnswRecords implements HnswStorage {
  private readonly entryKey: Buffer;
  /** Key of a single get, put or remove: lmdb-js copies a key before the call returns. */
  private readonly key = Buffer.allocUnsafe(RECORD_KEY);

  constructor(
    private readonly db: HnswDb,
    readonly indexId: number,
  ) {
    this.entryKey = indexKey(indexId);
    this.entryKey.copy(this.key, 0);
  }

  private keyOf(id: number): Buffer {
    writeU64(this.key, 4, id);
    return this.key;
  }

  get(id: number): HnswRecord | undefined {
    const value = this.db.getBinaryFast(this.keyOf(id));
    return value === undefined ? undefined : decodeRecord(value);
  }

  put(id: number, record: HnswRecord): void {
    this.db.putSync(this.keyOf(id), encodeRecord(record));
  }

  remove(id: number): void {
    this.db.removeSync(this.keyOf(id));
  }

  entry(): { id: number; level: number } | undefined {
    const value = this.db.getBinaryFast(this.entryKey);
    return value === undefined ? undefined : { id: value.readDoubleLE(0), level: value.readUInt32LE(8) };
  }

  setEntry(entry: { id: number; level: number } | undefined): void {
    if (entry === undefined) {
      this.db.removeSync(this.entryKey);
      return;
    }
    const value = Buffer.allocUnsafe(12);
    value.writeDoubleLE(entry.id, 0);
    value.writeUInt32LE(entry.level, 8);
    this.db.putSync(this.entryKey, value);
  }

  *ids(): Generator<number> {
    for (const key of this.db.getKeys(indexRange(this.indexId))) {
      if (key.length === RECORD_KEY) yield readU64(key, 4);
    }
  }

  /** How many elements index `indexId` holds (tombstones included). */
  static count(db: HnswDb, indexId: number): number {
    let n = 0;
    for (const key of db.getKeys(indexRange(indexId))) if (key.length === RECORD_KEY) n++;
    return n;
  }

  /** Deletes every key of index `indexId` (dropping the index), or the first `limit`; returns how many. */
  static drop(db: HnswDb, indexId: number, limit = Infinity): number {
    const keys: Buffer[] = [];
    for (const key of db.getKeys({ ...indexRange(indexId), ...(limit === Infinity ? {} : { limit }) })) keys.push(Buffer.from(key));
    for (const key of keys) db.removeSync(key);
    return keys.length;
  }
}
