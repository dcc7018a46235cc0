/**
 * Node blocks: the adjacency lists of ADJACENCY_BLOCK consecutive nodes, for one
 * direction and label, in one value under [block u64][dir u8][labelId u32]. A write
 * batch that appends to many lists (a load) then writes one value per block instead of
 * one per list: LMDB's cost is per put and per page, and a 100k-node graph has 6k blocks
 * per label, not 200k lists.
 *
 * Value (little-endian u32 words, then f64 pairs):
 *   word 0: slot count (ADJACENCY_BLOCK)
 *   word 1: large-list mask: bit s set means slot s's list lives in adjacency-lists.ts
 *   words 2..2+slots: ends[s], the pair index where slot s's pairs end (start: ends[s-1], or 0)
 *   then (other, edge) f64 pairs, slot by slot, each slot's in edge id order.
 * Building uses typed-array views, so it assumes a little-endian machine, as the pairs do.
 */
import { ADJACENCY_BLOCK } from './layout.js';
import { decodePairs, type Pairs } from './pairs.js';
import { scratch, scratchBuffer } from './scratch.js';

/** Header bytes: two words and the ends; a multiple of 8, so pairs stay aligned. */
export const BLOCK_HEADER = 8 + 4 * ADJACENCY_BLOCK;
const HEADER_WORDS = BLOCK_HEADER / 4;

export const blockOf = (node: number): number => Math.floor(node / ADJACENCY_BLOCK);
export const slotOf = (node: number): number => node % ADJACENCY_BLOCK;

export function largeMask(value: Uint8Array): number {
  return (value as Buffer).readUInt32LE(4);
}

export const isLarge = (mask: number, slot: number): boolean => ((mask >>> slot) & 1) === 1;

/** Pair index range [start, end) of a slot. */
export function slotStart(value: Uint8Array, slot: number): number {
  return slot === 0 ? 0 : (value as Buffer).readUInt32LE(8 + 4 * (slot - 1));
}

export function slotEnd(value: Uint8Array, slot: number): number {
  return (value as Buffer).readUInt32LE(8 + 4 * slot);
}

/** A slot's inline pairs, copied out. */
export function slotPairs(value: Uint8Array, slot: number): Pairs {
  return decodePairs(value, BLOCK_HEADER + slotStart(value, slot) * 16, BLOCK_HEADER + slotEnd(value, slot) * 16);
}

/** Where a build copies the old block it reads (aligned, beside the `scratch` it writes). */
const oldScratch = scratchBuffer(8192);

/**
 * `value` copied to an aligned buffer: one copy of the whole value, then plain typed-array
 * reads. (Read in place, each slot's range cost a Buffer view and each end a checked read;
 * a 1M-edge load rebuilt blocks about two million slot-times.)
 */
function aligned(value: Uint8Array): { words: Uint32Array; doubles: Float64Array } {
  // `length`, not `byteLength`: lmdb-js's getBinaryFast answers a view of its whole read
  // buffer whose `length` says how much of it the value is.
  const n = value.length;
  const copy = oldScratch(n);
  copy.bytes.set(n === value.byteLength ? value : value.subarray(0, n));
  return copy;
}

/**
 * Builds a block value in the shared scratch buffer: for each slot not in `mask`, the
 * pairs of `old` (when given, the slot was inline there and is not `replaced`) then
 * `count(s)` more that `write` puts from double index `at` on. Returns the value's bytes,
 * valid until the next build.
 */
export function buildBlock(
  old: Uint8Array | undefined,
  mask: number,
  count: (slot: number) => number,
  write: (slot: number, doubles: Float64Array, at: number) => void,
  replaced = -1,
): Buffer {
  // Without an old block every slot counts as large there: nothing inline to copy.
  let oldMask = old === undefined ? -1 : largeMask(old);
  if (replaced >= 0) oldMask |= 1 << replaced;
  const copy = old === undefined ? null : aligned(old);
  const oldEnds = copy?.words;
  const oldPairs = copy?.doubles;
  let total = 0;
  for (let s = 0; s < ADJACENCY_BLOCK; s++) {
    slotCounts[s] = 0;
    if (isLarge(mask, s)) continue;
    if (!isLarge(oldMask, s)) total += endIn(oldEnds!, s) - startIn(oldEnds!, s);
    total += slotCounts[s] = count(s);
  }
  const size = BLOCK_HEADER + total * 16;
  const out = scratch(size);
  const doubles = out.doubles;
  out.words[0] = ADJACENCY_BLOCK;
  out.words[1] = mask;
  let at = 0;
  for (let s = 0; s < ADJACENCY_BLOCK; s++) {
    if (!isLarge(mask, s)) {
      if (!isLarge(oldMask, s)) {
        // The slot's old pairs, double by double (a slot holds at most ADJACENCY_BLOCK_LIST).
        const end = PAIRS_AT + 2 * endIn(oldEnds!, s);
        let to = PAIRS_AT + 2 * at;
        for (let k = PAIRS_AT + 2 * startIn(oldEnds!, s); k < end; k++) doubles[to++] = oldPairs![k]!;
        at = (to - PAIRS_AT) / 2;
      }
      const n = slotCounts[s]!;
      if (n > 0) write(s, doubles, PAIRS_AT + at * 2);
      at += n;
    }
    out.words[2 + s] = at;
  }
  return out.bytes.subarray(0, size);
}

/** slotStart and slotEnd over an aligned block's words. */
const startIn = (words: Uint32Array, slot: number): number => (slot === 0 ? 0 : words[1 + slot]!);
const endIn = (words: Uint32Array, slot: number): number => words[2 + slot]!;

/** Per-slot counts of the build in progress. */
const slotCounts = new Uint32Array(ADJACENCY_BLOCK);
/** The double index where a block's pairs start. */
const PAIRS_AT = HEADER_WORDS / 2;

/** True when a block value holds no pair and no large list (it can be deleted). */
export const isEmptyBlock = (value: Uint8Array): boolean => value.length === BLOCK_HEADER && largeMask(value) === 0;
