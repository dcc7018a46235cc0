/**
 * Edge records, 256 consecutive edge ids per LMDB value: a batch that creates thousands
 * of edges writes a few blocks instead of a key per edge. A point read decodes one slot.
 *
 * Block value (little-endian): [u32 256, u32 0], labels u32 x 256 (0: no edge), from f64 x
 * 256, to f64 x 256, property byte lengths u32 x 256, then the msgpack property maps of the
 * slots in order (an edge without properties has length 0).
 */
import { endianness } from 'node:os';
import type { ValueObject } from '../core/value.js';
import { packStored, storePackr } from './codec.js';
import { scratch } from './scratch.js';
import { idKey as rangeStart, readU64, scratchIdKey as idKey } from './keys.js';
import { EDGE_BLOCK, type EdgeDb } from './layout.js';

const packr = storePackr;

const LABELS = 8;
const FROM = LABELS + 4 * EDGE_BLOCK;
const TO = FROM + 8 * EDGE_BLOCK;
const LENS = TO + 8 * EDGE_BLOCK;
const PROPS = LENS + 4 * EDGE_BLOCK;

/** An edge as stored: label id, endpoints, properties. */
export interface StoredEdge {
  readonly labelId: number;
  readonly from: number;
  readonly to: number;
  readonly props: ValueObject;
}

/**
 * A block decoded for editing. Property maps live in one growing arena (slot i's bytes at
 * propsAt[i], propsLen[i] long), so a batch that adds thousands of edges allocates per
 * block, not per edge; bytes a slot no longer uses are dropped when the block is encoded.
 */
interface Block {
  readonly labels: Uint32Array;
  readonly from: Float64Array;
  readonly to: Float64Array;
  readonly propsAt: Uint32Array;
  readonly propsLen: Uint32Array;
  arena: Buffer;
  used: number;
}

const EMPTY_PROPS = new Uint8Array(0);

export function encodeProps(props: ValueObject): Uint8Array {
  const end = encodeFlatInto(SCRATCH, 0, props);
  if (end === 0) return EMPTY_PROPS;
  return end > 0 ? Uint8Array.prototype.slice.call(SCRATCH, 0, end) : packStored(props);
}

const SCRATCH = Buffer.allocUnsafe(16 * 1024);
const I64_LIMIT = 1n << 63n;

/** Writes a msgpack string into `buf` at `at`; returns the end, or -1 when it does not fit. */
function writeString(value: string, at: number, buf: Buffer = SCRATCH): number {
  if (at + 3 + value.length * 3 > buf.length) return -1;
  const len = buf.write(value, at + 3, 'utf8');
  if (len <= 31) {
    buf[at] = 0xa0 | len;
    buf.copyWithin(at + 1, at + 3, at + 3 + len);
    return at + 1 + len;
  }
  if (len <= 0xff) {
    buf[at] = 0xd9;
    buf[at + 1] = len;
    buf.copyWithin(at + 2, at + 3, at + 3 + len);
    return at + 2 + len;
  }
  if (len > 0xffff) return -1;
  buf[at] = 0xda;
  buf.writeUInt16BE(len, at + 1);
  return at + 3 + len;
}

/** Encoded property names: edges of one kind repeat the same few. */
const KEYS = new Map<string, Buffer>();
const KEY_SCRATCH = Buffer.allocUnsafe(SCRATCH.length);

function writeKey(key: string, buf: Buffer, at: number): number {
  let bytes = KEYS.get(key);
  if (bytes === undefined) {
    const end = writeString(key, 0, KEY_SCRATCH);
    if (end < 0) return -1;
    bytes = Buffer.from(KEY_SCRATCH.subarray(0, end));
    if (KEYS.size < 1024) KEYS.set(key, bytes);
  }
  if (at + bytes.length > buf.length) return -1;
  // Names are short: a loop beats Buffer.copy's call overhead.
  for (let i = 0; i < bytes.length; i++) buf[at + i] = bytes[i]!;
  return at + bytes.length;
}

const SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/**
 * Edge properties are usually a few scalars (a weight, a date as a number, a tag): those
 * are written as msgpack directly into `buf` at `start`, in the forms storePackr reads back
 * as the same values (i64 as int64, f64 as float64), several times faster than the general
 * encoder, which takes everything else. Returns the end (`start` for no properties), or -1
 * when the map does not fit or the general encoder must do it.
 */
