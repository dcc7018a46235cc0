/**
 * The best `k` documents of an OR query without scoring every posting: document-at-a-time
 * MaxScore (Turtle and Flood) with block-max bounds (as Lucene's and PISA's block-max
 * MaxScore), over posting cursors that know an upper bound of their term's score in every
 * document (`maxScore`) and in each block of postings (`blockMax`).
 *
 * - **MaxScore.** Terms are ordered by `maxScore`. Once the k-th best score (the
 *   threshold) is at least the sum of the smallest bounds, those terms are
 *   *non-essential*: a document holding only them cannot enter, so candidates come from
 *   the essential terms alone, and a non-essential term is looked up in a candidate only
 *   while the candidate's score so far plus the bounds of the terms not yet looked up
 *   could still beat the threshold.
 * - **Block-max.** For the window of ids up to the end of the nearest block of any term,
 *   the sum of the blocks' bounds bounds every document in it; when that cannot beat the
 *   threshold the whole window is skipped, and the essential cursors jump past it without
 *   decoding the blocks in between. Within a window, block bounds replace the looser
 *   per-term bounds of non-essential terms.
 *
 * The result is exactly that of scoring every document: a document's score is the sum of
 * its terms' scores in query order (as scoreDocument adds them), rounded to f32, and ranks
 * by compareScored. Documents are visited in ascending id order, so a document whose
 * rounded score equals the threshold would lose the tie to every kept one (smaller ids):
 * a candidate is pruned when its bound, rounded to f32, is at most the threshold. Bounds
 * are inflated by BOUND_SLACK first, so the rounding of sums taken in another order can
 * never make a bound fall below a score.
 */
import { TopHits, type ScoredId } from './bm25.js';

/** A cursor's `doc` once it is past its last posting. */
export const NO_MORE = Number.POSITIVE_INFINITY;

/** Relative slack on every bound (far above the few ulps summation order can move a sum). */
const BOUND_SLACK = 1 + 1e-9;

/** The postings of one query term in ascending element id order, with score bounds. */
export interface TermCursor {
  /** The term's position among the query's terms. */
  readonly term: number;
  /** At least the term's score in any document. */
  readonly maxScore: number;
  /** The current posting's element id, NO_MORE past the last. */
  readonly doc: number;
  /** Moves to the first posting whose id is at least `target` (never backwards). */
  advance(target: number): void;
  /** The term's score in the current posting's document. */
  score(): number;
  /**
   * Moves the block pointer (never backwards, never decoding) to the first block whose last
   * id is at least `target`; returns that last id, NO_MORE when there is no such block.
   */
  shallowAdvance(target: number): number;
  /** At least the score of every posting of the block shallowAdvance found (0 past the last). */
  blockMax(): number;
}

/**
 * The best `k` documents for the OR of the cursors' terms (`terms` is the query's term
 * count; a term without postings has no cursor), only those `accept` allows when given.
 */
export function topKOr(cursors: readonly TermCursor[], terms: number, k: number, accept?: (id: number) => boolean): ScoredId[] {
  const best = new TopHits(k);
  if (k <= 0 || cursors.length === 0) return [];
  // Ascending bounds: the first `essential` cursors are the non-essential ones.
  const sorted = [...cursors].sort((a, b) => a.maxScore - b.maxScore);
  const n = sorted.length;
  const bounds = sorted.map((c) => c.maxScore * BOUND_SLACK);
  /** prefix[i]: the sum of bounds[0..i], what a document of only those terms can score. */
  const prefix: number[] = [];
  bounds.reduce((sum, b, i) => (prefix[i] = sum + b), 0);
  const shares = new Float64Array(terms);
  /** The window's block bounds per cursor, valid for ids up to windowEnd. */
  const windowBounds = new Float64Array(n);
  let windowEnd = -1;
  let windowSum = 0;
  /** The window from `start` to the end of the nearest block: its bounds, by block pointers only. */
  const window = (start: number): void => {
    windowEnd = NO_MORE;
    windowSum = 0;
    for (let i = 0; i < n; i++) {
      const c = sorted[i]!;
      const end = c.shallowAdvance(start);
      const bound = end === NO_MORE ? 0 : Math.min(bounds[i]!, c.blockMax() * BOUND_SLACK);
      windowBounds[i] = bound;
      windowSum += bound;
      windowEnd = Math.min(windowEnd, end);
    }
  };
  let essential = 0;
  let threshold = -Infinity;

  search: while (essential < n) {
    let doc = NO_MORE;
    for (let i = essential; i < n; i++) doc = Math.min(doc, sorted[i]!.doc);
    if (doc === NO_MORE) break;

    if (threshold > -Infinity) {
      if (doc > windowEnd) window(doc);
      if (Math.fround(windowSum) <= threshold) {
        // No document up to windowEnd can enter: move on window by window, without
        // decoding a block, to the first that can; the essential cursors then land in it.
        let start: number;
        do {
          if (windowEnd === NO_MORE) break search;
          start = windowEnd + 1;
          window(start);
        } while (Math.fround(windowSum) <= threshold);
        for (let i = essential; i < n; i++) sorted[i]!.advance(start);
        continue;
      }
    }

    if (accept === undefined || accept(doc)) {
      const inWindow = doc <= windowEnd;
      let bound = 0;
      for (let i = essential; i < n; i++) {
        const c = sorted[i]!;
        if (c.doc !== doc) continue;
        const share = c.score();
        shares[c.term] = share;
        bound += share;
      }
      for (let i = 0; i < essential; i++) bound += inWindow ? windowBounds[i]! : bounds[i]!;
      let pruned = false;
      for (let i = essential - 1; i >= 0; i--) {
        if (Math.fround(bound) <= threshold) {
          pruned = true;
          break;
        }
        const c = sorted[i]!;
        bound -= inWindow ? windowBounds[i]! : bounds[i]!;
        c.advance(doc);
        if (c.doc === doc) {
          const share = c.score();
          shares[c.term] = share;
          bound += share;
        }
      }
      if (!pruned) {
        let sum = 0;
        for (let t = 0; t < terms; t++) sum += shares[t]!;
        const score = Math.fround(sum);
        if (score > threshold && best.offer(doc, score) && best.full) {
          threshold = best.threshold;
          while (essential < n && Math.fround(prefix[essential]!) <= threshold) essential++;
        }
      }
      for (let i = 0; i < n; i++) shares[sorted[i]!.term] = 0;
    }
    for (let i = essential; i < n; i++) {
      const c = sorted[i]!;
      if (c.doc === doc) c.advance(doc + 1);
    }
  }
  return best.sorted();
}
