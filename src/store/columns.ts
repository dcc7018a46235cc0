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
 * Node runs): a 16-byte header [kind: u8, 0, n: u16, dictSize: u32, version: f64], then
 * - num: presence bitmap (128 bytes), integer bitmap (128), f64 x n. Every value is a
 *   number, or an i64 within +-2^53 (its integer bit set), so f64 holds it exactly.
 * - str: presence bitmap, u16 codes x n (padded to 8 bytes), the UTF-16 length of each
 *   dictionary string (u32 x dictSize), then the dictionary joined, as UTF-8.
 * - gen: presence bitmap, then the msgpack array of the n values (null where absent).
 * - label: u32 x 1024.
 *
 * `version` is the id of the write transaction that wrote the chunk. Committed transaction
 * ids only grow, so (key, version) names one content forever, and a reader keeps decoded
 * chunks in a cache (ChunkCache) that it checks against the version in the stored header.
 */
import type { Value } from '../core/value.js';
import { packStored, storePackr } from './codec.js';
import { columnKey, readU64 } from './keys.js';
import { COLUMN_BLOCK, LABEL_COLUMN, META, type ColumnDb, type MetaDb } from './layout.js';

const packr = storePackr;

const KIND_NUM = 1;
const KIND_STR = 2;
const KIND_GEN = 3;
const KIND_LABEL = 4;
const HEADER = 16;
const BITMAP = COLUMN_BLOCK / 8;
const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

interface ChunkBase {
  readonly n: number;
  readonly present: Uint8Array;
  /** Every slot below n holds a value (no need to test `present`). */
  readonly dense: boolean;
}
export interface NumChunk extends ChunkBase {
  readonly kind: 'num';
  /** Smallest and largest present value other than NaN (a zone map: scans skip chunks by it). */
  readonly min: number;
  readonly max: number;
  readonly hasNaN: boolean;
  readonly isInt: Uint8Array;
  readonly values: Float64Array;
}
export interface StrChunk extends ChunkBase {
  readonly kind: 'str';
  readonly codes: Uint16Array;
  readonly dict: readonly string[];
}
export interface GenChunk extends ChunkBase {
  readonly kind: 'gen';
  readonly values: readonly Value[];
}
export type ColumnChunk = NumChunk | StrChunk | GenChunk;

/** A decoded label chunk. */
export interface LabelChunk {
  /** Label id per slot; 0 where there is no node. */
  readonly labels: Uint32Array;
  /** 1 where the slot holds a node, else 0. */
  readonly nodes: Uint8Array;
  /** The label of every node of the block when they share one, else 0. */
  readonly uniform: number;
}

