/**
 * Block-max MaxScore (src/search/text-topk.ts) against scoring every posting: on random
 * posting lists, with random block sizes, exact or loose bounds, many ties (few distinct
 * tf and length values), candidate filters and every k, the ranking is the same.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { TermScorer, topK, type ScoredId } from '../../src/search/bm25.js';
import { NO_MORE, topKOr, type TermCursor } from '../../src/search/text-topk.js';

interface Posting {
  readonly id: number;
  readonly tf: number;
  readonly length: number;
}

/** A cursor over an in-memory posting list cut into blocks of `blockSize`; bounds times `looseness`. */
class ArrayCursor implements TermCursor {
  doc = -1;
  readonly maxScore: number;
  private pos = -1;
  private block = -1;
  private readonly blockBounds: number[] = [];

  constructor(
    private readonly postings: readonly Posting[],
    private readonly blockSize: number,
    private readonly scorer: TermScorer,
    readonly term: number,
    looseness: number,
  ) {
    const scores = postings.map((p) => scorer.score(p.tf, p.length));
    for (let b = 0; b * blockSize < postings.length; b++) {
      this.blockBounds.push(Math.max(...scores.slice(b * blockSize, (b + 1) * blockSize)) * looseness);
    }
    this.maxScore = Math.max(...scores) * looseness;
    this.advance(0);
  }

  private lastOf(block: number): number {
    return this.postings[Math.min(this.postings.length, (block + 1) * this.blockSize) - 1]!.id;
  }

  shallowAdvance(target: number): number {
    if (this.block < 0) this.block = 0;
    while (this.block * this.blockSize < this.postings.length && this.lastOf(this.block) < target) this.block++;
    return this.block * this.blockSize < this.postings.length ? this.lastOf(this.block) : NO_MORE;
  }

  blockMax(): number {
    return this.blockBounds[this.block] ?? 0;
  }

  advance(target: number): void {
    if (this.doc >= target) return;
    if (this.shallowAdvance(target) === NO_MORE) {
      this.doc = NO_MORE;
      return;
    }
    this.pos = Math.max(this.pos, this.block * this.blockSize);
    while (this.postings[this.pos]!.id < target) this.pos++;
    this.doc = this.postings[this.pos]!.id;
  }

  score(): number {
    const p = this.postings[this.pos]!;
    return this.scorer.score(p.tf, p.length);
  }
}

/** Every document scored, its terms summed in query order (as scoreDocument does). */
function exhaustive(
  lists: readonly (readonly Posting[])[],
  scorers: readonly TermScorer[],
  k: number,
  accept?: (id: number) => boolean,
): ScoredId[] {
  const scores = new Map<number, number>();
  const ids = [...new Set(lists.flatMap((l) => l.map((p) => p.id)))].sort((a, b) => a - b);
  for (const id of ids) {
    if (accept !== undefined && !accept(id)) continue;
    let sum = 0;
    lists.forEach((list, t) => {
      const p = list.find((q) => q.id === id);
      if (p !== undefined) sum += scorers[t]!.score(p.tf, p.length);
    });
    scores.set(id, sum);
  }
  return topK(scores, k);
}

const postingsArb = fc
  .uniqueArray(fc.nat(400), { maxLength: 120 })
  .chain((ids) =>
    fc.tuple(
      fc.constant([...ids].sort((a, b) => a - b)),
      fc.array(fc.integer({ min: 1, max: 3 }), { minLength: ids.length, maxLength: ids.length }),
      fc.array(fc.constantFrom(3, 5, 8), { minLength: ids.length, maxLength: ids.length }),
    ),
  )
  .map(([ids, tfs, lengths]) => ids.map((id, i) => ({ id, tf: tfs[i]!, length: Math.max(lengths[i]!, tfs[i]!) })));

test('block-max MaxScore ranks exactly as scoring every document, ties and filters included', () => {
  fc.assert(
    fc.property(
      fc.array(postingsArb, { minLength: 1, maxLength: 5 }),
      fc.integer({ min: 1, max: 16 }),
      fc.integer({ min: 1, max: 30 }),
      fc.constantFrom(1, 1, 1.5, 4),
      fc.option(fc.integer({ min: 2, max: 5 }), { nil: undefined }),
      (lists, blockSize, k, looseness, modulus) => {
        const documents = 500;
        const scorers = lists.map((l) => new TermScorer({ documents, totalLength: documents * 5 }, Math.max(1, l.length)));
        const accept = modulus === undefined ? undefined : (id: number) => id % modulus === 0;
        // Terms without postings have no cursor, as in the store.
        const cursors = lists.flatMap((l, t) => (l.length === 0 ? [] : [new ArrayCursor(l, blockSize, scorers[t]!, t, looseness)]));
        assert.deepEqual(topKOr(cursors, lists.length, k, accept), exhaustive(lists, scorers, k, accept));
      },
    ),
    { numRuns: 400 },
  );
});

test('equal documents tie on score and rank by id, even where pruning stops early', () => {
  // Ten identical postings per term: the best k are the smallest ids.
  const list = Array.from({ length: 300 }, (_, i) => ({ id: i * 3, tf: 1, length: 5 }));
  const scorer = new TermScorer({ documents: 1000, totalLength: 5000 }, list.length);
  const hits = topKOr([new ArrayCursor(list, 8, scorer, 0, 1)], 1, 4);
  assert.deepEqual(
    hits.map((h) => h.id),
    [0, 3, 6, 9],
  );
  assert.equal(new Set(hits.map((h) => h.score)).size, 1);
  assert.deepEqual(topKOr([], 2, 5), []);
  assert.deepEqual(topKOr([new ArrayCursor(list, 8, scorer, 0, 1)], 1, 0), []);
});
