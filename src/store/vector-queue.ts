/**
 * The vector queues and the rows that describe each graph, in the `vector_queue`
 * sub-database (binary keys and values). A graph is a vector index, or a tenant partition
 * of one; graph ids stay below 0xFFFFFFFC, so the rows of each kind sort together:
 *
 * - `[graph u32]` its counters: queued entries and bytes, the next sequence number, the
 *   metric (kept when the queue empties: a builder tracks its position by sequence);
 * - `[graph u32][seq u64]` a queued entry: link (with the vector) or unlink, of one element;
 * - `[0xFFFFFFFC][graph u32]` the graph keeps a copy of every vector it holds (written with
 *   the graph since this format; a graph of an older database has none until the writer's
 *   background steps have filled them, and searches read its stored elements meanwhile);
 * - `[0xFFFFFFFC][graph u32][0x00]` for a graph of an older database, where the background
 *   filling of its copies goes on (an element id; the mark replaces it once all are written);
 * - `[0xFFFFFFFC][graph u32][element u64]` the copy: the element's vector as f32 bytes,
 *   written and deleted in the transactions that queue its links and unlinks, so a search
 *   ranks a hit exactly without decoding the element (vector-index.ts);
 * - `[0xFFFFFFFD][graph u32]` a graph of an older format whose HNSW records (`hnsw`) are
 *   still to be deleted;
 * - `[0xFFFFFFFE][graph u32]` its pointer (vector-segments.ts): queue, scan or segment;
 * - `[0xFFFFFFFF][graph u32]` what background work applied: entries, rate, when.
 *
 * Every method runs in the current transaction (a write batch's, or a read snapshot).
 */
import { GraphError } from '../core/errors.js';
import { readU64, writeU64 } from './keys.js';
import type { QueueDb } from './layout.js';
import { decodePointer, encodePointer, POINTER_PREFIX, pointerKey, type GraphPointer } from './vector-segments.js';

export const LINK = 1;
export const UNLINK = 2;

/** Queued entries one graph may hold (reference: 250,000 pending entities per index). */
export const QUEUE_MAX_ENTRIES = 250_000;
/** Queued bytes one graph may hold (reference: 512 MiB of pending vectors for strong search). */
export const QUEUE_MAX_BYTES = 512 * 1024 * 1024;

const COPY_PREFIX = 0xfffffffc;
const PURGE_PREFIX = 0xfffffffd;
const APPLIED_PREFIX = 0xffffffff;

/** Weight of the newest step in the smoothed rate. */
const RATE_WEIGHT = 0.2;

export interface QueueEntry {
  readonly op: number;
  readonly id: number;
  /** The linked vector; null for an unlink. */
  readonly vector: Float32Array | null;
}

/** A queue's counters: entries, bytes, the next sequence number, and the graph's metric. */
export interface QueueState {
  readonly entries: number;
  readonly bytes: number;
  readonly next: number;
  readonly metric: number;
}

/** What a graph's background work has applied: entries in all, and their recent rate. */
export interface Applied {
  readonly total: number;
  /** Entries per second while the work runs, smoothed over the last rounds. */
  readonly perSecond: number;
  /** When work last applied some (ms since the epoch). */
  readonly at: number;
}

export function queueKey(graph: number, seq: number): Buffer {
  const key = Buffer.allocUnsafe(12);
  key.writeUInt32BE(graph, 0);
  writeU64(key, 4, seq);
  return key;
}

function graphKey(graph: number): Buffer {
  const key = Buffer.allocUnsafe(4);
  key.writeUInt32BE(graph, 0);
  return key;
}

function prefixedKey(prefix: number, graph: number): Buffer {
  const key = Buffer.allocUnsafe(8);
  key.writeUInt32BE(prefix, 0);
  key.writeUInt32BE(graph, 4);
  return key;
}

function copyKey(graph: number, id: number): Buffer {
  const key = Buffer.allocUnsafe(16);
  key.writeUInt32BE(COPY_PREFIX, 0);
  key.writeUInt32BE(graph, 4);
  writeU64(key, 8, id);
  return key;
}