/** One block of nodes as a scan sees it. */
export interface ColumnBlock extends LabelChunk {
  /** Id of slot 0. */
  readonly base: number;
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

function isDense(present: Uint8Array, n: number): boolean {
  for (let i = 0; i < n >> 3; i++) if (present[i] !== 0xff) return false;
  for (let i = n & ~7; i < n; i++) if (!bit(present, i)) return false;
  return true;
}

/** Decodes a chunk into memory of its own (the input may be a buffer lmdb-js reuses). */
export function decodeChunk(buf: Uint8Array): ColumnChunk {
  const b = buf as Buffer;
  const kind = b[0];
  const n = b.readUInt16LE(2);
  const present = Uint8Array.prototype.slice.call(b, HEADER, HEADER + BITMAP);
  const dense = isDense(present, n);
  if (kind === KIND_NUM) {
    const isInt = Uint8Array.prototype.slice.call(b, HEADER + BITMAP, HEADER + 2 * BITMAP);
    const values = new Float64Array(aligned(b, HEADER + 2 * BITMAP, n * 8));
    let min = Infinity;
    let max = -Infinity;
    let hasNaN = false;
    for (let i = 0; i < n; i++) {
      if (!dense && !bit(present, i)) continue;
      const v = values[i]!;
      if (v !== v) hasNaN = true;
      else {
        if (v < min) min = v;
        if (v > max) max = v;
      }
    }
    return { kind: 'num', n, present, dense, isInt, values, min, max, hasNaN };
  }
  if (kind === KIND_STR) {
    const codes = new Uint16Array(aligned(b, HEADER + BITMAP, n * 2));
    const size = b.readUInt32LE(4);
    const lengthsAt = HEADER + BITMAP + pad8(n * 2);
    const lengths = new Uint32Array(aligned(b, lengthsAt, size * 4));
    // One decode of the joined dictionary, then slices by the stored UTF-16 lengths.
    const joined = b.toString('utf8', lengthsAt + size * 4, b.length);
    const dict: string[] = new Array(size);
    for (let i = 0, at = 0; i < size; i++) {
      dict[i] = joined.slice(at, at + lengths[i]!);
      at += lengths[i]!;
    }
    return { kind: 'str', n, present, dense, codes, dict };
  }
  // `length`, not `byteLength`: a reused lmdb-js buffer is longer than the value it holds.
  if (kind === KIND_GEN) return { kind: 'gen', n, present, dense, values: packr.unpack(b.subarray(HEADER + BITMAP, b.length)) as Value[] };
  throw new Error(`storage: unknown column chunk kind ${kind}`);
}

/** The version in a stored chunk's header. */
const versionOf = (buf: Buffer) => buf.readDoubleLE(8);

const pad8 = (n: number) => (n + 7) & ~7;

/** Whether the first present strings of a chunk are nearly all different (sampled). */
function mostlyDistinct(slots: readonly (string | undefined)[], n: number): boolean {
  const seen = new Set<string>();
  let sampled = 0;
  for (let i = 0; i < n && sampled < 64; i++) {
    const v = slots[i];
    if (v === undefined) continue;
    seen.add(v);
    sampled++;
  }
  return sampled >= 16 && seen.size > sampled * 0.75;
}
const isNum = (v: Value): boolean => typeof v === 'number' || (typeof v === 'bigint' && v >= -SAFE && v <= SAFE);

/** Encodes a block's slots (undefined: absent); null when no slot has a value. */
export function encodeChunk(slots: readonly (Value | undefined)[], version = 0): Buffer | null {
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
    return numChunk(n, present, isInt, values, version);
  }
  if (str) {
    const codes = new Uint16Array(pad8(n * 2) / 2);
    const dict: string[] = [];
    if (mostlyDistinct(slots as readonly (string | undefined)[], n)) {
      // Names, ids, emails: deduplicating would cost more than it saves; one entry per slot.
      for (let i = 0; i < n; i++) {
        const v = slots[i] as string | undefined;
        if (v === undefined) continue;
        codes[i] = dict.length;
        dict.push(v);
      }
    } else {
      const index = new Map<string, number>();
      for (let i = 0; i < n; i++) {
        const v = slots[i] as string | undefined;
        if (v === undefined) continue;
        let code = index.get(v);
        if (code === undefined) {
          code = dict.length;
          index.set(v, code);
          dict.push(v);
        }
        codes[i] = code;
      }
    }
    // A chunk has at most 1024 strings, so u16 codes always suffice. The dictionary is
    // stored joined, with each string's UTF-16 length, so both ways are one encoding call
    // rather than one per string.
    const lengths = new Uint32Array(dict.length);
    for (let i = 0; i < dict.length; i++) lengths[i] = dict[i]!.length;
    const text = Buffer.from(dict.join(''), 'utf8');
    return Buffer.concat([
      header(KIND_STR, n, dict.length, version),
      present,
      new Uint8Array(codes.buffer),
      new Uint8Array(lengths.buffer),
      text,
    ]);
  }
  const values = Array.from({ length: n }, (_, i) => slots[i] ?? null);
  return Buffer.concat([header(KIND_GEN, n, 0, version), present, packStored(values)]);
}

function numChunk(n: number, present: Uint8Array, isInt: Uint8Array, values: Float64Array, version: number): Buffer {
  return Buffer.concat([header(KIND_NUM, n, 0, version), present, isInt, new Uint8Array(values.buffer, values.byteOffset, n * 8)]);
}

/**
 * The chunk of slots [from, from + count) of a numeric column held as doubles (a bulk
 * load's: bulk-build.ts), without a Value per slot: `present[i]` 0 marks an absent slot
 * (null: every slot present), and `ints` says the values are i64 within ±2^53, else f64.
 * The same bytes encodeChunk makes of the same values; null when no slot has one.
 */
export function encodeNumberChunk(
  values: Float64Array,
  present: Uint8Array | null,
  ints: boolean,
  from: number,
  count: number,
  version: number,
): Buffer | null {
  let n = 0;
  for (let i = count - 1; i >= 0; i--) {
    if (present === null || present[from + i] !== 0) {
      n = i + 1;
      break;
    }
  }
  if (n === 0) return null;
  const presentBits = new Uint8Array(BITMAP);
  const isInt = new Uint8Array(BITMAP);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    if (present !== null && present[from + i] === 0) continue;
    setBit(presentBits, i);
    if (ints) setBit(isInt, i);
    // An i64 -0 does not exist: the integer zero is stored as 0.
    out[i] = ints ? values[from + i]! + 0 : values[from + i]!;
  }
  return numChunk(n, presentBits, isInt, out, version);
}

