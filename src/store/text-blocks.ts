/**
 * The byte layout of a text index's posting lists (text-postings.ts): postings in blocks
 * of ascending element ids, each block carrying the score bound that lets a search skip
 * it (src/search/text-topk.ts), and each term a head row with its df and its own bound.
 *
 * A posting is (element id, tf, the document's length). A BM25 term score grows with tf
 * and shrinks with length, whatever the corpus statistics, so the bound of a set of
 * postings is kept as its **impacts**: the Pareto-best (tf, length) pairs, none with both
 * a smaller tf and a greater length than another (Lucene's "competitive impacts"). Scoring
 * the impacts with the statistics of the moment gives a bound that is exact when the set
 * was written, and stays an upper bound as statistics change. At most MAX_IMPACTS pairs
 * are kept: past it, neighbours merge into one pair with the larger tf and the smaller
 * length, a looser but still safe bound.
 *
 * Numbers are unsigned LEB128 varints (element ids are below 2^52, so arithmetic, not
 * bit operations, past 2^31). Layouts:
 * - impacts: [n u8] then n × (tf, length), tf descending.
 * - postings: [count] then count × (id delta, tf, length); the first delta is from the
 *   list's base (a block's first id, the tail's 0).
 * - a block (key: the term's head key under the block kind + first id u64): [last id −
 *   first id][impacts][postings].
 * - a head (key `[index][3][partition][term][0]`): [df][blocks][blocks end][impacts][the
 *   tail's last id][tail postings], where `blocks` counts the term's full blocks, `blocks end` is one past the
 *   last id any of them may hold (0 with no block), and the tail holds the postings at or
 *   past it, fewer than BLOCK_SIZE once written.
 */

/** Postings a full block is cut to; a block that grows past twice this is split. */
export const BLOCK_SIZE = 128;
export const MAX_BLOCK = 2 * BLOCK_SIZE;
export const MAX_IMPACTS = 8;

/** Postings of one list in id order, as parallel arrays. */
export class PostingList {
  ids: number[] = [];
  tfs: number[] = [];
  lengths: number[] = [];

  get size(): number {
    return this.ids.length;
  }

  push(id: number, tf: number, length: number): void {
    this.ids.push(id);
    this.tfs.push(tf);
    this.lengths.push(length);
  }

  /** Its (tf, length) pairs, flat: every posting's, so scoring them bounds the list exactly. */
  pairs(): number[] {
    const pairs = new Array<number>(2 * this.size);
    for (let i = 0; i < this.size; i++) {
      pairs[2 * i] = this.tfs[i]!;
      pairs[2 * i + 1] = this.lengths[i]!;
    }
    return pairs;
  }

  /** A new list of postings [from, to). */
  slice(from: number, to: number): PostingList {
    const out = new PostingList();
    out.ids = this.ids.slice(from, to);
    out.tfs = this.tfs.slice(from, to);
    out.lengths = this.lengths.slice(from, to);
    return out;
  }
}

/** Impacts as flat pairs: [tf0, length0, tf1, length1, ...], tf descending, length descending. */
export type Impacts = number[];

/**
 * The Pareto-best (tf, length) pairs of `pairs` (flat, any order), merged down to
 * MAX_IMPACTS. A pair survives when no other has a tf at least as great and a length at
 * most as great.
 */
export function impactsOf(pairs: readonly number[]): Impacts {
  // Each pair goes into a list kept Pareto-best (tf descending, length descending): few
  // pairs survive, so each insertion scans a short list and no sort of all pairs is needed.
  const out: Impacts = [];
  for (let i = 0; i < pairs.length; i += 2) {
    const tf = pairs[i]!;
    const length = pairs[i + 1]!;
    let at = 0;
    while (at < out.length && out[at]! > tf) at += 2;
    // A kept pair of at least this tf and at most this length dominates it.
    if (at > 0 && out[at - 1]! <= length) continue;
    if (at < out.length && out[at] === tf && out[at + 1]! <= length) continue;
    // It dominates the pairs from `at` on whose length is at least its own.
    let end = at;
    while (end < out.length && out[end + 1]! >= length) end += 2;
    out.splice(at, end - at, tf, length);
  }
  // Kept pairs run tf descending, length descending. Merge neighbours (the larger tf, the
  // smaller length) until few enough are left.
  while (out.length > 2 * MAX_IMPACTS) {
    const merged: Impacts = [];
    for (let i = 0; i < out.length; i += 4) {
      if (i + 2 < out.length) merged.push(out[i]!, out[i + 3]!);
      else merged.push(out[i]!, out[i + 1]!);
    }
    out.splice(0, out.length, ...merged);
  }
  return out;
}