/** The cursor of a graph whose copies are being filled: between its mark's key and its copies' keys. */
function fillKey(graph: number): Buffer {
  const key = Buffer.alloc(9);
  key.writeUInt32BE(COPY_PREFIX, 0);
  key.writeUInt32BE(graph, 4);
  return key;
}

/** The key of copy reads (a read does not keep its key). */
const READ_KEY = copyKey(0, 0);

/** Just past every key of a graph's queue: its counters row and entries lie below it. */
const graphEnd = (graph: number): Buffer => graphKey(graph + 1);

function encodeEntry(op: number, id: number, vector: Float32Array | null): Buffer {
  const out = Buffer.allocUnsafe(9 + (vector === null ? 0 : vector.byteLength));
  out[0] = op;
  out.writeDoubleLE(id, 1);
  if (vector !== null) Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength).copy(out, 9);
  return out;
}

export function decodeEntry(raw: Uint8Array): QueueEntry {
  const b = raw as Buffer;
  const op = b[0]!;
  const id = b.readDoubleLE(1);
  if (op !== LINK) return { op, id, vector: null };
  const copy = new Uint8Array(b.length - 9);
  copy.set(b.subarray(9));
  return { op, id, vector: new Float32Array(copy.buffer) };
}

export class VectorQueue {
  constructor(
    readonly db: QueueDb,
    /** The bound per graph (StoreOptions.vectorQueueEntries). */
    private readonly maxEntries = QUEUE_MAX_ENTRIES,
  ) {}

  state(graph: number): QueueState | undefined {
    const raw = this.db.get(graphKey(graph));
    if (raw === undefined) return undefined;
    return { entries: raw.readDoubleLE(0), bytes: raw.readDoubleLE(8), next: raw.readDoubleLE(16), metric: raw[24]! };
  }

  saveState(graph: number, s: QueueState): void {
    const raw = Buffer.allocUnsafe(25);
    raw.writeDoubleLE(s.entries, 0);
    raw.writeDoubleLE(s.bytes, 8);
    raw.writeDoubleLE(s.next, 16);
    raw[24] = s.metric;
    this.db.putSync(graphKey(graph), raw);
  }

  /**
   * Queues an entry, or throws 429 `index_backpressure` when the graph's queue is at its
   * bound (`describe` names the index in the message). Answers whether it is the graph's
   * first entry ever (its counters row was made now: the row stays when the queue empties).
   */
  append(graph: number, metric: number, op: number, id: number, vector: Float32Array | null, describe: () => string): boolean {
    const found = this.state(graph);
    const s = found ?? { entries: 0, bytes: 0, next: 0, metric };
    const entry = encodeEntry(op, id, vector);
    if (s.entries + 1 > this.maxEntries || s.bytes + entry.length > QUEUE_MAX_BYTES) {
      throw new GraphError(
        'index_backpressure',
        `${describe()} has ${s.entries} queued entries (${s.bytes} bytes), at its bound of ${this.maxEntries} entries or ${QUEUE_MAX_BYTES} bytes; retry shortly, the index is catching up`,
      );
    }
    this.db.putSync(queueKey(graph, s.next), entry);
    this.saveState(graph, { entries: s.entries + 1, bytes: s.bytes + entry.length, next: s.next + 1, metric: s.metric });
    return found === undefined;
  }

  /** The latest queued state of each element of a graph: its vector, or null when unlinked. */
  pending(graph: number): Map<number, Float32Array | null> {
    const out = new Map<number, Float32Array | null>();
    const s = this.state(graph);
    if (s === undefined || s.entries === 0) return out;
    for (const { value } of this.db.getRange({ start: queueKey(graph, 0), end: graphEnd(graph) })) {
      const e = decodeEntry(value);
      out.set(e.id, e.vector);
    }
    return out;
  }