function header(kind: number, n: number, dictSize: number, version: number): Buffer {
  const h = Buffer.alloc(HEADER);
  h[0] = kind;
  h.writeUInt16LE(n, 2);
  h.writeUInt32LE(dictSize, 4);
  h.writeDoubleLE(version, 8);
  return h;
}

export function encodeLabels(labels: Uint32Array, version: number): Buffer {
  return Buffer.concat([header(KIND_LABEL, COLUMN_BLOCK, 0, version), new Uint8Array(labels.buffer, labels.byteOffset, labels.byteLength)]);
}

export function decodeLabels(buf: Uint8Array): Uint32Array {
  return new Uint32Array(aligned(buf, HEADER, COLUMN_BLOCK * 4));
}

function decodeLabelChunk(buf: Uint8Array): LabelChunk {
  const labels = decodeLabels(buf);
  const nodes = new Uint8Array(COLUMN_BLOCK);
  let uniform = -1;
  for (let i = 0; i < COLUMN_BLOCK; i++) {
    const l = labels[i]!;
    if (l === 0) continue;
    nodes[i] = 1;
    uniform = uniform === -1 || uniform === l ? l : 0;
  }
  return { labels, nodes, uniform: Math.max(uniform, 0) };
}

interface CacheEntry {
  /** Version of the stored chunk; -1 for a chunk that does not exist. */
  version: number;
  /** The columns generation at which this entry was last known current. */
  validated: number;
  readonly chunk: ColumnChunk | LabelChunk | null;
  readonly bytes: number;
}

/**
 * Decoded chunks of one reader thread. An entry is known current for the columns
 * generation (the id of the last transaction that wrote any chunk) at which it was last
 * checked, so while no column changes a scan reads no chunk at all; after a change each
 * chunk is checked once against the version in its stored header. Bounded by an
 * approximate byte budget, oldest first out.
 */
export class ChunkCache {
  private readonly entries = new Map<string, CacheEntry>();
  private bytes = 0;
  /** Facts derived from the columns (ColumnReader.fact; the list of blocks is one), as of a generation. */
  facts: { readonly generation: number; readonly values: Map<string, unknown>; bytes: number } | null = null;

  constructor(private readonly budget: number) {}

  get<T extends ColumnChunk | LabelChunk>(
    key: string,
    generation: number,
    read: () => Buffer | undefined,
    decode: (b: Buffer) => T,
  ): T | null {
    const hit = this.entries.get(key);
    if (hit !== undefined && hit.validated === generation) return hit.chunk as T | null;
    const stored = read();
    const version = stored === undefined ? -1 : versionOf(stored);
    if (hit !== undefined && hit.version === version) {
      hit.validated = generation;
      return hit.chunk as T | null;
    }
    const chunk = stored === undefined ? null : decode(stored);
    if (hit !== undefined) this.drop(key, hit.bytes);
    const bytes = 64 + (stored === undefined ? 0 : stored.length * 2);
    this.entries.set(key, { version, validated: generation, chunk, bytes });
    this.bytes += bytes;
    for (const [oldest, entry] of this.entries) {
      if (this.bytes <= this.budget) break;
      this.drop(oldest, entry.bytes);
    }
    return chunk;
  }

  private drop(key: string, bytes: number): void {
    this.entries.delete(key);
    this.bytes -= bytes;
  }
}

/** Column facts a reader thread keeps at most (ColumnReader.fact). */
const FACTS_KEPT = 256;
/**
 * The memory the weighed facts of a reader thread may hold (a `_within` search's candidate
 * sets, search.ts): 8 bytes an id, so about four million candidate ids.
 */
export const FACT_BYTES = 32 * 1024 * 1024;
/** The fact key of the list of blocks; a key of GraphReader.columnsFact names its user, this cannot clash. */
const BLOCKS_FACT = '\0blocks';

/** Reads chunks in the current transaction, through the thread's cache when it has one. */
export class ColumnReader {
  constructor(
    protected readonly db: ColumnDb,
    private readonly meta: MetaDb,
    private readonly cache: ChunkCache | null,
  ) {}

