/**
 * Adjacency lists: for every (node, direction, label), the (other node, edge) pairs in
 * edge id order (ids only grow, so appending keeps the order), in chunks of up to 1024
 * pairs. A hop reads one chunk for most nodes; a batch that adds edges rewrites each
 * list's last chunk once, at its end, however many edges it appended there.
 *
 * Chunk value: an 8-byte header [u32 flags, u32 0] then f64 pairs. Flag MORE on chunk 0
 * says the list has (or had) further chunks, so single-chunk lists are read with one get.
 */
import type { Database } from 'lmdb';
import { adjacencyKeyParts, adjacencyRange, greatestLeadingU64, scratchAdjacencyKey as adjacencyKey } from './keys.js';
import { ADJACENCY_CHUNK, type Dir } from './layout.js';

export type AdjacencyDb = Database<Buffer, Buffer>;

const HEADER = 8;
const MORE = 1;

/** One list's pairs: others[i] was reached over edges[i]. */
export interface Pairs {
  readonly others: Float64Array | number[];
  readonly edges: Float64Array | number[];
}

const EMPTY: Pairs = { others: [], edges: [] };

function decodePairs(buf: Uint8Array): Pairs {
  const n = (buf.byteLength - HEADER) / 16;
  const flat = new Float64Array(n * 2);
  new Uint8Array(flat.buffer).set(buf.subarray(HEADER));
  const others = new Float64Array(n);
  const edges = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    others[i] = flat[2 * i]!;
    edges[i] = flat[2 * i + 1]!;
  }
  return { others, edges };
}

function encodePairs(flags: number, others: ArrayLike<number>, edges: ArrayLike<number>): Buffer {
  const n = others.length;
  const flat = new Float64Array(n * 2);
  for (let i = 0; i < n; i++) {
    flat[2 * i] = others[i]!;
    flat[2 * i + 1] = edges[i]!;
  }
  const out = Buffer.allocUnsafe(HEADER + n * 16);
  out.writeUInt32LE(flags, 0);
  out.writeUInt32LE(0, 4);
  out.set(new Uint8Array(flat.buffer), HEADER);
  return out;
}

function concat(parts: Pairs[]): Pairs {
  if (parts.length === 1) return parts[0]!;
  const others: number[] = [];
  const edges: number[] = [];
  for (const p of parts) {
    for (let i = 0; i < p.others.length; i++) {
      others.push(p.others[i]!);
      edges.push(p.edges[i]!);
    }
  }
  return { others, edges };
}

export class AdjacencyReader {
  constructor(protected readonly db: AdjacencyDb) {}

  /** The pairs of one list, in edge id order. */
  list(node: number, dir: Dir, labelId: number): Pairs {
    const first = this.db.getBinary(adjacencyKey(node, dir, labelId, 0));
    if (first === undefined) return this.scan(node, dir, labelId);
    if ((first.readUInt32LE(0) & MORE) === 0) return decodePairs(first);
    return this.scan(node, dir, labelId);
  }

  /** Every list of (node, dir): one entry per label, in label id order. */
  lists(node: number, dir: Dir): { labelId: number; pairs: Pairs }[] {
    const out: { labelId: number; pairs: Pairs }[] = [];
    let current: { labelId: number; parts: Pairs[] } | null = null;
    for (const { key, value } of this.db.getRange(adjacencyRange(node, dir))) {
      const { labelId } = adjacencyKeyParts(key);
      if (current === null || current.labelId !== labelId) {
        if (current !== null) out.push({ labelId: current.labelId, pairs: concat(current.parts) });
        current = { labelId, parts: [] };
      }
      current.parts.push(decodePairs(value));
    }
    if (current !== null) out.push({ labelId: current.labelId, pairs: concat(current.parts) });
    return out;
  }

  /** Every chunk of one list (a list whose chunk 0 was emptied may start later). */
  private scan(node: number, dir: Dir, labelId: number): Pairs {
    const parts: Pairs[] = [];
    for (const { value } of this.db.getRange(adjacencyRange(node, dir, labelId))) parts.push(decodePairs(value));
    return parts.length === 0 ? EMPTY : concat(parts);
  }

  /** The last chunk of a list (its number and a copy of its bytes), or null for an empty list. */
  tailRaw(node: number, dir: Dir, labelId: number): { chunk: number; bytes: Buffer } | null {
    for (const { key, value } of this.db.getRange({ ...reverse(adjacencyRange(node, dir, labelId)), reverse: true, limit: 1 })) {
      return { chunk: adjacencyKeyParts(key).chunk, bytes: Buffer.from(value) };
    }
    return null;
  }
}

const reverse = ({ start, end }: { start: Buffer; end: Buffer }) => ({ start: end, end: start });

/** One aligned buffer for building chunk values, grown on demand (values are copied by the put). */
let scratchBuffer = { bytes: Buffer.alloc(64 * 1024), doubles: new Float64Array(0) };
scratchBuffer.doubles = new Float64Array(scratchBuffer.bytes.buffer, scratchBuffer.bytes.byteOffset, scratchBuffer.bytes.length / 8);

