/** BM25 (src/search/bm25.ts): hand-computed scores of a small corpus, f32 rounding, ranking and ties. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { BM25_B, BM25_K1, compareScored, idf, scoreDocument, TermScorer, topK } from '../../src/search/bm25.js';
import { analyzeDocument, queryTerms } from '../../src/search/text-analysis.js';

/*
 * The corpus: N = 3 documents, 12 tokens, average length 4.
 *   1: "the quick brown fox"        length 4
 *   2: "the lazy dog"               length 3
 *   3: "the quick dog jumps quick"  length 5
 * df: the 3, quick 2, dog 2, brown/fox/lazy/jumps 1.
 */
const CORPUS = new Map([
  [1, 'the quick brown fox'],
  [2, 'the lazy dog'],
  [3, 'the quick dog jumps quick'],
]);
const STATS = { documents: 3, totalLength: 12 };
const docs = new Map([...CORPUS].map(([id, text]) => [id, analyzeDocument(text)]));

function dfs(): Map<string, number> {
  const out = new Map<string, number>();
  for (const doc of docs.values()) for (const term of doc.terms.keys()) out.set(term, (out.get(term) ?? 0) + 1);
  return out;
}

function search(query: string, k = 10): { id: number; score: number }[] {
  const terms = queryTerms(query);
  const scores = new Map<number, number>();
  for (const [id, doc] of docs) {
    if (terms.some((t) => doc.terms.has(t))) scores.set(id, scoreDocument(STATS, terms, dfs(), doc));
  }
  return topK(scores, k);
}

test('the constants are tantivy defaults', () => {
  assert.equal(BM25_K1, 1.2);
  assert.equal(BM25_B, 0.75);
});

test('idf is ln(1 + (N - df + 0.5) / (df + 0.5))', () => {
  // df 2 of 3: ln(1 + 1.5 / 2.5) = ln 1.6; df 3: ln(1 + 0.5 / 3.5) = ln(8/7); df 1: ln(1 + 2.5 / 1.5) = ln(8/3).
  assert.ok(Math.abs(idf(3, 2) - Math.log(1.6)) < 1e-15);
  // Within an ulp or two: libm's ln may round its last bit either way.
  const close = (a: number, b: number) => assert.ok(Math.abs(a - b) < 1e-15, `${a} vs ${b}`);
  close(idf(3, 2), 0.47000362924573563);
  close(idf(3, 3), 0.13353139262452257);
  close(idf(3, 1), 0.9808292530117263);
  // Never negative, even for a term in every document.
  assert.ok(idf(1, 1) > 0);
});

test('hand-computed scores of a one-term query', () => {
  // Document 1: tf 1 at the average length: 2.2 · 1 / (1 + 1.2) = 1, so the score is idf itself.
  // Document 3: tf 2, length 5: 2.2 · 2 / (2 + 1.2 · (0.25 + 0.75 · 5/4)) = 4.4 / 3.425.
  const d1 = Math.log(1.6);
  const d3 = (Math.log(1.6) * 4.4) / 3.425;
  assert.ok(Math.abs(d1 - 0.47000362924573563) < 1e-15);
  assert.ok(Math.abs(d3 - 0.6038002828266386) < 1e-15);
  assert.deepEqual(search('quick'), [
    { id: 3, score: Math.fround(d3) },
    { id: 1, score: Math.fround(d1) },
  ]);
  // The f32 values, widened.
  assert.equal(search('quick')[0]!.score, 0.6038002967834473);
  assert.equal(search('quick')[1]!.score, 0.4700036346912384);
});

test('hand-computed scores of a two-term query: the terms are OR-ed and summed', () => {
  // dog: document 2 (length 3): 2.2 / (1 + 1.2 · (0.25 + 0.75 · 3/4)) = 2.2 / 1.975;
  // document 3 (length 5): 2.2 / 2.425. Document 3 also scores for quick.
  const ln16 = Math.log(1.6);
  const d2 = (ln16 * 2.2) / 1.975;
  const d3 = (ln16 * 4.4) / 3.425 + (ln16 * 2.2) / 2.425;
  assert.ok(Math.abs(d3 - 1.0301953279155533) < 1e-15);
  assert.deepEqual(search('quick dog'), [
    { id: 3, score: Math.fround(d3) },
    { id: 2, score: Math.fround(d2) },
    { id: 1, score: Math.fround(ln16) },
  ]);
  assert.deepEqual(
    search('quick dog').map((r) => r.score),
    [1.0301953554153442, 0.5235483646392822, 0.4700036346912384],
  );
  // Duplicated query terms count once; case does not matter.
  assert.deepEqual(search('QUICK dog quick Dog'), search('quick dog'));
  // top k.
  assert.deepEqual(search('quick dog', 2), search('quick dog').slice(0, 2));
});

test('a term in every document still ranks, shorter documents first', () => {
  assert.deepEqual(
    search('the').map((r) => r.id),
    [2, 1, 3],
  );
  assert.equal(search('the')[1]!.score, Math.fround(Math.log(8 / 7)));
  assert.deepEqual(search('cat'), []);
});

test('TermScorer matches the textbook formula', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 1000 }),
      fc.integer({ min: 1, max: 1000 }),
      fc.integer({ min: 1, max: 100 }),
      fc.integer({ min: 1, max: 5000 }),
      (documents, dfSeed, tf, length) => {
        const df = 1 + (dfSeed % documents);
        const stats = { documents, totalLength: documents * 7 };
        const expected = (idf(documents, df) * tf * (BM25_K1 + 1)) / (tf + BM25_K1 * (1 - BM25_B + (BM25_B * length) / 7));
        const got = new TermScorer(stats, df).score(tf, length);
        return Math.abs(got - expected) <= 1e-12 * Math.abs(expected);
      },
    ),
  );
});

test('ties, also ties made by the f32 rounding, go to the smaller id', () => {
  const scores = new Map([
    [9, 2],
    [5, 1.0000000001],
    [3, 1],
    [7, 2],
    [1, 0.5],
  ]);
  assert.deepEqual(topK(scores, 10), [
    { id: 7, score: 2 },
    { id: 9, score: 2 },
    { id: 3, score: 1 },
    { id: 5, score: 1 },
    { id: 1, score: 0.5 },
  ]);
  assert.deepEqual(topK(scores, 3), [
    { id: 7, score: 2 },
    { id: 9, score: 2 },
    { id: 3, score: 1 },
  ]);
  assert.deepEqual(topK(scores, 0), []);
  // Identical documents score alike and come out by id.
  const twins = new Map([
    [4, scoreDocument(STATS, ['fox'], dfs(), docs.get(1)!)],
    [2, scoreDocument(STATS, ['fox'], dfs(), docs.get(1)!)],
  ]);
  assert.deepEqual(
    topK(twins, 5).map((r) => r.id),
    [2, 4],
  );
});

test('topK is the head of a full sort', () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(
        fc.tuple(
          fc.nat(10_000),
          fc.integer({ min: 0, max: 20 }).map((n) => n / 4),
        ),
        { selector: ([id]) => id, maxLength: 200 },
      ),
      fc.integer({ min: 1, max: 50 }),
      (entries, k) => {
        const all = entries.map(([id, score]) => ({ id, score: Math.fround(score) })).sort(compareScored);
        assert.deepEqual(topK(new Map(entries), k), all.slice(0, k));
      },
    ),
  );
});