  /** The columns generation of the current transaction (see ChunkCache). */
  generation(): number {
    return this.meta.get(META.columnsGeneration) ?? 0;
  }

  labels(block: number, generation: number): LabelChunk | null {
    const key = columnKey(LABEL_COLUMN, block);
    if (this.cache === null) {
      const buf = this.db.getBinary(key);
      return buf === undefined ? null : decodeLabelChunk(buf);
    }
    return this.cache.get(`0:${block}`, generation, () => this.db.getBinaryFast(key), decodeLabelChunk);
  }

  chunk(propertyId: number, block: number, generation: number): ColumnChunk | null {
    const key = columnKey(propertyId, block);
    if (this.cache === null) {
      const buf = this.db.getBinary(key);
      return buf === undefined ? null : decodeChunk(buf);
    }
    return this.cache.get(`${propertyId}:${block}`, generation, () => this.db.getBinaryFast(key), decodeChunk);
  }

  /** Blocks that hold at least one node, ascending. */
  blocks(generation: number): readonly number[] {
    return this.fact(BLOCKS_FACT, generation, () => {
      const list: number[] = [];
      const range = { start: columnKey(LABEL_COLUMN, 0), end: columnKey(LABEL_COLUMN + 1, 0) };
      for (const key of this.db.getKeys(range)) list.push(readU64(key, 4));
      return list;
    });
  }

  /**
   * A fact `make` derives from the columns, named by `key`, made once per generation when
   * the thread caches chunks (a reader), every time otherwise (a write batch, which sees
   * its own writes). At most FACTS_KEPT are kept: a query shape brings its own keys. A fact
   * with a `weigh` counts its bytes against FACT_BYTES; one larger than that is not kept.
   */
  fact<T>(key: string, generation: number, make: () => T, weigh?: (value: T) => number): T {
    if (this.cache === null) return make();
    let facts = this.cache.facts;
    if (facts?.generation !== generation) facts = this.cache.facts = { generation, values: new Map(), bytes: 0 };
    if (facts.values.has(key)) return facts.values.get(key) as T;
    const value = make();
    const bytes = weigh === undefined ? 0 : weigh(value);
    if (bytes > FACT_BYTES) return value;
    if (facts.values.size >= FACTS_KEPT || facts.bytes + bytes > FACT_BYTES) {
      facts.values.clear();
      facts.bytes = 0;
    }
    facts.values.set(key, value);
    facts.bytes += bytes;
    return value;
  }

  /** The blocks holding nodes from block `from` on, with their label chunks, ascending. */
  *labelBlocks(from = 0): Generator<{ block: number; labels: LabelChunk }> {
    const generation = this.generation();
    for (const block of this.blocks(generation)) if (block >= from) yield { block, labels: this.labels(block, generation)! };
  }
}

/**
 * The writer's decoded chunks: a batch that edits a chunk copies it from here instead of
 * decoding it, when the entry is of the version stored in the current transaction. Every
 * flush caches what it wrote under its new version; if that batch rolls back, the stored
 * chunk keeps its old version and the entry simply never matches again.
 */
export class SlotCache {
  private readonly entries = new Map<
    string,
    { readonly version: number; readonly slots: readonly (Value | undefined)[]; readonly bytes: number }
  >();
  private bytes = 0;

  /**
   * `budget`: the bytes it keeps at most, each chunk counted as 64 plus twice its encoded
   * size. Counting chunks instead let a column of large values (a vector property: about
   * 1.2 MB a chunk at 128 dimensions) keep gigabytes: every chunk a load wrote stayed.
   */
  constructor(private readonly budget: number) {}

  /** A copy of the cached slots if they are those of `version`. */
  take(key: string, version: number): (Value | undefined)[] | undefined {
    const hit = this.entries.get(key);
    return hit !== undefined && hit.version === version ? hit.slots.slice() : undefined;
  }

  clear(): void {
    this.entries.clear();
    this.bytes = 0;
  }

  /** Keeps the slots of a chunk just written as `encoded` bytes, the least recently written going first. */
  put(key: string, version: number, slots: readonly (Value | undefined)[], encoded: number): void {
    this.drop(key);
    const bytes = 64 + 2 * encoded;
    if (bytes > this.budget) return;
    this.entries.set(key, { version, slots, bytes });
    this.bytes += bytes;
    for (const oldest of this.entries.keys()) {
      if (this.bytes <= this.budget) break;
      this.drop(oldest);
    }
  }

