/**
 * The text-search benchmark's corpus (bench/text-search.ts): documents whose words are
 * drawn from a Zipf vocabulary, and query sets of rare, frequent and mixed terms. A pure
 * function of its options (seed included), so every system and every run sees the same
 * documents and queries.
 *
 * Words are lowercase ASCII letters, so Trellis's analyzer (runs of letters and digits,
 * lowercased) and FTS5's `unicode61` tokenizer (the same runs, case-folded, diacritics
 * removed) cut the same tokens: the rankings can be compared term for term.
 *
 * A word's rank r (1 = most frequent) has probability proportional to 1 / r^s at every
 * position. With the defaults (50,000 words, s = 1, 5 to 99 tokens a document), the most
 * frequent word is in nearly every document, rank 10 in about a third, rank 1,000 in
 * about 0.5% and ranks past 10,000 in a few dozen.
 */
import { seededSequence } from './scenarios.js';

export interface CorpusOptions {
  readonly documents: number;
  readonly vocabulary: number;
  readonly zipf: number;
  readonly minLength: number;
  readonly maxLength: number;
  /** Queries per set. */
  readonly queries: number;
  readonly seed: number;
}

export const DEFAULT_CORPUS: CorpusOptions = {
  documents: 100_000,
  vocabulary: 50_000,
  zipf: 1,
  minLength: 5,
  maxLength: 99,
  queries: 100,
  seed: 20260131,
};

/**
 * The query sets, each a list of word ranks per query (ranges are of ranks, 1-based, end
 * exclusive): single rare and frequent terms, and ORs of several.
 */
export const QUERY_SETS = {
  /** One term of rank 5,000 to 50,000 (a few to about a hundred documents). */
  rare: [[5_000, 50_000]],
  /** One term of rank 1 to 100 (a few percent to nearly all documents). */
  frequent: [[1, 100]],
  /** Three rare terms OR'ed. */
  rare_or: [
    [5_000, 50_000],
    [5_000, 50_000],
    [5_000, 50_000],
  ],
  /** Three frequent terms OR'ed: the case that needs top-k pruning. */
  frequent_or: [
    [1, 100],
    [1, 100],
    [1, 100],
  ],
  /** A frequent, a middling and a rare term OR'ed. */
  mixed_or: [
    [1, 100],
    [100, 5_000],
    [5_000, 50_000],
  ],
} as const satisfies Record<string, readonly (readonly [number, number])[]>;

export type QuerySetName = keyof typeof QUERY_SETS;
export const QUERY_SET_NAMES = Object.keys(QUERY_SETS) as QuerySetName[];

export interface TextCorpus {
  readonly options: CorpusOptions;
  /** Words by rank - 1. */
  readonly words: readonly string[];
  readonly documents: readonly string[];
  /** Per set, each query's terms (distinct words). */
  readonly queries: Readonly<Record<QuerySetName, readonly (readonly string[])[]>>;
}

const LETTERS = 'abcdefghijklmnopqrstuvwxyz';

function vocabulary(size: number, next: () => number): string[] {
  const seen = new Set<string>();
  const words: string[] = [];
  while (words.length < size) {
    const length = 2 + Math.floor(next() * 8);
    let word = '';
    for (let i = 0; i < length; i++) word += LETTERS[Math.floor(next() * 26)];
    if (seen.has(word)) continue;
    seen.add(word);
    words.push(word);
  }
  return words;
}

/** Draws ranks (0-based) with probability proportional to 1 / (rank + 1)^s. */
function zipfSampler(size: number, s: number, next: () => number): () => number {
  const cdf = new Float64Array(size);
  let total = 0;
  for (let r = 0; r < size; r++) cdf[r] = total += 1 / (r + 1) ** s;
  return () => {
    const u = next() * total;
    let lo = 0;
    let hi = size - 1;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (cdf[mid]! < u) lo = mid + 1;
      else hi = mid;
    }
    return lo;
  };
}

export function textCorpus(options: CorpusOptions = DEFAULT_CORPUS): TextCorpus {
  const next = seededSequence(options.seed);
  const words = vocabulary(options.vocabulary, next);
  const draw = zipfSampler(words.length, options.zipf, next);
  const documents: string[] = new Array<string>(options.documents);
  const span = options.maxLength - options.minLength + 1;
  for (let d = 0; d < options.documents; d++) {
    const length = options.minLength + Math.floor(next() * span);
    const tokens: string[] = new Array<string>(length);
    for (let i = 0; i < length; i++) tokens[i] = words[draw()]!;
    documents[d] = tokens.join(' ');
  }
  const queries = {} as Record<QuerySetName, string[][]>;
  for (const name of QUERY_SET_NAMES) {
    queries[name] = [];
    for (let q = 0; q < options.queries; q++) {
      const terms = new Set<string>();
      for (const [from, to] of QUERY_SETS[name]) {
        const last = Math.min(to, words.length + 1);
        const first = Math.min(from, last - 1);
        // Distinct terms: draw again on a repeat (the ranges are wide enough to end quickly).
        for (let tries = 0; tries < 100; tries++) {
          const word = words[first - 1 + Math.floor(next() * (last - first))]!;
          if (terms.has(word)) continue;
          terms.add(word);
          break;
        }
      }
      queries[name].push([...terms]);
    }
  }
  return { options, words, documents, queries };
}
