/**
 * The vector copies a thread has read for the elements a graph's segment holds, kept per
 * segment (its pointer's nonce and generation), so that a search ranking its native hits
 * exactly finds them in memory instead of in LMDB. A search reads about 11 copies (k 10),
 * and each read cost about 3 µs after usearch's walk had evicted LMDB's pages from the
 * core's caches, against about 0.6 µs from an array (docs/benchmarks.md, "Copy reads from
 * LMDB against an array"): about a tenth of an unfiltered search.
 *
 * Why a kept copy is the one the snapshot holds: a copy is written only by the writes
 * that queue the element (vector-index.ts enqueue, and the fill of a graph that keeps no
 * copies yet, whose searches read no copies), and a queued entry leaves the queue only
 * with the publish that makes the next segment. So while a snapshot's pointer names the
 * same segment, an element with no queued entry in it has the copy it had when that
 * segment was published, in every such snapshot; one with an entry is searched from its
 * entry. Only copies of elements without a queued entry in the reading snapshot are kept
 * or answered (the caller's `stale` check comes first); a write batch's own search obeys
 * the same rule (what it changed is queued in its view). A replica that takes a new
 * snapshot replaces every key under its readers: the pointer's random nonce tells one
 * history from another, as for the decoded queue.
 *
 * Bounded: at most COPY_BYTES of copies per thread (a graph's room doubles as it fills);
 * past it, reads go to LMDB again until a graph's segment changes and its copies are
 * dropped, and a graph first read then keeps nothing.
 */

/** The copies a thread keeps at most, over every graph. */
export const COPY_BYTES = 64 * 1024 * 1024;
/** Copies a graph's keep holds room for at first (it doubles as it fills). */
const FIRST_ROOM = 16;

interface Kept {
  readonly nonce: number;
  readonly generation: number;
  readonly dimension: number;
  /** Element id -> its slot in `vectors`. */
  readonly slots: Map<number, number>;
  vectors: Float32Array;
}

export class SegmentCopies {
  private readonly graphs = new Map<number, Kept>();
  private bytes = 0;

  /**
   * A reader of the copies of `graph`'s elements over the segment named by `nonce` and
   * `generation`: the copy of an element not queued in the reading snapshot, kept, or read
   * by `read` (the search's reader of stored copies, vector-index.ts storedVectors) and
   * kept; null when the graph holds no copy of it. The array answered is valid until the
   * next call.
   */
  reader(
    graph: number,
    nonce: number,
    generation: number,
    dimension: number,
    read: (id: number) => Float32Array | null,
  ): (id: number) => Float32Array | null {
    let kept = this.graphs.get(graph);
    if (kept === undefined || kept.nonce !== nonce || kept.generation !== generation) {
      if (kept !== undefined) {
        this.bytes -= kept.vectors.byteLength;
        this.graphs.delete(graph);
      }
      const room = FIRST_ROOM * dimension * 4;
      // Full: read through, keeping nothing (and no entry per graph: tenants may be many).
      if (this.bytes + room > COPY_BYTES) return read;
      kept = { nonce, generation, dimension, slots: new Map(), vectors: new Float32Array(FIRST_ROOM * dimension) };
      this.bytes += room;
      this.graphs.set(graph, kept);
    }
    const k = kept;
    const out = new Float32Array(dimension);
    return (id) => {
      const slot = k.slots.get(id);
      if (slot !== undefined) {
        const from = slot * dimension;
        const vectors = k.vectors;
        for (let i = 0; i < dimension; i++) out[i] = vectors[from + i]!;
        return out;
      }
      const v = read(id);
      if (v === null) return null;
      const next = k.slots.size;
      if ((next + 1) * dimension > k.vectors.length && !this.grow(k)) return v;
      k.vectors.set(v, next * dimension);
      k.slots.set(id, next);
      return v;
    };
  }

  /** Doubles a keep's room, within COPY_BYTES; false when it cannot. */
  private grow(kept: Kept): boolean {
    const bytes = Math.min(kept.vectors.byteLength * 2, kept.vectors.byteLength + (COPY_BYTES - this.bytes));
    const room = Math.floor(bytes / (kept.dimension * 4)) * kept.dimension;
    if (room <= kept.vectors.length) return false;
    const grown = new Float32Array(room);
    grown.set(kept.vectors);
    this.bytes += grown.byteLength - kept.vectors.byteLength;
    kept.vectors = grown;
    return true;
  }

  /** Bytes of copies kept (for tests). */
  get keptBytes(): number {
    return this.bytes;
  }
}