function encodeFlatInto(buf: Buffer, start: number, props: ValueObject): number {
  let n = 0;
  let at = start + 3;
  for (const key in props) {
    const v = props[key];
    n++;
    at = writeKey(key, buf, at);
    if (at < 0 || at + 16 > buf.length) return -1;
    switch (typeof v) {
      case 'bigint':
        if (v >= I64_LIMIT || v < -I64_LIMIT) return -1;
        buf[at] = 0xd3;
        if (v <= SAFE && v >= -SAFE) {
          // Two 32-bit halves of the two's complement, without BigInt arithmetic.
          const x = Number(v);
          const hi = Math.floor(x / 2 ** 32);
          buf.writeInt32BE(hi, at + 1);
          buf.writeUInt32BE(x - hi * 2 ** 32, at + 5);
        } else {
          buf.writeBigInt64BE(v, at + 1);
        }
        at += 9;
        break;
      case 'number':
        buf[at] = 0xcb;
        buf.writeDoubleBE(v, at + 1);
        at += 9;
        break;
      case 'string':
        at = writeString(v, at, buf);
        if (at < 0) return -1;
        break;
      case 'boolean':
        buf[at++] = v ? 0xc3 : 0xc2;
        break;
      default:
        if (v !== null) return -1;
        buf[at++] = 0xc0;
    }
  }
  if (n === 0) return start;
  if (n > 0xffff) return -1;
  buf[start] = 0xde;
  buf.writeUInt16BE(n, start + 1);
  return at;
}

function decodeProps(bytes: Uint8Array): ValueObject {
  return bytes.byteLength === 0 ? {} : (packr.unpack(bytes) as ValueObject);
}

/** The record in slot `slot` of a stored block, if the slot holds an edge. */
function readSlot(buf: Buffer, slot: number): StoredEdge | undefined {
  const labelId = buf.readUInt32LE(LABELS + 4 * slot);
  if (labelId === 0) return undefined;
  let offset = PROPS;
  for (let i = 0; i < slot; i++) offset += buf.readUInt32LE(LENS + 4 * i);
  const len = buf.readUInt32LE(LENS + 4 * slot);
  return {
    labelId,
    from: buf.readDoubleLE(FROM + 8 * slot),
    to: buf.readDoubleLE(TO + 8 * slot),
    props: decodeProps(buf.subarray(offset, offset + len)),
  };
}

/**
 * Memory for the blocks a batch edits, carved from 1 MiB slabs: a load edits thousands of
 * blocks, and an ArrayBuffer of its own for each (off-heap memory the garbage collector
 * accounts for one by one) cost more than filling the block. A slab lives as long as a
 * block cut from it; blocks live until their batch flushes.
 */
const SLAB = 1 << 20;
const FIXED_BYTES = EDGE_BLOCK * (8 + 8 + 4 + 4 + 4);
const ARENA_BYTES = 8192; // 256 edges of one i64 property (16 bytes each) with room to spare
let fixedSlab = new ArrayBuffer(SLAB); // zero-filled: fresh columns must read as empty slots
let fixedUsed = 0;
let arenaSlab = Buffer.allocUnsafeSlow(SLAB);
let arenaUsed = 0;

/** Arena bytes from the current slab; one too large for a slab gets its own buffer. */
function arenaOf(size: number): Buffer {
  if (size > SLAB / 4) return Buffer.allocUnsafe(size);
  if (arenaUsed + size > SLAB) {
    arenaSlab = Buffer.allocUnsafeSlow(SLAB);
    arenaUsed = 0;
  }
  const arena = arenaSlab.subarray(arenaUsed, arenaUsed + size);
  arenaUsed += size;
  return arena;
}

