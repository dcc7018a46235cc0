/**
 * The adjacency of a bulk load (bulk-build.ts), written once at its end: every edge is
 * logged as it is loaded (its label, ends and id, four bytes each), then a counting sort
 * by node per label and direction puts each list in edge id order, and every node block
 * (adjacency-blocks.ts) and large list (adjacency-lists.ts) is written once, in key order.
 * A load through write batches rewrites a block in every batch that touches it; this is
 * what makes a bulk load linear in its edges.
 */
import { buildBlock } from './adjacency-blocks.js';
import { ListEdits, ListReader } from './adjacency-lists.js';
import type { BlockDb, ListDb } from './layout.js';
import { scratchBlockKey } from './keys.js';
import { ADJACENCY_BLOCK, ADJACENCY_BLOCK_LIST, IN, OUT, type Dir } from './layout.js';

/** A growable u32 column. */
class U32Log {
  n = 0;
  values = new Uint32Array(1 << 16);

  /** Room for `more` values. */
  private reserve(more: number): void {
    if (this.n + more <= this.values.length) return;
    let size = this.values.length * 2;
    while (size < this.n + more) size *= 2;
    const grown = new Uint32Array(size);
    grown.set(this.values.subarray(0, this.n));
    this.values = grown;
  }

  /** Values [from, from + count) of a list (converted to u32 by the typed-array copy). */
  append(values: ArrayLike<number>, from: number, count: number): void {
    this.reserve(count);
    if (ArrayBuffer.isView(values)) {
      const view = values as unknown as Float64Array;
      this.values.set(view.subarray(from, from + count), this.n);
    } else {
      for (let i = 0; i < count; i++) this.values[this.n + i] = values[from + i]!;
    }
    this.n += count;
  }

  /** The numbers first, first + 1, ..., count of them. */
  sequence(first: number, count: number): void {
    this.reserve(count);
    for (let i = 0; i < count; i++) this.values[this.n + i] = first + i;
    this.n += count;
  }
}

/** One label's edges, in the order loaded (ascending edge ids). */
interface LabelEdges {
  readonly from: U32Log;
  readonly to: U32Log;
  readonly ids: U32Log;
}

/** One label's lists in one direction: list of node v is `others/edges[start[v] .. start[v + 1])`. */
interface Lists {
  readonly start: Uint32Array;
  readonly others: Uint32Array;
  readonly edges: Uint32Array;
}

/** Largest id a bulk load logs (u32 columns). */
export const BULK_ID_LIMIT = 2 ** 32 - 1;

export class AdjacencyBuild {
  private readonly byLabel = new Map<number, LabelEdges>();

  /** Logs edges [at, at + count) of the lists, whose ids are first, first + 1, ... */
  add(labelId: number, from: ArrayLike<number>, to: ArrayLike<number>, at: number, count: number, first: number): void {
    let log = this.byLabel.get(labelId);
    if (log === undefined) {
      log = { from: new U32Log(), to: new U32Log(), ids: new U32Log() };
      this.byLabel.set(labelId, log);
    }
    log.from.append(from, at, count);
    log.to.append(to, at, count);
    log.ids.sequence(first + at, count);
  }

  private sorted: { labelId: number; out: Lists; in: Lists }[] = [];
  private large: ListEdits | null = null;

  /** Sorts every label's edges by node, both ways; returns the number of node blocks to write. */
  prepare(nodeLimit: number): number {
    const labels = [...this.byLabel.keys()].sort((a, b) => a - b);
    this.sorted = labels.map((labelId) => {
      const log = this.byLabel.get(labelId)!;
      this.byLabel.delete(labelId);
      return { labelId, out: sortByNode(log.from, log.to, log.ids, nodeLimit), in: sortByNode(log.to, log.from, log.ids, nodeLimit) };
    });
    return Math.ceil(nodeLimit / ADJACENCY_BLOCK);
  }

  /** Writes node blocks [from, to), in key order ([block][dir][label]), and their large lists. */
  writeBlocks(from: number, to: number, blocks: BlockDb, lists: ListDb): void {
    const large = (this.large ??= new ListEdits(lists, new ListReader(lists)));
    for (let block = from; block < to; block++) {
      for (const dir of [OUT, IN] as const) {
        for (const one of this.sorted) writeBlock(blocks, large, block, dir, one.labelId, dir === OUT ? one.out : one.in);
      }
    }
  }
}

/** A counting sort of edges by `key` node: each node's list in the order loaded. */
function sortByNode(key: U32Log, other: U32Log, ids: U32Log, nodeLimit: number): Lists {
  const n = key.n;
  const start = new Uint32Array(nodeLimit + 1);
  const keys = key.values;
  for (let i = 0; i < n; i++) start[keys[i]! + 1]!++;
  for (let v = 1; v <= nodeLimit; v++) start[v]! += start[v - 1]!;
  const next = start.slice(0, nodeLimit);
  const others = new Uint32Array(n);
  const edges = new Uint32Array(n);
  const otherValues = other.values;
  const idValues = ids.values;
  for (let i = 0; i < n; i++) {
    const at = next[keys[i]!]!++;
    others[at] = otherValues[i]!;
    edges[at] = idValues[i]!;
  }
  return { start, others, edges };
}

/** One node block of one direction and label; nothing when none of its nodes has a list. */
function writeBlock(blocks: BlockDb, large: ListEdits, block: number, dir: Dir, labelId: number, lists: Lists): void {
  const first = block * ADJACENCY_BLOCK;
  const last = Math.min(first + ADJACENCY_BLOCK, lists.start.length - 1);
  if (lists.start[first] === lists.start[last]) return;
  let mask = 0;
  for (let v = first; v < last; v++) {
    const count = lists.start[v + 1]! - lists.start[v]!;
    if (count > ADJACENCY_BLOCK_LIST) mask |= 1 << (v - first);
  }
  const countOf = (slot: number) => {
    const v = first + slot;
    return v >= last || ((mask >>> slot) & 1) === 1 ? 0 : lists.start[v + 1]! - lists.start[v]!;
  };
  const value = buildBlock(undefined, mask, countOf, (slot, doubles, at) => {
    const v = first + slot;
    for (let k = lists.start[v]!, end = lists.start[v + 1]!; k < end; k++, at += 2) {
      doubles[at] = lists.others[k]!;
      doubles[at + 1] = lists.edges[k]!;
    }
  });
  blocks.putSync(scratchBlockKey(block, dir, labelId), value, { append: true });
  for (let slot = 0; mask !== 0 && slot < ADJACENCY_BLOCK; slot++) {
    if (((mask >>> slot) & 1) === 0) continue;
    const v = first + slot;
    large.append(v, dir, labelId, lists.others, lists.edges, lists.start[v]!, lists.start[v + 1]!, true);
  }
}