  /** Queued entries from sequence `from` on, oldest first, at most `limit`. */
  *entries(graph: number, from: number, limit = Infinity): Generator<{ seq: number; entry: QueueEntry; bytes: number }> {
    const range = { start: queueKey(graph, from), end: graphEnd(graph), ...(limit === Infinity ? {} : { limit }) };
    for (const { key, value } of this.db.getRange(range)) {
      yield {
        seq: (key as Buffer).readUInt32BE(4) * 2 ** 32 + (key as Buffer).readUInt32BE(8),
        entry: decodeEntry(value),
        bytes: value.length,
      };
    }
  }

  /** Keys of queued entries below sequence `end`, oldest first, at most `limit` (with the bytes they hold). */
  private below(graph: number, end: number, limit: number): { keys: Buffer[]; bytes: number } {
    const keys: Buffer[] = [];
    let bytes = 0;
    for (const { key, value } of this.db.getRange({ start: queueKey(graph, 0), end: queueKey(graph, end), limit })) {
      keys.push(Buffer.from(key as Buffer));
      bytes += value.length;
    }
    return { keys, bytes };
  }

  /** Deletes the entries below sequence `end` and counts them off; answers how many. */
  removeBelow(graph: number, end: number): number {
    const s = this.state(graph);
    if (s === undefined) return 0;
    const { keys, bytes } = this.below(graph, end, Infinity);
    for (const key of keys) this.db.removeSync(key);
    if (keys.length > 0) this.saveState(graph, { ...s, entries: s.entries - keys.length, bytes: s.bytes - bytes });
    return keys.length;
  }

  /** Deletes the given entries (oldest first, as `entries` read them) and counts them off. */
  removeEntries(graph: number, seqs: readonly number[], bytes: number): void {
    const s = this.state(graph)!;
    for (const seq of seqs) this.db.removeSync(queueKey(graph, seq));
    const left = s.entries - seqs.length;
    this.saveState(graph, { ...s, entries: left, bytes: s.bytes - bytes });
  }

  /** Deletes up to `limit` keys of a graph's queue and counters (dropping it); true when none are left. */
  dropSome(graph: number, limit: number): boolean {
    const keys = [...this.db.getKeys({ start: graphKey(graph), end: graphEnd(graph), limit })];
    for (const key of keys) this.db.removeSync(Buffer.from(key as Buffer));
    if (keys.length === limit) return false;
    const copies = [...this.db.getKeys({ start: prefixedKey(COPY_PREFIX, graph), end: prefixedKey(COPY_PREFIX, graph + 1), limit })];
    for (const key of copies) this.db.removeSync(Buffer.from(key as Buffer));
    if (copies.length === limit) return false;
    this.db.removeSync(prefixedKey(APPLIED_PREFIX, graph));
    this.db.removeSync(pointerKey(graph));
    this.db.removeSync(prefixedKey(PURGE_PREFIX, graph));
    return true;
  }

  // ---- the copies of the graph's vectors ----------------------------------------------

  /** Whether the graph keeps a copy of each vector it holds (every graph made since this format does). */
  hasCopies(graph: number): boolean {
    return this.db.doesExist(prefixedKey(COPY_PREFIX, graph));
  }

  /** Marks a graph as one that keeps a copy of every vector it holds (its fill cursor goes). */
  markCopies(graph: number): void {
    this.db.putSync(prefixedKey(COPY_PREFIX, graph), Buffer.alloc(0));
    this.db.removeSync(fillKey(graph));
  }

  /** Where the filling of an older graph's copies goes on (vector-index.ts): an element id, 0 at first. */
  fillCursor(graph: number): number {
    const raw = this.db.get(fillKey(graph));
    return raw === undefined ? 0 : raw.readDoubleLE(0);
  }

  saveFillCursor(graph: number, id: number): void {
    const raw = Buffer.allocUnsafe(8);
    raw.writeDoubleLE(id, 0);
    this.db.putSync(fillKey(graph), raw);
  }

  putCopy(graph: number, id: number, vector: Float32Array): void {
    this.db.putSync(copyKey(graph, id), Buffer.from(vector.buffer, vector.byteOffset, vector.byteLength));
  }