  private drop(key: string): void {
    const old = this.entries.get(key);
    if (old === undefined) return;
    this.entries.delete(key);
    this.bytes -= old.bytes;
  }
}

/** Label chunks of node ids below 64M are also kept in an array indexed by block. */
const LISTED_BLOCKS = 65536;

/**
 * A write batch's column edits: chunks are loaded on first touch, edited in memory and
 * written once by `flush` (at the end of the batch, or before the batch reads columns).
 */
export class ColumnEdits {
  private readonly props = new Map<string, { propertyId: number; block: number; slots: (Value | undefined)[] }>();
  /** Per property id, the chunk edited last: consecutive nodes share one. */
  private readonly lastChunk = new Map<number, { block: number; slots: (Value | undefined)[] }>();
  /** Label chunks read or edited by this batch; `dirty` ones are written by flush. */
  private readonly labelChunks = new Map<number, { labels: Uint32Array; dirty: boolean }>();
  /** The same chunks by block number, for the first LISTED_BLOCKS blocks. */
  private readonly labelChunkList: ({ labels: Uint32Array; dirty: boolean } | undefined)[] = [];

  constructor(
    private readonly db: ColumnDb,
    private readonly meta: MetaDb,
    private readonly reader: ColumnReader,
    private readonly cache: SlotCache,
    /** A version no chunk has had: every flush writes its chunks under a new one. */
    private readonly newVersion: () => number,
  ) {}

  private labelChunk(id: number): { labels: Uint32Array; dirty: boolean } {
    const block = Math.floor(id / COLUMN_BLOCK);
    // Loads check both endpoints of every edge: an array index is cheaper than a Map lookup.
    const listed = block < LISTED_BLOCKS ? this.labelChunkList[block] : undefined;
    if (listed !== undefined) return listed;
    let chunk = this.labelChunks.get(block);
    if (chunk === undefined) {
      chunk = { labels: this.reader.labels(block, 0)?.labels ?? new Uint32Array(COLUMN_BLOCK), dirty: false };
      this.labelChunks.set(block, chunk);
    }
    if (block < LISTED_BLOCKS) this.labelChunkList[block] = chunk;
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
    const last = this.lastChunk.get(propertyId);
    if (last !== undefined && last.block === block) {
      last.slots[id % COLUMN_BLOCK] = value;
      return;
    }
    const key = `${propertyId}:${block}`;
    let entry = this.props.get(key);
    if (entry === undefined) {
      entry = { propertyId, block, slots: this.load(key, columnKey(propertyId, block)) };
      this.props.set(key, entry);
    }
    this.lastChunk.set(propertyId, entry);
    entry.slots[id % COLUMN_BLOCK] = value;
  }

  /** A chunk's slots, from the slot cache when it holds the stored version. */
  private load(key: string, dbKey: Buffer): (Value | undefined)[] {
    const stored = this.db.getBinaryFast(dbKey);
    if (stored === undefined) return new Array(COLUMN_BLOCK);
    const cached = this.cache.take(key, versionOf(stored));
    if (cached !== undefined) return cached;
    const chunk = decodeChunk(stored);
    const slots: (Value | undefined)[] = new Array(COLUMN_BLOCK);
    for (let i = 0; i < chunk.n; i++) slots[i] = chunkValue(chunk, i);
    return slots;
  }

  /** Writes every edited chunk (deleting empty ones) and forgets the edits. */
  flush(): void {
    if (this.props.size === 0 && ![...this.labelChunks.values()].some((c) => c.dirty)) return;
    const version = this.newVersion();
    this.meta.putSync(META.columnsGeneration, version);
    for (const [block, chunk] of this.labelChunks) {
      if (!chunk.dirty) continue;
      chunk.dirty = false;
      const key = columnKey(LABEL_COLUMN, block);
      if (chunk.labels.some((l) => l !== 0)) this.db.putSync(key, encodeLabels(chunk.labels, version));
      else this.db.removeSync(key);
    }
    for (const [cacheKey, { propertyId, block, slots }] of this.props) {
      const key = columnKey(propertyId, block);
      const bytes = encodeChunk(slots, version);
      if (bytes === null) this.db.removeSync(key);
      else this.db.putSync(key, bytes);
      this.cache.put(cacheKey, version, slots, bytes?.length ?? 0);
    }
    this.props.clear();
    this.lastChunk.clear();
  }
}
