/**
 * Large adjacency lists, each under keys of its own: [node][dir][labelId][chunk] ->
 * pairs in edge id order, up to ADJACENCY_CHUNK per chunk. A list moves here from its
 * node block (adjacency-blocks.ts) when it outgrows ADJACENCY_BLOCK_LIST, so hubs do
 * not make every write to their block rewrite their whole list.
 *
 * Chunk value: an 8-byte header [u32 flags, u32 0] then the pairs. Flag MORE on chunk 0
 * says the list has (or had) further chunks, so single-chunk lists are read with one get.
 */
import { adjacencyKeyParts, adjacencyRange, scratchAdjacencyKey as chunkKey } from './keys.js';
import { ADJACENCY_CHUNK, type Dir, type ListDb } from './layout.js';
import { concatPairs, decodePairs, EMPTY_PAIRS, indexOfEdge, type Pairs } from './pairs.js';
import { scratch } from './scratch.js';

const HEADER = 8;
const MORE = 1;

const chunkPairs = (value: Uint8Array): Pairs => decodePairs(value, HEADER, value.length);

/** Writes a chunk: flags, then the pairs of others/edges in [from, to). */
function putChunk(
  db: ListDb,
  key: Buffer,
  flags: number,
  others: ArrayLike<number>,
  edges: ArrayLike<number>,
  from: number,
  to: number,
): void {
  const size = HEADER + (to - from) * 16;
  const out = scratch(size);
  out.words[0] = flags;
  out.words[1] = 0;
  for (let i = from, d = HEADER / 8; i < to; i++, d += 2) {
    out.doubles[d] = others[i]!;
    out.doubles[d + 1] = edges[i]!;
  }
  db.putSync(key, out.bytes.subarray(0, size));
}

export class ListReader {
  constructor(protected readonly db: ListDb) {}

  /** The pairs of one list, in edge id order (empty when it has none). */
  list(node: number, dir: Dir, labelId: number): Pairs {
    const first = this.db.getBinaryFast(chunkKey(node, dir, labelId, 0));
    if (first !== undefined && (first.readUInt32LE(0) & MORE) === 0) return chunkPairs(first);
    // Several chunks, or a chunk 0 that was removed: read them all.
    const parts: Pairs[] = [];
    for (const { value } of this.db.getRange(adjacencyRange(node, dir, labelId))) parts.push(chunkPairs(value));
    return parts.length === 0 ? EMPTY_PAIRS : concatPairs(parts);
  }

  /** The last chunk of a list: its number, flags and pairs, or null for a list with none. */
  tail(node: number, dir: Dir, labelId: number): { chunk: number; flags: number; pairs: Pairs } | null {
    const range = adjacencyRange(node, dir, labelId);
    for (const { key, value } of this.db.getRange({ start: range.end, end: range.start, reverse: true, limit: 1 })) {
      return { chunk: adjacencyKeyParts(key).chunk, flags: value.readUInt32LE(0), pairs: chunkPairs(value) };
    }
    return null;
  }
}

export class ListEdits {
  constructor(
    private readonly db: ListDb,
    private readonly reader: ListReader,
  ) {}

  /**
   * Appends pairs [from, to) of others/edges to a list; `fresh` when the caller knows the
   * list has no chunk yet (no lookup then).
   */
  append(
    node: number,
    dir: Dir,
    labelId: number,
    others: ArrayLike<number>,
    edges: ArrayLike<number>,
    from: number,
    to: number,
    fresh: boolean,
  ): void {
    const tail = fresh ? null : this.reader.tail(node, dir, labelId);
    let chunk = tail?.chunk ?? 0;
    let flags = tail?.flags ?? 0;
    let at = from;
    if (tail !== null) {
      // The last chunk takes as many new pairs as fit; chunk 0 is marked when more follow.
      const take = Math.min(ADJACENCY_CHUNK - tail.pairs.others.length, to - at);
      const newFlags = chunk === 0 && at + take < to ? flags | MORE : flags;
      if (take > 0 || newFlags !== flags) {
        const added = {
          others: Array.prototype.slice.call(others, at, at + take),
          edges: Array.prototype.slice.call(edges, at, at + take),
        };
        const merged = concatPairs([tail.pairs, added]);
        putChunk(this.db, chunkKey(node, dir, labelId, chunk), newFlags, merged.others, merged.edges, 0, merged.others.length);
      }
      at += take;
      chunk++;
      flags = 0;
    }
    while (at < to) {
      const end = Math.min(to, at + ADJACENCY_CHUNK);
      if (chunk === 0 && end < to) flags |= MORE;
      putChunk(this.db, chunkKey(node, dir, labelId, chunk), flags, others, edges, at, end);
      at = end;
      chunk++;
      flags = 0;
    }
  }

  /** Removes one edge from a list; false when the list does not hold it. */
  remove(node: number, dir: Dir, labelId: number, edge: number): boolean {
    for (const { key, value } of this.db.getRange(adjacencyRange(node, dir, labelId))) {
      const pairs = chunkPairs(value);
      const at = indexOfEdge(pairs, edge);
      if (at < 0) continue;
      const flags = value.readUInt32LE(0);
      const others = Array.from(pairs.others);
      const edges = Array.from(pairs.edges);
      others.splice(at, 1);
      edges.splice(at, 1);
      const stored = Buffer.from(key);
      // An emptied chunk 0 stays (empty) while it carries MORE, so reads still find the rest.
      if (others.length === 0 && (flags & MORE) === 0) this.db.removeSync(stored);
      else putChunk(this.db, stored, flags, others, edges, 0, others.length);
      return true;
    }
    return false;
  }

  /** Deletes a whole list. */
  removeList(node: number, dir: Dir, labelId: number): void {
    const keys: Buffer[] = [];
    for (const key of this.db.getKeys(adjacencyRange(node, dir, labelId))) keys.push(Buffer.from(key));
    for (const key of keys) this.db.removeSync(key);
  }
}