/**
 * Writes `text` into `bytes` at `at`, a byte per character, when it is ASCII (its UTF-8 is
 * then its characters): false at the first other character (what was written is left).
 */
export function writeAscii(text: string, bytes: Uint8Array, at: number): boolean {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x80) return false;
    bytes[at + i] = c;
  }
  return true;
}

/** Writes varints into a growing byte array. */
export class ByteWriter {
  private bytes = Buffer.allocUnsafe(256);
  length = 0;

  private room(n: number): void {
    if (this.length + n <= this.bytes.length) return;
    const next = Buffer.allocUnsafe(Math.max(this.bytes.length * 2, this.length + n));
    this.bytes.copy(next, 0, 0, this.length);
    this.bytes = next;
  }

  varint(value: number): void {
    this.room(8);
    let v = value;
    while (v >= 0x80) {
      this.bytes[this.length++] = (v % 0x80) | 0x80;
      v = Math.floor(v / 0x80);
    }
    this.bytes[this.length++] = v;
  }

  byte(value: number): void {
    this.room(1);
    this.bytes[this.length++] = value;
  }

  /** Bytes as they are. */
  raw(bytes: Uint8Array): void {
    this.room(bytes.length);
    this.bytes.set(bytes, this.length);
    this.length += bytes.length;
  }

  /** The text's UTF-8, after its byte count. */
  utf8(text: string): void {
    const n = text.length;
    // Short ASCII (a term, nearly always): its characters are its bytes, written as they
    // are read; Buffer.write costs more than the copy for a few bytes (measured: a text
    // index's bulk load spent 0.37 s of 6.5 in it at 100k documents).
    if (n < 0x80) {
      this.room(1 + n);
      if (writeAscii(text, this.bytes, this.length + 1)) {
        this.bytes[this.length] = n;
        this.length += 1 + n;
        return;
      }
    }
    this.room(8 + 3 * n);
    // Written one byte past the count, which takes one byte below 128 (moved along otherwise).
    const bytes = this.bytes.write(text, this.length + 1, 'utf8');
    if (bytes < 0x80) {
      this.bytes[this.length] = bytes;
      this.length += 1 + bytes;
      return;
    }
    const start = this.length + 1;
    const copy = Buffer.from(this.bytes.subarray(start, start + bytes));
    this.varint(bytes);
    this.room(bytes);
    this.length += copy.copy(this.bytes, this.length);
  }

  impacts(impacts: Impacts): void {
    this.byte(impacts.length / 2);
    for (const n of impacts) this.varint(n);
  }

  postings(list: PostingList, base: number): void {
    this.varint(list.size);
    let previous = base;
    for (let i = 0; i < list.size; i++) {
      const id = list.ids[i]!;
      this.varint(id - previous);
      this.varint(list.tfs[i]!);
      this.varint(list.lengths[i]!);
      previous = id;
    }
  }

  /** A copy of the bytes written; the writer starts over. */
  done(): Buffer {
    const out = Buffer.from(this.bytes.subarray(0, this.length));
    this.length = 0;
    return out;
  }
}

/** The writer of encodeHead and encodeBlock (one thread, one encoding at a time). */
const scratch = new ByteWriter();

/** Reads varints from a buffer, from `at` on. */
export class ByteReader {
  constructor(
    readonly bytes: Uint8Array,
    public at = 0,
  ) {}

  varint(): number {
    const bytes = this.bytes;
    let b = bytes[this.at++]!;
    if (b < 0x80) return b;
    let value = b & 0x7f;
    let scale = 0x80;
    do {
      b = bytes[this.at++]!;
      value += (b & 0x7f) * scale;
      scale *= 0x80;
    } while (b >= 0x80);
    return value;
  }