  removeCopy(graph: number, id: number): void {
    this.db.removeSync(copyKey(graph, id));
  }

  /** The copies of a graph from element `from` on, ascending by element id, at most `limit`: each vector is a fresh array. */
  *copies(graph: number, dimension: number, from = 0, limit = Infinity): Generator<{ id: number; vector: Float32Array }> {
    const range = { start: copyKey(graph, from), end: prefixedKey(COPY_PREFIX, graph + 1), limit };
    for (const { key, value } of this.db.getRange(range)) {
      const vector = new Float32Array(dimension);
      new Uint8Array(vector.buffer).set((value as Buffer).subarray(0, vector.byteLength));
      yield { id: readU64(key as Buffer, 8), vector };
    }
  }

  /**
   * The copy of an element's vector, in `into` (its length is the graph's dimension), or
   * false when the graph does not hold the element. Copied out of LMDB's buffer, which
   * the next read reuses; `into` is the caller's to reuse in turn.
   */
  readCopy(graph: number, id: number, into: Float32Array): boolean {
    READ_KEY.writeUInt32BE(graph, 4);
    writeU64(READ_KEY, 8, id);
    const raw = this.db.getBinaryFast(READ_KEY);
    if (raw === undefined) return false;
    // lmdb-js sets `length` to the value's size over a larger shared buffer.
    new Uint8Array(into.buffer, into.byteOffset, into.byteLength).set(raw.subarray(0, into.byteLength));
    return true;
  }

  pointer(graph: number): GraphPointer | undefined {
    const raw = this.db.getBinaryFast(pointerKey(graph));
    return raw === undefined ? undefined : decodePointer(raw);
  }

  putPointer(graph: number, p: GraphPointer): void {
    this.db.putSync(pointerKey(graph), encodePointer(p));
  }

  /** Every graph with a pointer, ascending. */
  *pointers(): Generator<{ graph: number; pointer: GraphPointer }> {
    const range = { start: prefixedKey(POINTER_PREFIX, 0), end: prefixedKey(POINTER_PREFIX + 1, 0) };
    for (const { key, value } of this.db.getRange(range)) {
      yield { graph: (key as Buffer).readUInt32BE(4), pointer: decodePointer(value) };
    }
  }

  applied(graph: number): Applied {
    const raw = this.db.get(prefixedKey(APPLIED_PREFIX, graph));
    if (raw === undefined) return { total: 0, perSecond: 0, at: 0 };
    return { total: raw.readDoubleLE(0), perSecond: raw.readDoubleLE(8), at: raw.readDoubleLE(16) };
  }

  /** Counts `entries` applied in `ms` of work, and folds their rate into the smoothed one. */
  noteApplied(graph: number, entries: number, ms: number): void {
    const before = this.applied(graph);
    const rate = (entries / Math.max(ms, 0.001)) * 1000;
    const perSecond = before.at === 0 ? rate : RATE_WEIGHT * rate + (1 - RATE_WEIGHT) * before.perSecond;
    const raw = Buffer.allocUnsafe(24);
    raw.writeDoubleLE(before.total + entries, 0);
    raw.writeDoubleLE(perSecond, 8);
    raw.writeDoubleLE(Date.now(), 16);
    this.db.putSync(prefixedKey(APPLIED_PREFIX, graph), raw);
  }

  /** Marks a graph whose old-format HNSW records are to be deleted. */
  markPurge(graph: number): void {
    this.db.putSync(prefixedKey(PURGE_PREFIX, graph), Buffer.alloc(0));
  }

  unmarkPurge(graph: number): void {
    this.db.removeSync(prefixedKey(PURGE_PREFIX, graph));
  }

  /** The graphs marked for a purge, ascending. */
  purges(): number[] {
    const range = { start: prefixedKey(PURGE_PREFIX, 0), end: prefixedKey(POINTER_PREFIX, 0) };
    return [...this.db.getKeys(range)].map((key) => (key as Buffer).readUInt32BE(4));
  }
}
