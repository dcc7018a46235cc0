/**
 * Adjacency: for every (node, direction, label), the (other node, edge) pairs in edge id
 * order (ids only grow, so appending keeps the order). Small lists live in node blocks
 * (adjacency-blocks.ts), a list longer than ADJACENCY_BLOCK_LIST under keys of its own
 * (adjacency-lists.ts). A write batch logs its appends and, when it finishes, writes each
 * block it touched once, blocks in key order (neighbouring puts land on neighbouring
 * B-tree pages).
 */
import { blockOf, buildBlock, isEmptyBlock, isLarge, largeMask, slotEnd, slotOf, slotPairs, slotStart } from './adjacency-blocks.js';
import { ListEdits, ListReader } from './adjacency-lists.js';
import type { ListDb } from './layout.js';
import { AppendLog, SortedAppends } from './append-log.js';
import { adjacencyRange, blockKeyLabel, greatestLeadingU64, scratchBlockKey } from './keys.js';
import { ADJACENCY_BLOCK, ADJACENCY_BLOCK_LIST, type Dir, type BlockDb } from './layout.js';
import { concatPairs, EMPTY_PAIRS, indexOfEdge, type Pairs } from './pairs.js';

export type { ListDb, Pairs };

export class AdjacencyReader {
  private readonly large: ListReader;

  constructor(
    protected readonly blocks: BlockDb,
    lists: ListDb,
  ) {
    this.large = new ListReader(lists);
  }

  /** The pairs of one list, in edge id order. */
  list(node: number, dir: Dir, labelId: number): Pairs {
    const value = this.blocks.getBinaryFast(scratchBlockKey(blockOf(node), dir, labelId));
    if (value === undefined) return EMPTY_PAIRS;
    const slot = slotOf(node);
    return isLarge(largeMask(value), slot) ? this.large.list(node, dir, labelId) : slotPairs(value, slot);
  }

  /** Every non-empty list of (node, dir): one entry per label, in label id order. */
  lists(node: number, dir: Dir): { labelId: number; pairs: Pairs }[] {
    const slot = slotOf(node);
    const found: { labelId: number; pairs: Pairs | null }[] = [];
    for (const { key, value } of this.blocks.getRange(adjacencyRange(blockOf(node), dir))) {
      found.push({ labelId: blockKeyLabel(key), pairs: isLarge(largeMask(value), slot) ? null : slotPairs(value, slot) });
    }
    const out: { labelId: number; pairs: Pairs }[] = [];
    for (const { labelId, pairs } of found) {
      const all = pairs ?? this.large.list(node, dir, labelId);
      if (all.others.length > 0) out.push({ labelId, pairs: all });
    }
    return out;
  }
}

/** Per-slot counts and first positions of one block's appends; reused across blocks. */
const slotCounts = new Uint32Array(ADJACENCY_BLOCK);
const slotFirst = new Uint32Array(ADJACENCY_BLOCK);

/**
 * A write batch's adjacency changes. Appends are only logged, and written when the batch
 * finishes; any read or removal within the batch writes them first, so the batch sees its
 * own writes. Removals apply at once.
 */
export class AdjacencyEdits {
  private log = new AppendLog();
  private readonly large: ListEdits;
  /**
   * The greatest block stored when the current flush began: greater blocks are new, so
   * they need no lookup (a load into a fresh graph does none).
   */
  private lastStoredBlock = -1;

  constructor(
    private readonly blocks: BlockDb,
    lists: ListDb,
  ) {
    this.large = new ListEdits(lists, new ListReader(lists));
  }

  append(node: number, dir: Dir, labelId: number, other: number, edge: number): void {
    // Ordered by (block, dir, slot): one block's appends in one direction are contiguous.
    this.log.push((blockOf(node) * 2 + dir) * ADJACENCY_BLOCK + slotOf(node), labelId, other, edge);
  }

  /** Makes room for `count` more appends (a table of edges stored at once: graph.ts createEdges). */
  reserve(count: number): void {
    this.log.reserve(count);
  }

  /** Writes every pending append. */
  flush(): void {
    if (this.log.n === 0) return;
    const log = this.log.sorted();
    this.log = new AppendLog();
    this.lastStoredBlock = greatestLeadingU64(this.blocks);
    let start = 0;
    while (start < log.n) {
      const group = Math.floor(log.keys[start]! / ADJACENCY_BLOCK);
      let end = start + 1;
      while (end < log.n && Math.floor(log.keys[end]! / ADJACENCY_BLOCK) === group) end++;
      this.appendGroup(Math.floor(group / 2), (group % 2) as Dir, log, start, end);
      start = end;
    }
  }

  /** Appends entries [start, end) (one block and direction, by slot) label by label. */
  private appendGroup(block: number, dir: Dir, log: SortedAppends, start: number, end: number): void {
    const first = log.labels[start]!;
    let mixed = false;
    for (let k = start + 1; k < end && !mixed; k++) mixed = log.labels[k] !== first;
    if (!mixed) {
      this.appendBlock(block, dir, first, log, start, end);
      return;
    }
    // Rare: several labels in one block; each label's entries, in order, as a log of their own.
    const byLabel = new Map<number, number[]>();
    for (let k = start; k < end; k++) {
      const labelId = log.labels[k]!;
      let indices = byLabel.get(labelId);
      if (indices === undefined) byLabel.set(labelId, (indices = []));
      indices.push(k);
    }
    for (const [labelId, indices] of byLabel) {
      const one = new SortedAppends(indices.length);
      indices.forEach((k, at) => one.set(at, log, k));
      this.appendBlock(block, dir, labelId, one, 0, one.n);
    }
  }

