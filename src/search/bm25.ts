/**
 * BM25 as tantivy computes it (HelixDB's text search): k1 = 1.2, b = 0.75,
 * IDF = ln(1 + (N − df + 0.5) / (df + 0.5)), a term's weight IDF · (k1 + 1), and a
 * document's score the sum over the query's (deduplicated, OR'ed) terms it contains of
 * weight · tf / (tf + k1 · (1 − b + b · length / average length)).
 *
 * Statistics are exact: N, the average length and df are those of the partition searched,
 * and a document's length is its exact token count (tantivy quantises lengths into one
 * byte, so scores of documents over about 40 tokens differ from its in the low digits).
 * Sums are f64; each final score is rounded to f32 (`$score` is an f32 widened to f64),
 * and ties after rounding go to the smaller element id.
 */

export const BM25_K1 = 1.2;
export const BM25_B = 0.75;

/** Statistics of one partition of an index. */
export interface CorpusStats {
  /** Documents in the partition. */
  readonly documents: number;
  /** Sum of their lengths in tokens. */
  readonly totalLength: number;
}

export interface ScoredId {
  readonly id: number;
  readonly score: number;
}

export function idf(documents: number, df: number): number {
  return Math.log(1 + (documents - df + 0.5) / (df + 0.5));
}

/**
 * Scores the postings of one query term. Build one per term with that term's df; `score`
 * is then one division per posting.
 */
export class TermScorer {
  private readonly weight: number;
  /** k1 · (1 − b) and k1 · b / average length: the length norm is `base + slope · length`. */
  private readonly base: number;
  private readonly slope: number;

  constructor(stats: CorpusStats, df: number) {
    this.weight = idf(stats.documents, df) * (1 + BM25_K1);
    const average = stats.documents === 0 ? 0 : stats.totalLength / stats.documents;
    this.base = BM25_K1 * (1 - BM25_B);
    // A partition of empty documents has no postings to score; avoid dividing by zero.
    this.slope = average === 0 ? 0 : (BM25_K1 * BM25_B) / average;
  }

  score(tf: number, length: number): number {
    return (this.weight * tf) / (tf + this.base + this.slope * length);
  }

  /**
   * The greatest score of the (tf, length) pairs of `impacts` (flat: tf, length, tf,
   * length...; src/store/text-blocks.ts): a score grows with tf and shrinks with length, so
   * this bounds every posting that some pair dominates (a tf no greater, a length no less).
   */
  bound(impacts: readonly number[]): number {
    let best = 0;
    for (let i = 0; i < impacts.length; i += 2) best = Math.max(best, this.score(impacts[i]!, impacts[i + 1]!));
    return best;
  }
}

/**
 * The score of one document for a query, from scratch (reference and brute-force checks;
 * the store scores posting lists with TermScorer). `dfs` holds the df of each query term.
 */
export function scoreDocument(
  stats: CorpusStats,
  query: readonly string[],
  dfs: ReadonlyMap<string, number>,
  document: { readonly length: number; readonly terms: ReadonlyMap<string, number> },
): number {
  let score = 0;
  for (const term of new Set(query)) {
    const tf = document.terms.get(term) ?? 0;
    if (tf > 0) score += new TermScorer(stats, dfs.get(term) ?? 0).score(tf, document.length);
  }
  return score;
}

/** Score descending, then id ascending. */
export function compareScored(a: ScoredId, b: ScoredId): number {
  return b.score - a.score || a.id - b.id;
}

/**
 * The best `k` of accumulated scores, each rounded to f32, ordered by compareScored.
 * Keeps a bounded heap, so ranking m hits costs m · log k, not a sort of all of them.
 */
export function topK(scores: ReadonlyMap<number, number>, k: number): ScoredId[] {
  const best = new TopHits(k);
  for (const [id, raw] of scores) best.offer(id, Math.fround(raw));
  return best.sorted();
}

/** The best `k` hits offered, by compareScored; a min-heap whose root is the worst kept. */
export class TopHits {
  private readonly heap: ScoredId[] = [];

  constructor(private readonly k: number) {}

  get full(): boolean {
    return this.heap.length >= this.k;
  }

  /** The worst score kept once full (a hit must beat it to enter), else -Infinity. */
  get threshold(): number {
    return this.full ? this.heap[0]!.score : -Infinity;
  }

  /** Keeps the hit if it ranks among the best `k` so far; true when kept. */
  offer(id: number, score: number): boolean {
    const heap = this.heap;
    if (this.k <= 0) return false;
    const entry = { id, score };
    if (heap.length < this.k) {
      heap.push(entry);
      siftUp(heap, heap.length - 1);
      return true;
    }
    if (compareScored(entry, heap[0]!) >= 0) return false;
    heap[0] = entry;
    siftDown(heap, 0);
    return true;
  }

  /** The hits kept, best first. */
  sorted(): ScoredId[] {
    return [...this.heap].sort(compareScored);
  }
}

/** Heap order: a parent ranks after (is worse than) its children. */
const worse = (a: ScoredId, b: ScoredId): boolean => compareScored(a, b) > 0;

function siftUp(heap: ScoredId[], at: number): void {
  const entry = heap[at]!;
  while (at > 0) {
    const parent = (at - 1) >> 1;
    if (!worse(entry, heap[parent]!)) break;
    heap[at] = heap[parent]!;
    at = parent;
  }
  heap[at] = entry;
}

function siftDown(heap: ScoredId[], at: number): void {
  const entry = heap[at]!;
  const n = heap.length;
  while (true) {
    let child = 2 * at + 1;
    if (child >= n) break;
    if (child + 1 < n && worse(heap[child + 1]!, heap[child]!)) child++;
    if (!worse(heap[child]!, entry)) break;
    heap[at] = heap[child]!;
    at = child;
  }
  heap[at] = entry;
}