function emptyBlock(arenaBytes = ARENA_BYTES): Block {
  if (fixedUsed + FIXED_BYTES > SLAB) {
    fixedSlab = new ArrayBuffer(SLAB);
    fixedUsed = 0;
  }
  // Doubles first, at a multiple of 8 bytes (FIXED_BYTES is one), for alignment.
  const at = fixedUsed;
  fixedUsed += FIXED_BYTES;
  return {
    from: new Float64Array(fixedSlab, at, EDGE_BLOCK),
    to: new Float64Array(fixedSlab, at + EDGE_BLOCK * 8, EDGE_BLOCK),
    labels: new Uint32Array(fixedSlab, at + EDGE_BLOCK * 16, EDGE_BLOCK),
    propsAt: new Uint32Array(fixedSlab, at + EDGE_BLOCK * 20, EDGE_BLOCK),
    propsLen: new Uint32Array(fixedSlab, at + EDGE_BLOCK * 24, EDGE_BLOCK),
    arena: arenaOf(arenaBytes),
    used: 0,
  };
}

function decodeBlock(buf: Buffer): Block {
  const total = buf.length - PROPS;
  const block = emptyBlock(Math.max(ARENA_BYTES, total * 2));
  buf.copy(block.arena, 0, PROPS, buf.length);
  block.used = total;
  let offset = 0;
  for (let i = 0; i < EDGE_BLOCK; i++) {
    block.labels[i] = buf.readUInt32LE(LABELS + 4 * i);
    block.from[i] = buf.readDoubleLE(FROM + 8 * i);
    block.to[i] = buf.readDoubleLE(TO + 8 * i);
    const len = buf.readUInt32LE(LENS + 4 * i);
    block.propsAt[i] = offset;
    block.propsLen[i] = len;
    offset += len;
  }
  return block;
}

const LITTLE_ENDIAN = endianness() === 'LE';
const bytesOf = (a: Float64Array | Uint32Array) => new Uint8Array(a.buffer, a.byteOffset, a.byteLength);

const lensScratch = new Uint32Array(EDGE_BLOCK);

function encodeBlock(block: Block): Buffer {
  // Slots written in id order, as a load writes them, keep their property bytes in one
  // contiguous run of the arena: then one copy moves them all.
  let total = PROPS;
  let runStart = -1;
  let runEnd = -1;
  let contiguous = true;
  for (let i = 0; i < EDGE_BLOCK; i++) {
    const len = block.labels[i] !== 0 ? block.propsLen[i]! : 0;
    lensScratch[i] = len;
    total += len;
    if (len === 0) continue;
    const at = block.propsAt[i]!;
    if (runStart < 0) runStart = at;
    else if (at !== runEnd) contiguous = false;
    runEnd = at + len;
  }
  // The block value is built in the store's scratch buffer: lmdb-js copies it during the put.
  const out = scratch(total).bytes.subarray(0, total);
  out.writeUInt32LE(EDGE_BLOCK, 0);
  out.writeUInt32LE(0, 4);
  if (LITTLE_ENDIAN) {
    out.set(bytesOf(block.labels), LABELS);
    out.set(bytesOf(block.from), FROM);
    out.set(bytesOf(block.to), TO);
    out.set(bytesOf(lensScratch), LENS);
  } else {
    for (let i = 0; i < EDGE_BLOCK; i++) {
      out.writeUInt32LE(block.labels[i]!, LABELS + 4 * i);
      out.writeDoubleLE(block.from[i]!, FROM + 8 * i);
      out.writeDoubleLE(block.to[i]!, TO + 8 * i);
      out.writeUInt32LE(lensScratch[i]!, LENS + 4 * i);
    }
  }
  if (contiguous) {
    if (runStart >= 0) block.arena.copy(out, PROPS, runStart, runEnd);
    return out;
  }
  let offset = PROPS;
  for (let i = 0; i < EDGE_BLOCK; i++) {
    const len = lensScratch[i]!;
    if (len > 0) block.arena.copy(out, offset, block.propsAt[i]!, block.propsAt[i]! + len);
    offset += len;
  }
  return out;
}

function growArena(block: Block, need: number): void {
  const grown = arenaOf(Math.max(block.arena.length * 2, block.used + need));
  block.arena.copy(grown, 0, 0, block.used);
  block.arena = grown;
}

/** Stores a property map in the block's arena for `slot`, written there directly. */
function setSlotProps(block: Block, slot: number, props: ValueObject): void {
  if (block.arena.length - block.used < 256) growArena(block, 256);
  let end = encodeFlatInto(block.arena, block.used, props);
  if (end < 0 && block.arena.length - block.used < SCRATCH.length) {
    growArena(block, SCRATCH.length);
    end = encodeFlatInto(block.arena, block.used, props);
  }
  if (end < 0) {
    const general = packStored(props);
    if (block.used + general.length > block.arena.length) growArena(block, general.length);
    block.arena.set(general, block.used);
    end = block.used + general.length;
  }
  block.propsAt[slot] = block.used;
  block.propsLen[slot] = end - block.used;
  block.used = end;
}