  /**
   * Appends entries [start, end) (one block, direction and label, by slot) to the block:
   * inline where the list stays short, else to its large list (moving the list there the
   * first time it outgrows ADJACENCY_BLOCK_LIST).
   */
  private appendBlock(block: number, dir: Dir, labelId: number, log: SortedAppends, start: number, end: number): void {
    slotCounts.fill(0);
    for (let k = start; k < end; k++) slotCounts[log.keys[k]! % ADJACENCY_BLOCK]!++;
    for (let s = 0, at = start; s < ADJACENCY_BLOCK; s++) {
      slotFirst[s] = at;
      at += slotCounts[s]!;
    }
    const key = scratchBlockKey(block, dir, labelId);
    const old = block > this.lastStoredBlock ? undefined : this.blocks.getBinaryFast(key);
    let mask = old === undefined ? 0 : largeMask(old);
    // Lists that go to (or already live in) the large-list store, with the pairs they had inline.
    const moved: { slot: number; inline: Pairs | null }[] = [];
    for (let s = 0; s < ADJACENCY_BLOCK; s++) {
      if (slotCounts[s] === 0) continue;
      if (isLarge(mask, s)) {
        moved.push({ slot: s, inline: null });
        continue;
      }
      const stored = old === undefined ? 0 : slotEnd(old, s) - slotStart(old, s);
      if (stored + slotCounts[s]! > ADJACENCY_BLOCK_LIST) {
        moved.push({ slot: s, inline: old === undefined ? EMPTY_PAIRS : slotPairs(old, s) });
        mask |= 1 << s;
      }
    }
    const value = buildBlock(
      old,
      mask,
      (s) => (isLarge(mask, s) ? 0 : slotCounts[s]!),
      (s, doubles, at) => {
        for (let k = slotFirst[s]!, last = k + slotCounts[s]!; k < last; k++, at += 2) {
          doubles[at] = log.others[k]!;
          doubles[at + 1] = log.edges[k]!;
        }
      },
    );
    this.blocks.putSync(scratchBlockKey(block, dir, labelId), value);
    for (const { slot, inline } of moved) {
      const from = slotFirst[slot]!;
      const to = from + slotCounts[slot]!;
      const node = block * ADJACENCY_BLOCK + slot;
      if (inline === null) {
        this.large.append(node, dir, labelId, log.others, log.edges, from, to, false);
      } else {
        const pairs = concatPairs([inline, { others: log.others.subarray(from, to), edges: log.edges.subarray(from, to) }]);
        this.large.append(node, dir, labelId, pairs.others, pairs.edges, 0, pairs.others.length, true);
      }
    }
  }

  /** Removes one edge from a list (pending appends are written first). */
  remove(node: number, dir: Dir, labelId: number, edge: number): void {
    this.flush();
    const value = this.blocks.getBinary(scratchBlockKey(blockOf(node), dir, labelId));
    if (value === undefined) return;
    const slot = slotOf(node);
    const mask = largeMask(value);
    if (isLarge(mask, slot)) {
      this.large.remove(node, dir, labelId, edge);
      return;
    }
    const pairs = slotPairs(value, slot);
    const at = indexOfEdge(pairs, edge);
    if (at < 0) return;
    const n = pairs.others.length - 1;
    const rebuilt = buildBlock(
      value,
      mask,
      (s) => (s === slot ? n : 0),
      (_s, doubles, to) => {
        for (let i = 0; i <= n; i++) {
          if (i === at) continue;
          doubles[to++] = pairs.others[i]!;
          doubles[to++] = pairs.edges[i]!;
        }
      },
      slot,
    );
    this.putOrRemove(blockOf(node), dir, labelId, rebuilt);
  }

  /** Deletes every list of (node, dir). */
  removeAll(node: number, dir: Dir): void {
    this.flush();
    const slot = slotOf(node);
    const found: { labelId: number; value: Buffer }[] = [];
    for (const { key, value } of this.blocks.getRange(adjacencyRange(blockOf(node), dir)))
      found.push({ labelId: blockKeyLabel(key), value: Buffer.from(value) });
    for (const { labelId, value } of found) {
      let mask = largeMask(value);
      if (isLarge(mask, slot)) {
        this.large.removeList(node, dir, labelId);
        mask &= ~(1 << slot);
      } else if (slotEnd(value, slot) === slotStart(value, slot)) {
        continue;
      }
      this.putOrRemove(
        blockOf(node),
        dir,
        labelId,
        buildBlock(
          value,
          mask,
          () => 0,
          () => {},
          slot,
        ),
      );
    }
  }

  /** Stores a rebuilt block, or deletes it when nothing is left in it. */
  private putOrRemove(block: number, dir: Dir, labelId: number, value: Buffer): void {
    if (isEmptyBlock(value)) this.blocks.removeSync(scratchBlockKey(block, dir, labelId));
    else this.blocks.putSync(scratchBlockKey(block, dir, labelId), value);
  }
}
