/**
 * How a native search keeps its k nearest (vector-index.ts): a bounded heap by exact
 * distance, ties by id, and the offering of a segment's orphans beside the graph's hits.
 */
import { MaxHeap } from '../search/heap.js';
import type { OrphanSearch } from './orphan-search.js';
import type { VectorHit } from './types.js';

/** The k nearest so far: a bounded heap, farthest on top. */
export class Nearest {
  private readonly heap = new MaxHeap();

  constructor(private readonly k: number) {}

  offer(id: number, distance: number): void {
    const heap = this.heap;
    if (heap.size < this.k) heap.push(distance, id);
    else if (distance < heap.topDistance() || (distance === heap.topDistance() && id < heap.topId())) {
      heap.pop();
      heap.push(distance, id);
    }
  }

  /** The distance an element must come under to be kept: the farthest kept once k are, else infinity. */
  bar(): number {
    return this.heap.size < this.k ? Infinity : this.heap.topDistance();
  }

  hits(): VectorHit[] {
    return this.heap.sorted();
  }
}

/** A segment's orphans as a search ranks them. */
export interface OrphanSet {
  readonly search: OrphanSearch;
  /** Their element ids, by position. */
  readonly ids: ArrayLike<number>;
  /** Their vectors as stored, by position. */
  readonly vectors: readonly Float32Array[];
}

export interface OrphanQuery {
  /** The query in the segment's native space. */
  readonly query: Float32Array;
  readonly k: number;
  /** The share of the elements the search may keep (1 unfiltered). */
  readonly selectivity: number;
  /** The exact distance of a stored vector to the query. */
  readonly exact: (v: Float32Array) => number;
  /** Whether the search may keep an element (its candidates, not queued). */
  readonly accept: (id: number) => boolean;
  /** The least exact distance a native one allows, or null where it bounds none (vector-index.ts EXACT_AT_LEAST). */
  readonly atLeast: ((native: number) => number) | null;
}

/**
 * Offers the orphans that may rank: about RERANK times k of the nearest (over the share a
 * search may keep), each ranked exactly while its native distance allows an exact one
 * within the k-th kept (offered after the graph's hits, so the bar is theirs). The count
 * widens while too few of those found pass, or while the farthest found could still rank
 * (a group of ties larger than the count: copies of one vector, ranked whole and by id).
 * A wider round finds the earlier ones again: each is offered once.
 */
export function offerOrphans(orphans: OrphanSet, q: OrphanQuery, rerank: number, nearest: Nearest): void {
  const size = orphans.ids.length;
  if (size === 0) return;
  const { atLeast } = q;
  const offered = new Set<number>();
  for (let count = Math.ceil((rerank * q.k) / q.selectivity); ; count *= 4) {
    let passed = 0;
    const { positions, distances } = orphans.search.nearest(q.query, Math.min(count, size));
    for (let j = 0; j < positions.length; j++) {
      const i = positions[j]!;
      const id = orphans.ids[i]!;
      if (!q.accept(id)) continue;
      passed++;
      if (offered.has(id) || (atLeast !== null && atLeast(distances[j]!) > nearest.bar())) continue;
      offered.add(id);
      nearest.offer(id, q.exact(orphans.vectors[i]!));
    }
    const farthest = distances[positions.length - 1];
    const open = atLeast !== null && farthest !== undefined && atLeast(farthest) <= nearest.bar();
    if ((passed >= q.k && !open) || count >= size) return;
  }
}