function scratch(size: number): { bytes: Buffer; doubles: Float64Array } {
  if (size > scratchBuffer.bytes.length) {
    const bytes = Buffer.from(new ArrayBuffer(Math.max(size, scratchBuffer.bytes.length * 2)));
    scratchBuffer = { bytes, doubles: new Float64Array(bytes.buffer, 0, bytes.length / 8) };
  }
  return scratchBuffer;
}

/** Growable columns of pending appends. */
class AppendLog {
  n = 0;
  keys = new Float64Array(1024);
  labels = new Uint32Array(1024);
  others = new Float64Array(1024);
  edges = new Float64Array(1024);

  push(key: number, labelId: number, other: number, edge: number): void {
    if (this.n === this.keys.length) this.grow();
    const i = this.n++;
    this.keys[i] = key;
    this.labels[i] = labelId;
    this.others[i] = other;
    this.edges[i] = edge;
  }

  private grow(): void {
    const size = this.keys.length * 2;
    const keys = new Float64Array(size);
    keys.set(this.keys);
    const labels = new Uint32Array(size);
    labels.set(this.labels);
    const others = new Float64Array(size);
    others.set(this.others);
    const edges = new Float64Array(size);
    edges.set(this.edges);
    Object.assign(this, { keys, labels, others, edges });
  }

  /**
   * Entry indices ordered by (key, append order). Keys are node * 2 + dir: when they span
   * a range not much larger than the entries (a load into a fresh or dense graph), a
   * counting sort does it in linear time; otherwise keys below 2^31 and fewer than 2^22
   * entries pack into one exactly representable double each for a typed-array sort, and
   * anything larger takes the comparator sort.
   */
  order(): Uint32Array | number[] {
    const n = this.n;
    const keys = this.keys;
    let min = Infinity;
    let max = -Infinity;
    for (let i = 0; i < n; i++) {
      const k = keys[i]!;
      if (k < min) min = k;
      if (k > max) max = k;
    }
    if (max - min < 4 * n + 1024) {
      const counts = new Uint32Array(max - min + 2);
      for (let i = 0; i < n; i++) counts[keys[i]! - min + 1]!++;
      for (let k = 1; k < counts.length; k++) counts[k]! += counts[k - 1]!;
      const order = new Uint32Array(n);
      for (let i = 0; i < n; i++) order[counts[keys[i]! - min]!++] = i;
      return order;
    }
    if (n >= 2 ** 22 || max >= 2 ** 31) return Array.from({ length: n }, (_, i) => i).sort((a, b) => keys[a]! - keys[b]! || a - b);
    const packed = new Float64Array(n);
    for (let i = 0; i < n; i++) packed[i] = keys[i]! * 2 ** 22 + i;
    packed.sort();
    const order = new Uint32Array(n);
    for (let i = 0; i < n; i++) order[i] = packed[i]! % 2 ** 22;
    return order;
  }
}

/**
 * A write batch's adjacency changes. Appends are only logged, and written at the end of
 * the batch list by list in key order (neighbouring puts land on neighbouring B-tree
 * pages), each list's last chunk read and written once. A read, within the batch, of a
 * list with pending appends writes all pending appends first. Removals apply at once.
 */
export class AdjacencyEdits {
  private log = new AppendLog();
  /**
   * The greatest node with a stored list when the current flush began: lists of greater
   * nodes are new, so their tails need no lookup (a load into a fresh graph does none).
   */
  private lastStoredNode = -1;

  constructor(
    private readonly db: AdjacencyDb,
    private readonly reader: AdjacencyReader,
  ) {}

  append(node: number, dir: Dir, labelId: number, other: number, edge: number): void {
    this.log.push(node * 2 + dir, labelId, other, edge);
  }

  /**
   * Makes the lists of (node, dir) readable from the database. Pending appends are written
   * all at once: batches either append (loads) or read after few appends.
   */
  flushList(_node: number, _dir: Dir, _labelId?: number): void {
    this.flush();
  }

  flush(): void {
    const log = this.log;
    if (log.n === 0) return;
    this.log = new AppendLog();
    this.lastStoredNode = greatestLeadingU64(this.db);
    const order = log.order();
    let start = 0;
    while (start < order.length) {
      const key = log.keys[order[start]!]!;
      let end = start + 1;
      while (end < order.length && log.keys[order[end]!] === key) end++;
      this.appendGroup(Math.floor(key / 2), (key % 2) as Dir, log, order, start, end);
      start = end;
    }
  }

  /** Appends entries order[start..end) (one (node, dir), in edge order) label by label. */
  private appendGroup(node: number, dir: Dir, log: AppendLog, order: Uint32Array | number[], start: number, end: number): void {
    let labelId = log.labels[order[start]!]!;
    let mixed = false;
    for (let k = start + 1; k < end; k++) if (log.labels[order[k]!] !== labelId) mixed = true;
    if (!mixed) {
      this.appendToList(node, dir, labelId, log, order, start, end);
      return;
    }
    const byLabel = new Map<number, number[]>();
    for (let k = start; k < end; k++) {
      labelId = log.labels[order[k]!]!;
      let list = byLabel.get(labelId);
      if (list === undefined) byLabel.set(labelId, (list = []));
      list.push(order[k]!);
    }
    for (const [l, indices] of byLabel) this.appendToList(node, dir, l, log, indices, 0, indices.length);
  }

