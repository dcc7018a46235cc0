/**
 * Applies one write batch's posting changes for one term of one partition to its stored
 * head and blocks (layout: text-blocks.ts), in the batch's write transaction. A batch
 * collects its changes first (text-postings.ts), so a term is read and rewritten once per
 * batch however many of the batch's documents hold it.
 *
 * - Changes at or past the head's `blocks end` go to the tail, which is cut into full
 *   blocks of BLOCK_SIZE as it fills: element ids grow, so new documents only append.
 * - Changes below it (an older document rewritten or removed) go to the block holding the
 *   greatest first id at or below theirs (the first block, below every first id); a block
 *   is rewritten with its impacts recomputed, re-keyed when its first id changed, split
 *   past MAX_BLOCK postings and deleted when emptied.
 * - df counts postings added and removed; the head's impacts merge the new postings' pairs
 *   (removals leave them as they are: a bound may only grow looser, never wrong).
 */
import {
  appendToHead,
  BLOCK_SIZE,
  decodeBlock,
  decodeHead,
  encodeBlock,
  encodeHead,
  impactsOf,
  MAX_BLOCK,
  PostingList,
  type TermHead,
} from './text-blocks.js';
import { readU64, TEXT_KEY_KIND, writeU64 } from './keys.js';
import type { TextDb } from './layout.js';

/** A pending change of one element's posting: tf · LENGTH_SCALE + length, or REMOVED. */
export const REMOVED = -1;
/** Lengths stay below 2^24: the per-document limits refuse a document of that many tokens first. */
export const LENGTH_SCALE = 2 ** 24;

export const packPosting = (tf: number, length: number): number => tf * LENGTH_SCALE + length;

/** The key of a term's block: its head key under the block kind, then the block's first id. */
export function blockKey(headKey: Buffer, first: number): Buffer {
  const key = Buffer.allocUnsafe(headKey.length + 8);
  headKey.copy(key, 0);
  key[4] = TEXT_KEY_KIND.block;
  writeU64(key, headKey.length, first);
  return key;
}

/** What every block key of the term starts with (and sorts before all of them). */
function blockPrefix(headKey: Buffer): Buffer {
  const key = Buffer.from(headKey);
  key[4] = TEXT_KEY_KIND.block;
  return key;
}

/** The key range of every block of the term (element ids are below 2^53). */
export function blockRange(headKey: Buffer): { start: Buffer; end: Buffer } {
  return { start: blockKey(headKey, 0), end: blockKey(headKey, 2 ** 53) };
}

interface Applied {
  readonly list: PostingList;
  readonly dfDelta: number;
}

/**
 * Merges changes [from, to) of `ids`/`changes` (ascending ids, one change each) into a
 * sorted list; `added` collects the (tf, length) pairs of the postings put.
 */
function applyChanges(
  list: PostingList,
  ids: ArrayLike<number>,
  changes: ArrayLike<number>,
  from: number,
  to: number,
  added: number[],
): Applied {
  const out = new PostingList();
  let dfDelta = 0;
  let i = 0;
  let j = from;
  while (i < list.size || j < to) {
    const id = i < list.size ? list.ids[i]! : Infinity;
    const changeId = j < to ? ids[j]! : Infinity;
    if (id < changeId) {
      out.push(id, list.tfs[i]!, list.lengths[i]!);
      i++;
      continue;
    }
    const packed = changes[j]!;
    const existed = id === changeId;
    if (existed) i++;
    if (packed === REMOVED) {
      if (existed) dfDelta--;
    } else {
      if (!existed) dfDelta++;
      const tf = Math.floor(packed / LENGTH_SCALE);
      const length = packed % LENGTH_SCALE;
      out.push(changeId, tf, length);
      added.push(tf, length);
    }
    j++;
  }
  return { list: out, dfDelta };
}

interface LoadedBlock {
  readonly first: number;
  readonly list: PostingList;
  /** Its changes: [from, to) of the term's change arrays. */
  from: number;
  to: number;
}

export class TermWriter {
  constructor(private readonly db: TextDb) {}