  utf8(): string {
    const bytes = this.varint();
    const text = Buffer.prototype.toString.call(this.bytes, 'utf8', this.at, this.at + bytes);
    this.at += bytes;
    return text;
  }

  impacts(): Impacts {
    const n = this.bytes[this.at++]!;
    const out: Impacts = new Array<number>(2 * n);
    for (let i = 0; i < 2 * n; i++) out[i] = this.varint();
    return out;
  }

  postings(base: number, into = new PostingList()): PostingList {
    const count = this.varint();
    let id = base;
    for (let i = 0; i < count; i++) {
      id += this.varint();
      into.push(id, this.varint(), this.varint());
    }
    return into;
  }
}

/** A term's head row, decoded. */
export interface TermHead {
  df: number;
  blocks: number;
  blocksEnd: number;
  impacts: Impacts;
  tail: PostingList;
}

export function encodeHead(head: TermHead): Buffer {
  const w = scratch;
  w.varint(head.df);
  w.varint(head.blocks);
  w.varint(head.blocksEnd);
  w.impacts(head.impacts);
  w.varint(head.tail.size === 0 ? 0 : head.tail.ids[head.tail.size - 1]!);
  w.postings(head.tail, 0);
  return w.done();
}

/** The head's fields before its tail; the reader is left at the tail. */
export function readHeadStart(r: ByteReader): Omit<TermHead, 'tail'> {
  const df = r.varint();
  const blocks = r.varint();
  const blocksEnd = r.varint();
  return { df, blocks, blocksEnd, impacts: r.impacts() };
}

export function decodeHead(bytes: Uint8Array): TermHead {
  const r = new ByteReader(bytes);
  const start = readHeadStart(r);
  r.varint(); // the tail's last id
  return { ...start, tail: r.postings(0) };
}

/**
 * A bulk load's common case without decoding the tail: new postings (ids past every
 * stored one, `tfs`/`lengths` parallel to `ids`) appended to a head whose tail stays below
 * BLOCK_SIZE. The new head, or null when the postings do not qualify.
 */
export function appendToHead(raw: Uint8Array, ids: ArrayLike<number>, tfs: readonly number[], lengths: readonly number[]): Buffer | null {
  const r = new ByteReader(raw);
  const head = readHeadStart(r);
  const last = r.varint();
  const count = raw[r.at]!; // below BLOCK_SIZE: one byte
  const n = ids.length;
  // With an empty tail `last` is 0 and says nothing: element 0 may come first.
  if (count + n >= BLOCK_SIZE || (count > 0 && ids[0]! <= last) || (head.blocks > 0 && ids[0]! < head.blocksEnd)) return null;
  const pairs = [...head.impacts];
  for (let i = 0; i < n; i++) pairs.push(tfs[i]!, lengths[i]!);
  const w = scratch;
  w.varint(head.df + n);
  w.varint(head.blocks);
  w.varint(head.blocksEnd);
  w.impacts(impactsOf(pairs));
  w.varint(ids[n - 1]!);
  w.byte(count + n);
  // Up to raw.length: lmdb-js's getBinaryFast sets `length` on a larger shared array.
  w.raw(raw.subarray(r.at + 1, raw.length));
  let previous = count === 0 ? 0 : last;
  for (let i = 0; i < n; i++) {
    w.varint(ids[i]! - previous);
    w.varint(tfs[i]!);
    w.varint(lengths[i]!);
    previous = ids[i]!;
  }
  return w.done();
}

/** A full block: its postings (the first is the block's first id, in its key). */
export function encodeBlock(list: PostingList): Buffer {
  const first = list.ids[0]!;
  const w = scratch;
  w.varint(list.ids[list.size - 1]! - first);
  w.impacts(impactsOf(list.pairs()));
  w.postings(list, first);
  return w.done();
}

export function decodeBlock(first: number, bytes: Uint8Array): PostingList {
  const r = new ByteReader(bytes);
  r.varint();
  r.impacts();
  return r.postings(first);
}