const blockOf = (id: number) => Math.floor(id / EDGE_BLOCK);

/**
 * Bytes of blocks one propsReader keeps (a block of 256 edges with two numeric
 * properties is about 15 KB, so a million such edges fit).
 */
const KEPT_BYTES = 64 * 2 ** 20;

/** A stored block copied out of the store's read buffer, with where each slot's props start. */
interface KeptBlock {
  readonly bytes: Buffer;
  readonly offsets: Uint32Array;
}

function keptBlock(stored: Buffer): KeptBlock {
  // lmdb's fast read buffer is reused by the next read, and its `length` is the value's.
  const bytes = Buffer.from(Uint8Array.prototype.slice.call(stored, 0, stored.length).buffer);
  const offsets = new Uint32Array(EDGE_BLOCK);
  let offset = PROPS;
  for (let i = 0; i < EDGE_BLOCK; i++) {
    offsets[i] = offset;
    offset += bytes.readUInt32LE(LENS + 4 * i);
  }
  return { bytes, offsets };
}

export class EdgeReader {
  constructor(protected readonly db: EdgeDb) {}

  get(id: number): StoredEdge | undefined {
    const buf = this.db.getBinaryFast(idKey(blockOf(id)));
    return buf === undefined ? undefined : readSlot(buf, id % EDGE_BLOCK);
  }

  /**
   * A reader of many edges' property maps for one operation that reads edges scattered
   * over the store (a weighted path's search relaxes thousands). A store read copies a
   * whole block (256 edges) and a slot's props sit after all earlier slots' bytes, so each
   * block read here is kept, copied, with its slots' offsets: the edges of one block then
   * cost one read between them. Past KEPT_BYTES the kept blocks are dropped (and read
   * again when needed; tests pass a smaller bound). Valid only inside the transaction
   * that made it.
   */
  propsReader(keptBytes = KEPT_BYTES): (id: number) => ValueObject | undefined {
    const blocks = new Map<number, KeptBlock | null>();
    let kept = 0;
    return (id) => {
      const b = blockOf(id);
      let block = blocks.get(b);
      if (block === undefined) {
        const stored = this.db.getBinaryFast(idKey(b));
        block = stored === undefined ? null : keptBlock(stored);
        kept += block === null ? 0 : block.bytes.length;
        if (kept > keptBytes) {
          blocks.clear();
          kept = block === null ? 0 : block.bytes.length;
        }
        blocks.set(b, block);
      }
      if (block === null) return undefined;
      const slot = id % EDGE_BLOCK;
      const { bytes, offsets } = block;
      if (bytes.readUInt32LE(LABELS + 4 * slot) === 0) return undefined;
      const at = offsets[slot]!;
      return decodeProps(bytes.subarray(at, at + bytes.readUInt32LE(LENS + 4 * slot)));
    };
  }

  has(id: number): boolean {
    const buf = this.db.getBinaryFast(idKey(blockOf(id)));
    return buf !== undefined && buf.readUInt32LE(LABELS + 4 * (id % EDGE_BLOCK)) !== 0;
  }

  /** The largest edge id stored, or -1. */
  lastId(): number {
    for (const { key, value } of this.db.getRange({ reverse: true, limit: 1 })) {
      const base = readU64(key, 0) * EDGE_BLOCK;
      for (let i = EDGE_BLOCK - 1; i >= 0; i--) if (value.readUInt32LE(LABELS + 4 * i) !== 0) return base + i;
    }
    return -1;
  }

  /** Every edge, ascending, read block by block (an export reads them all). */
  *records(): Generator<StoredEdge & { readonly id: number }> {
    for (const { key, value } of this.db.getRange({})) {
      const base = readU64(key, 0) * EDGE_BLOCK;
      let offset = PROPS;
      for (let i = 0; i < EDGE_BLOCK; i++) {
        const len = value.readUInt32LE(LENS + 4 * i);
        const labelId = value.readUInt32LE(LABELS + 4 * i);
        if (labelId !== 0) {
          yield {
            id: base + i,
            labelId,
            from: value.readDoubleLE(FROM + 8 * i),
            to: value.readDoubleLE(TO + 8 * i),
            props: decodeProps(value.subarray(offset, offset + len)),
          };
        }
        offset += len;
      }
    }
  }