  /** Applies changes (ascending ids, one change each) to the term whose head is at `headKey`. */
  apply(headKey: Buffer, ids: ArrayLike<number>, changes: ArrayLike<number>): void {
    // Not copied: lmdb-js's buffer stays valid until the next read, and the head is decoded
    // (or appended to) before any.
    const raw = this.db.getBinaryFast(headKey);
    if (raw !== undefined && this.append(headKey, raw, ids, changes)) return;
    const head: TermHead = raw === undefined ? { df: 0, blocks: 0, blocksEnd: 0, impacts: [], tail: new PostingList() } : decodeHead(raw);
    const added: number[] = [];
    let split = 0;
    if (head.blocks > 0) while (split < ids.length && ids[split]! < head.blocksEnd) split++;
    let df = head.df;
    if (split > 0) df += this.applyToBlocks(headKey, head, ids, changes, split, added);
    const tail = applyChanges(head.tail, ids, changes, split, ids.length, added);
    df += tail.dfDelta;
    let rest = tail.list;
    let cut = 0;
    while (rest.size - cut >= BLOCK_SIZE) {
      const block = rest.slice(cut, cut + BLOCK_SIZE);
      this.db.putSync(blockKey(headKey, block.ids[0]!), encodeBlock(block));
      head.blocks++;
      head.blocksEnd = block.ids[BLOCK_SIZE - 1]! + 1;
      cut += BLOCK_SIZE;
    }
    if (cut > 0) rest = rest.slice(cut, rest.size);
    if (df === 0) {
      if (head.blocks !== 0 || rest.size !== 0) throw new Error('text index: a term without documents still holds postings');
      if (raw !== undefined) this.db.removeSync(headKey);
      return;
    }
    if (head.blocks === 0) head.blocksEnd = 0;
    if (added.length > 0) added.push(...head.impacts);
    const impacts = added.length === 0 ? head.impacts : impactsOf(added);
    this.db.putSync(headKey, encodeHead({ df, blocks: head.blocks, blocksEnd: head.blocksEnd, impacts, tail: rest }));
  }

  /** New postings past the stored ones into a tail that stays short: no decoding (text-blocks.ts appendToHead). */
  private append(headKey: Buffer, raw: Buffer, ids: ArrayLike<number>, changes: ArrayLike<number>): boolean {
    // A tail stays below BLOCK_SIZE postings: so many would fill it (a frequent term of a bulk load).
    if (changes.length >= BLOCK_SIZE) return false;
    const tfs: number[] = [];
    const lengths: number[] = [];
    for (let i = 0; i < changes.length; i++) {
      const packed = changes[i]!;
      if (packed === REMOVED) return false;
      tfs.push(Math.floor(packed / LENGTH_SCALE));
      lengths.push(packed % LENGTH_SCALE);
    }
    const head = appendToHead(raw, ids, tfs, lengths);
    if (head === null) return false;
    this.db.putSync(headKey, head);
    return true;
  }

  /** Applies changes [0, to) (all below the head's blocks end) to the full blocks; returns the df change. */
  private applyToBlocks(
    headKey: Buffer,
    head: TermHead,
    ids: ArrayLike<number>,
    changes: ArrayLike<number>,
    to: number,
    added: number[],
  ): number {
    const loaded: LoadedBlock[] = [];
    for (let j = 0; j < to; j++) {
      const id = ids[j]!;
      const last = loaded[loaded.length - 1];
      // Ids within a loaded block's range belong to it; others need a look-up.
      if (last !== undefined && last.to === j && id <= last.list.ids[last.list.size - 1]!) {
        last.to = j + 1;
        continue;
      }
      const found = this.blockFor(headKey, id);
      if (last !== undefined && last.first === found.first && last.to === j) last.to = j + 1;
      else loaded.push({ ...found, from: j, to: j + 1 });
    }
    let dfDelta = 0;
    for (const block of loaded) {
      const applied = applyChanges(block.list, ids, changes, block.from, block.to, added);
      dfDelta += applied.dfDelta;
      const list = applied.list;
      const oldKey = blockKey(headKey, block.first);
      if (list.size === 0 || list.ids[0] !== block.first) this.db.removeSync(oldKey);
      if (list.size === 0) {
        head.blocks--;
        continue;
      }
      // Split an overgrown block into halves of at least BLOCK_SIZE.
      const parts = list.size > MAX_BLOCK ? Math.floor(list.size / BLOCK_SIZE) : 1;
      const per = Math.ceil(list.size / parts);
      for (let from = 0; from < list.size; from += per) {
        const part = parts === 1 ? list : list.slice(from, Math.min(from + per, list.size));
        this.db.putSync(from === 0 && list.ids[0] === block.first ? oldKey : blockKey(headKey, part.ids[0]!), encodeBlock(part));
      }
      head.blocks += parts - 1;
    }
    return dfDelta;
  }

  /** The block holding the greatest first id at or below `id`, or the first block. */
  private blockFor(headKey: Buffer, id: number): { first: number; list: PostingList } {
    const floor = this.db.getRange({ start: blockKey(headKey, id), end: blockPrefix(headKey), reverse: true, limit: 1 });
    for (const { key, value } of floor) {
      const first = readU64(key, key.length - 8);
      return { first, list: decodeBlock(first, value) };
    }
    const firstBlock = this.db.getRange({ ...blockRange(headKey), limit: 1 });
    for (const { key, value } of firstBlock) {
      const first = readU64(key, key.length - 8);
      return { first, list: decodeBlock(first, value) };
    }
    throw new Error('text index: a term head counts blocks that are not stored');
  }
}
