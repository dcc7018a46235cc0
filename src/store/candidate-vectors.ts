/**
 * The stored vectors of a `_within` search's candidates, one after another, kept while the
 * same candidate set is searched again. The exact path of a small candidate set
 * (vector-index.ts) otherwise reads every candidate's vector copy from LMDB at every
 * search (about 2.5 µs each: 2.5 ms for 1,000 candidates); over the kept vectors a native
 * brute-force pass ranks them about a hundred times faster per candidate, which makes an
 * exact search cheaper than the native walk up to sets ten times larger. A reader keeps a candidate set per
 * columns generation (exec/scan/candidate-cache.ts), so the same object comes back while
 * neither the nodes nor the graph change; an element's vector copy changes only with its
 * node (which changes the columns) or with a new graph (another pointer, in the key).
 *
 * Bounded: at most KEPT sets and BYTES of vectors per thread, the least recently used
 * dropped first; a set whose vectors alone exceed BYTES is never kept.
 */
import type { Candidates } from './types.js';

/** Candidate sets a thread keeps (with their vectors, or only their count of uses) at most. */
const KEPT = 8;
/** The vectors' memory a thread keeps at most. */
export const CANDIDATE_VECTOR_BYTES = 64 * 1024 * 1024;
/**
 * A candidate set whose exact search is worth its vectors' reads only if repeated gets them
 * on its second search (the first is left to the native walk): a set searched once is
 * never read whole, and one searched again is likely searched many times (a category, a
 * tenant), each time at a fraction of the walk's cost.
 */
const USES_BEFORE_KEEPING = 2;

/**
 * The candidates that hold a vector, and their vectors one after another: as stored (for
 * exact distances), and as a brute-force pass ranks them (cosine: normalised, so the pass
 * compares inner products instead of recomputing both norms every time; else the same array).
 */
export interface CandidateMatrix {
  readonly ids: Float64Array;
  readonly flat: Float32Array;
  readonly ranked: Float32Array;
}

interface Entry {
  readonly candidates: Candidates;
  readonly key: string;
  uses: number;
  matrix: CandidateMatrix | null;
}

const bytesOf = (m: CandidateMatrix | null): number =>
  m === null ? 0 : m.flat.byteLength + m.ids.byteLength + (m.ranked === m.flat ? 0 : m.ranked.byteLength);

export class CandidateVectors {
  private entries: Entry[] = [];
  private bytes = 0;

  /**
   * The vectors of `candidates` in the graph named by `key` (its id and pointer), made by
   * `make` unless kept: at once when `now`, else from the set's second search on. Null when
   * not (yet) kept, or when they would exceed the budget (`bytes` per candidate).
   */
  get(candidates: Candidates, key: string, bytes: number, now: boolean, make: () => CandidateMatrix): CandidateMatrix | null {
    const at = this.entries.findIndex((e) => e.candidates === candidates && e.key === key);
    const entry = at >= 0 ? this.entries.splice(at, 1)[0]! : { candidates, key, uses: 0, matrix: null };
    this.entries.push(entry);
    entry.uses++;
    if (entry.matrix === null && (now || entry.uses >= USES_BEFORE_KEEPING) && candidates.size * bytes <= CANDIDATE_VECTOR_BYTES) {
      entry.matrix = make();
      this.bytes += bytesOf(entry.matrix);
    }
    while (this.entries.length > KEPT || this.bytes > CANDIDATE_VECTOR_BYTES) {
      const old = this.entries.shift()!;
      this.bytes -= bytesOf(old.matrix);
    }
    return entry.matrix;
  }
}
