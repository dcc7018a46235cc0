/**
 * The stored vectors of a `_within` search's candidates, one after another, kept while the
 * same candidate set is searched again. The exact path of a small candidate set
 * (vector-index.ts) otherwise reads every candidate's vector copy from LMDB at every
 * search (about 2.5 µs each: 2.5 ms for 1,000 candidates); over the kept vectors a native
 * brute-force pass ranks them about a hundred times faster per candidate, which makes an
 * exact search cheaper than the native walk up to sets ten times larger. A reader keeps a
 * candidate set per columns generation (exec/scan/candidate-cache.ts), so the same object
 * comes back while neither the nodes nor the graph change; an element's vector copy
 * changes only with its node (which changes the columns) or with a new graph (another
 * pointer, in the key).
 *
 * Vectors are kept from a set's second search on: one searched once (a request's own rows,
 * a filter seen once) is never kept, so it never pushes out a set that recurs. Bounded: at
 * most KEPT sets and CANDIDATE_VECTOR_BYTES of vectors per thread, the least recently used
 * dropped first; a set whose vectors alone exceed the bytes is never kept.
 */
import type { Candidates } from './types.js';

/** Candidate sets whose vectors a thread keeps at most. */
const KEPT = 8;
/** The vectors' memory a thread keeps at most. */
export const CANDIDATE_VECTOR_BYTES = 64 * 1024 * 1024;
/**
 * A set is kept from this search on: one searched again is likely searched many times (a
 * category, a tenant), each time at a fraction of the reads' or the walk's cost.
 */
const USES_BEFORE_KEEPING = 2;

/**
 * The candidates that hold a vector, and their vectors one after another: as stored (for
 * exact distances), and as a brute-force pass ranks them (cosine: normalised, so the pass
 * compares inner products instead of recomputing both norms every time; else the same
 * array; a large set ranked by inner product: as i8, native-vectors.ts quantizedI8).
 */
export interface CandidateMatrix {
  readonly ids: Float64Array;
  readonly flat: Float32Array;
  readonly ranked: Float32Array | Int8Array;
}

interface Entry {
  readonly candidates: Candidates;
  readonly key: string;
  readonly matrix: CandidateMatrix;
}

const bytesOf = (m: CandidateMatrix): number => m.flat.byteLength + m.ids.byteLength + (m.ranked === m.flat ? 0 : m.ranked.byteLength);

export class CandidateVectors {
  private entries: Entry[] = [];
  private bytes = 0;
  /** How many searches each candidate set has had (weakly: a set no search holds goes). */
  private readonly uses = new WeakMap<Candidates, number>();

  /**
   * The vectors of `candidates` in the graph named by `key` (its id and pointer): kept, or
   * made by `make` and kept from the set's second search on; on a first search made only
   * when `now` (and not kept). Null when not made, or when they would exceed the budget
   * (`bytes` per candidate).
   */
  get(candidates: Candidates, key: string, bytes: number, now: boolean, make: () => CandidateMatrix): CandidateMatrix | null {
    const at = this.entries.findIndex((e) => e.candidates === candidates && e.key === key);
    if (at >= 0) {
      const [hit] = this.entries.splice(at, 1);
      this.entries.push(hit!);
      return hit!.matrix;
    }
    const uses = (this.uses.get(candidates) ?? 0) + 1;
    this.uses.set(candidates, uses);
    if (candidates.size * bytes > CANDIDATE_VECTOR_BYTES) return null;
    if (uses < USES_BEFORE_KEEPING) return now ? make() : null;
    const matrix = make();
    this.entries.push({ candidates, key, matrix });
    this.bytes += bytesOf(matrix);
    while (this.entries.length > KEPT || this.bytes > CANDIDATE_VECTOR_BYTES) this.bytes -= bytesOf(this.entries.shift()!.matrix);
    return matrix;
  }
}