  private appendToList(node: number, dir: Dir, labelId: number, log: AppendLog, order: Uint32Array | number[], start: number, end: number): void {
    const count = end - start;
    const tail = this.tailBytes(node, dir, labelId);
    const stored = tail === null ? 0 : (tail.bytes.byteLength - HEADER) / 16;
    if (stored + count <= ADJACENCY_CHUNK) {
      // The common case: the new pairs fit the last chunk, appended to its bytes, built in
      // a scratch buffer that lmdb-js copies during the put (no allocation per list).
      const size = HEADER + (stored + count) * 16;
      const out = scratch(size);
      if (tail !== null) out.bytes.set(tail.bytes.subarray(0, HEADER + stored * 16), 0);
      else out.bytes.fill(0, 0, HEADER);
      const base = HEADER / 8 + stored * 2;
      for (let k = 0; k < count; k++) {
        const i = order[start + k]!;
        out.doubles[base + 2 * k] = log.others[i]!;
        out.doubles[base + 2 * k + 1] = log.edges[i]!;
      }
      this.db.putSync(adjacencyKey(node, dir, labelId, tail?.chunk ?? 0), out.bytes.subarray(0, size));
      return;
    }
    const added = new Float64Array(count * 2);
    for (let k = 0; k < count; k++) {
      const i = order[start + k]!;
      added[2 * k] = log.others[i]!;
      added[2 * k + 1] = log.edges[i]!;
    }
    const pairs = tail === null ? EMPTY : decodePairs(tail.bytes);
    const others = Array.from(pairs.others);
    const edges = Array.from(pairs.edges);
    for (let k = 0; k < count; k++) {
      others.push(added[2 * k]!);
      edges.push(added[2 * k + 1]!);
    }
    let chunk = tail?.chunk ?? 0;
    let flags = tail?.flags ?? 0;
    for (let at = 0; at < others.length; at += ADJACENCY_CHUNK) {
      const last = at + ADJACENCY_CHUNK >= others.length;
      // Chunk 0 announces that more follow; later chunks find it already marked.
      if (chunk === 0 && !last) flags |= MORE;
      this.db.putSync(adjacencyKey(node, dir, labelId, chunk), encodePairs(flags, others.slice(at, at + ADJACENCY_CHUNK), edges.slice(at, at + ADJACENCY_CHUNK)));
      chunk++;
      flags = 0;
    }
  }

  /**
   * The bytes of a stored list's last chunk, or null for a new list. For a list of one
   * chunk they are lmdb-js's reused buffer: the caller copies them before its next read.
   */
  private tailBytes(node: number, dir: Dir, labelId: number): { chunk: number; flags: number; bytes: Buffer } | null {
    if (node > this.lastStoredNode) return null;
    const first = this.db.getBinaryFast(adjacencyKey(node, dir, labelId, 0));
    if (first === undefined) return null;
    const flags = first.readUInt32LE(0);
    // `length`, not `byteLength`: the reused buffer is longer than the value.
    if ((flags & MORE) === 0) return { chunk: 0, flags, bytes: first.subarray(0, first.length) };
    const tail = this.reader.tailRaw(node, dir, labelId);
    return tail === null ? null : { chunk: tail.chunk, flags: tail.bytes.readUInt32LE(0), bytes: tail.bytes };
  }

  /** Removes one edge from a list (its pending appends are written first). */
  remove(node: number, dir: Dir, labelId: number, edge: number): void {
    this.flushList(node, dir, labelId);
    for (const { key, value } of this.db.getRange(adjacencyRange(node, dir, labelId))) {
      const pairs = decodePairs(value);
      const at = Array.prototype.indexOf.call(pairs.edges, edge) as number;
      if (at < 0) continue;
      const flags = value.readUInt32LE(0);
      const others = Array.from(pairs.others);
      const edges = Array.from(pairs.edges);
      others.splice(at, 1);
      edges.splice(at, 1);
      const chunkKey = Buffer.from(key);
      // An emptied chunk 0 stays (empty) while it carries MORE, so reads still find the rest.
      if (others.length === 0 && (flags & MORE) === 0) this.db.removeSync(chunkKey);
      else this.db.putSync(chunkKey, encodePairs(flags, others, edges));
      return;
    }
  }

  /** Deletes every list of (node, dir). */
  removeAll(node: number, dir: Dir): void {
    this.flushList(node, dir);
    const keys: Buffer[] = [];
    for (const key of this.db.getKeys(adjacencyRange(node, dir))) keys.push(Buffer.from(key));
    for (const key of keys) this.db.removeSync(key);
  }
}