  /** Ids of every edge (with `labelId`, of that label only) from id `from` on, ascending. */
  *ids(labelId?: number, from = 0): Generator<number> {
    for (const { key, value } of this.db.getRange(from === 0 ? {} : { start: rangeStart(Math.floor(from / EDGE_BLOCK)) })) {
      const base = readU64(key, 0);
      for (let i = 0; i < EDGE_BLOCK; i++) {
        const l = value.readUInt32LE(LABELS + 4 * i);
        if (l !== 0 && (labelId === undefined || l === labelId) && base * EDGE_BLOCK + i >= from) yield base * EDGE_BLOCK + i;
      }
    }
  }
}

/** A write batch's edited blocks, written once by `flush`. */
export class EdgeEdits {
  private readonly blocks = new Map<number, Block>();
  /** The block edited last: consecutive new edges share one. */
  private last: { readonly number: number; readonly block: Block } | null = null;

  constructor(private readonly db: EdgeDb) {}

  get dirty(): boolean {
    return this.blocks.size > 0;
  }

  private block(id: number, create: boolean): Block | undefined {
    const b = blockOf(id);
    if (this.last?.number === b) return this.last.block;
    let block = this.blocks.get(b);
    if (block === undefined) {
      const stored = this.db.getBinary(idKey(b));
      if (stored === undefined && !create) return undefined;
      block = stored === undefined ? emptyBlock() : decodeBlock(stored);
      this.blocks.set(b, block);
    }
    this.last = { number: b, block };
    return block;
  }

  /** The edge as this batch sees it; undefined when the block was not edited here. */
  edited(id: number): StoredEdge | undefined | null {
    const block = this.blocks.get(blockOf(id));
    if (block === undefined) return null;
    const slot = id % EDGE_BLOCK;
    const labelId = block.labels[slot]!;
    if (labelId === 0) return undefined;
    const at = block.propsAt[slot]!;
    return {
      labelId,
      from: block.from[slot]!,
      to: block.to[slot]!,
      props: decodeProps(block.arena.subarray(at, at + block.propsLen[slot]!)),
    };
  }

  put(id: number, labelId: number, from: number, to: number, props: ValueObject): void {
    const block = this.block(id, true)!;
    const slot = id % EDGE_BLOCK;
    block.labels[slot] = labelId;
    block.from[slot] = from;
    block.to[slot] = to;
    setSlotProps(block, slot, props);
  }

  /** As put, with the property map already msgpack-encoded in `props[0, length)` (0: no properties); bulk-build.ts. */
  putEncoded(id: number, labelId: number, from: number, to: number, props: Buffer, length: number): void {
    const block = this.block(id, true)!;
    const slot = id % EDGE_BLOCK;
    block.labels[slot] = labelId;
    block.from[slot] = from;
    block.to[slot] = to;
    if (block.arena.length - block.used < length) growArena(block, length);
    // A few bytes per edge: a loop beats Buffer.copy's call overhead.
    const arena = block.arena;
    for (let k = 0, at = block.used; k < length; k++) arena[at++] = props[k]!;
    block.propsAt[slot] = block.used;
    block.propsLen[slot] = length;
    block.used += length;
  }

  setProps(id: number, props: ValueObject): void {
    const block = this.block(id, false);
    if (block !== undefined) setSlotProps(block, id % EDGE_BLOCK, props);
  }

  remove(id: number): void {
    const block = this.block(id, false);
    if (block === undefined) return;
    const slot = id % EDGE_BLOCK;
    block.labels[slot] = 0;
    block.from[slot] = 0;
    block.to[slot] = 0;
    block.propsLen[slot] = 0;
  }

  flush(): void {
    for (const [b, block] of this.blocks) {
      const key = idKey(b);
      if (block.labels.some((l) => l !== 0)) this.db.putSync(key, encodeBlock(block));
      else this.db.removeSync(key);
    }
    this.blocks.clear();
    this.last = null;
  }
}
