/**
 * A search's cursor over one term's postings in one partition (layout: text-blocks.ts):
 * the full blocks in key order, read lazily from LMDB in the reader's snapshot, then the
 * head row's tail. Moving the block pointer reads a block's header only (its last id and
 * impacts); a block's postings are decoded when the cursor stops in it. Implements the
 * TermCursor that src/search/text-topk.ts ranks with.
 */
import type { TermScorer } from '../search/bm25.js';
import { NO_MORE, type TermCursor } from '../search/text-topk.js';
import { ByteReader, MAX_BLOCK, type TermHead } from './text-blocks.js';
import { readU64 } from './keys.js';
import type { TextDb } from './layout.js';
import { blockRange } from './text-term-writer.js';

const EMPTY_IDS = new Float64Array(0);
const EMPTY_COUNTS = new Uint32Array(0);

export class TermPostingsCursor implements TermCursor {
  readonly maxScore: number;
  doc = -1;

  private blocks: Iterator<{ key: Buffer; value: Buffer }> | null = null;
  /** Full blocks the block pointer has passed or stands on. */
  private blocksSeen = 0;
  private tailSeen = false;
  /** The block pointer: -1 before the first block; then the block's sequence number. */
  private block = -1;
  private exhausted = false;
  private blockFirst = 0;
  private blockLast = 0;
  private blockBound = 0;
  private blockBytes: Uint8Array | null = null;
  private blockPayload = 0;

  /** The decoded block (its sequence number) and the posting the cursor stands on. */
  private decoded = -2;
  private count = 0;
  private pos = 0;
  /** Sized on first decode (a rare term's only block is its short tail). */
  private ids = EMPTY_IDS;
  private tfs = EMPTY_COUNTS;
  private lengths = EMPTY_COUNTS;

  constructor(
    private readonly db: TextDb,
    private readonly headKey: Buffer,
    private readonly head: TermHead,
    private readonly scorer: TermScorer,
    readonly term: number,
  ) {
    this.maxScore = scorer.bound(head.impacts);
    this.advance(0);
  }

  score(): number {
    return this.scorer.score(this.tfs[this.pos]!, this.lengths[this.pos]!);
  }

  blockMax(): number {
    return this.exhausted ? 0 : this.blockBound;
  }

  shallowAdvance(target: number): number {
    if (this.block < 0) this.nextBlock();
    while (!this.exhausted && this.blockLast < target) this.nextBlock();
    return this.exhausted ? NO_MORE : this.blockLast;
  }

  advance(target: number): void {
    if (this.doc >= target) return;
    if (this.decoded !== this.block || this.ids[this.count - 1]! < target) {
      if (this.shallowAdvance(target) === NO_MORE) {
        this.doc = NO_MORE;
        return;
      }
      if (this.decoded !== this.block) this.decode();
    }
    // The block's last id is at least the target: a posting at or past it is in this block.
    const ids = this.ids;
    let pos = this.pos;
    while (ids[pos]! < target) pos++;
    this.pos = pos;
    this.doc = ids[pos]!;
  }

  /** Moves the block pointer to the next full block, then the tail, then past the end. */
  private nextBlock(): void {
    this.block++;
    if (this.blocksSeen < this.head.blocks) {
      this.blocksSeen++;
      if (this.blocks === null) this.blocks = this.db.getRange(blockRange(this.headKey))[Symbol.iterator]();
      const next = this.blocks.next();
      if (next.done === true) throw new Error('text index: a term head counts more blocks than are stored');
      const { key, value } = next.value;
      const reader = new ByteReader(value);
      this.blockFirst = readU64(key, key.length - 8);
      this.blockLast = this.blockFirst + reader.varint();
      this.blockBound = this.scorer.bound(reader.impacts());
      this.blockBytes = value;
      this.blockPayload = reader.at;
      return;
    }
    const tail = this.head.tail;
    if (!this.tailSeen && tail.size > 0) {
      this.tailSeen = true;
      this.blockBytes = null;
      this.blockFirst = tail.ids[0]!;
      this.blockLast = tail.ids[tail.size - 1]!;
      this.blockBound = this.scorer.bound(tail.pairs());
      return;
    }
    this.exhausted = true;
  }

  /** Decodes the block the pointer stands on into the cursor's arrays. */
  private decode(): void {
    this.decoded = this.block;
    this.pos = 0;
    if (this.blockBytes === null) {
      const tail = this.head.tail;
      this.fit(tail.size);
      this.count = tail.size;
      for (let i = 0; i < tail.size; i++) {
        this.ids[i] = tail.ids[i]!;
        this.tfs[i] = tail.tfs[i]!;
        this.lengths[i] = tail.lengths[i]!;
      }
      return;
    }
    const bytes = this.blockBytes;
    const reader = new ByteReader(bytes, this.blockPayload);
    const count = reader.varint();
    this.fit(count);
    this.count = count;
    const { ids, tfs, lengths } = this;
    let at = reader.at;
    let id = this.blockFirst;
    // The varints inline: a frequent term's search decodes tens of thousands of postings.
    for (let i = 0; i < count; i++) {
      let b = bytes[at++]!;
      if (b < 0x80) id += b;
      else {
        reader.at = at - 1;
        id += reader.varint();
        at = reader.at;
      }
      ids[i] = id;
      b = bytes[at++]!;
      if (b < 0x80) tfs[i] = b;
      else {
        reader.at = at - 1;
        tfs[i] = reader.varint();
        at = reader.at;
      }
      b = bytes[at++]!;
      if (b < 0x80) lengths[i] = b;
      else {
        reader.at = at - 1;
        lengths[i] = reader.varint();
        at = reader.at;
      }
    }
  }

  private fit(count: number): void {
    if (count <= this.ids.length) return;
    // A full block is followed by more: room for the largest at once.
    const size = this.blockBytes === null ? count : Math.max(count, MAX_BLOCK);
    this.ids = new Float64Array(size);
    this.tfs = new Uint32Array(size);
    this.lengths = new Uint32Array(size);
  }
}
