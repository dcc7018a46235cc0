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

/**
 * A cursor over an in-memory posting list cut into blocks of `blockSize`; bounds times
 * `looseness`. Counts the postings it stands on and those it scores, so a test can tell
 * that pruning happened.
 */
class ArrayCursor implements TermCursor {
  doc = -1;
  readonly maxScore: number;
  /** Postings the cursor stood on (advance stopped there). */
  landed = 0;
  /** Calls of score(). */
  scored = 0;
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
    this.landed++;
  }

  score(): number {
    this.scored++;
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
  // Runs in which some posting was never scored, and in which whole blocks were skipped
  // (some posting never stood on): the comparison covers pruning, not only full scans.
  let pruned = 0;
  let skipped = 0;
  const runs = 400;
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
        const postings = lists.reduce((sum, l) => sum + l.length, 0);
        if (cursors.reduce((sum, c) => sum + c.scored, 0) < postings) pruned++;
        if (cursors.reduce((sum, c) => sum + c.landed, 0) < postings) skipped++;
      },
    ),
    { numRuns: runs },
  );
  assert.ok(pruned >= runs / 2, `${pruned} of ${runs} runs pruned`);
  assert.ok(skipped > 0, 'no run skipped a block');
});

test('blocks and terms that cannot compete are skipped unread, and the ranking is still exact', () => {
  // "common" in every document 0..999 (tf 1, long documents) except a hot block at 500..507.
  const common = Array.from({ length: 1000 }, (_, id) => (id >= 500 && id < 508 ? { id, tf: 5, length: 3 } : { id, tf: 1, length: 8 }));
  const stats = { documents: 1000, totalLength: 8000 };
  const commonScorer = new TermScorer(stats, common.length);
  // Alone: block-max windows skip every cold block once k documents are kept.
  for (const k of [1, 3, 5]) {
    const cursor = new ArrayCursor(common, 8, commonScorer, 0, 1);
    const hits = topKOr([cursor], 1, k);
    assert.deepEqual(hits, exhaustive([common], [commonScorer], k), `k ${k}`);
    assert.deepEqual(
      hits.map((h) => h.id),
      Array.from({ length: k }, (_, i) => 500 + i),
    );
    // Without pruning, every posting would be stood on and scored.
    assert.ok(cursor.landed < 30, `k ${k}: landed on ${cursor.landed} postings`);
    assert.ok(cursor.scored < 30, `k ${k}: scored ${cursor.scored} postings`);
  }
  // With "rare" (five documents, one of them hot): once k of them are kept, "common" is
  // non-essential and only looked up in the documents "rare" holds.
  const rare = [1, 2, 3, 503, 900].map((id) => ({ id, tf: 2, length: common[id]!.length }));
  const scorers = [commonScorer, new TermScorer(stats, rare.length)];
  for (const k of [1, 2, 3]) {
    const cursors = [new ArrayCursor(common, 8, scorers[0]!, 0, 1), new ArrayCursor(rare, 8, scorers[1]!, 1, 1)];
    const hits = topKOr(cursors, 2, k);
    assert.deepEqual(hits, exhaustive([common, rare], scorers, k), `k ${k}`);
    assert.equal(hits[0]!.id, 503);
    assert.ok(cursors[0]!.landed < 30, `k ${k}: landed on ${cursors[0]!.landed} postings of "common"`);
    assert.ok(cursors[0]!.scored < 30, `k ${k}: scored ${cursors[0]!.scored} postings of "common"`);
  }
});

test('equal documents tie on score and rank by id, even where pruning stops early', () => {
  // 300 identical postings: the best k are the smallest ids, and the scan stops after them.
  const list = Array.from({ length: 300 }, (_, i) => ({ id: i * 3, tf: 1, length: 5 }));
  const scorer = new TermScorer({ documents: 1000, totalLength: 5000 }, list.length);
  const cursor = new ArrayCursor(list, 8, scorer, 0, 1);
  const hits = topKOr([cursor], 1, 4);
  assert.ok(cursor.landed <= 8, `landed on ${cursor.landed} postings`);
  assert.deepEqual(
    hits.map((h) => h.id),
    [0, 3, 6, 9],
  );
  assert.equal(new Set(hits.map((h) => h.score)).size, 1);
  assert.deepEqual(topKOr([], 2, 5), []);
  assert.deepEqual(topKOr([new ArrayCursor(list, 8, scorer, 0, 1)], 1, 0), []);
});
