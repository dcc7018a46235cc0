/**
 * bench/text-search.ts end to end on a small corpus, Trellis alone (FTS5 lives in
 * bench/peers, which CI does not install): the build, the cross-check of every query set
 * against BM25 computed from the corpus, the prepared request against the request, the
 * embedded and HTTP rounds. No timing
 * thresholds. The corpus generator is deterministic and its query sets have their bands.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_CORPUS, QUERY_SET_NAMES, textCorpus } from '../../bench/lib/text-corpus.js';
import { bench } from './bench-run.js';

test('text-search bench: every query set answers as exhaustive BM25, embedded and over HTTP', async () => {
  const args = '--systems trellis --docs 400 --queries 8 --rounds 1 --builds 1 --batch 150';
  const report = await bench('text-search', args.split(' '));
  assert.equal(report.corpus.documents, 400);
  assert.ok(report.build_ms.trellis > 0);
  assert.equal(report.build_ms.fts5, null);
  assert.deepEqual(Object.keys(report.cross_check), QUERY_SET_NAMES);
  for (const [set, check] of Object.entries<Record<string, any>>(report.cross_check)) {
    assert.deepEqual(check.failures, [], set);
    assert.equal(check.equal, 8, set);
  }
  for (const set of QUERY_SET_NAMES) {
    assert.ok(report.qps_embedded.trellis[set] > 0, set);
    assert.ok(report.qps_embedded['trellis-prepared'][set] > 0, set);
    assert.ok(report.qps_http['trellis-http'][set] > 0, set);
  }
  assert.equal(report.http_error, null);
  assert.deepEqual(
    report.prepared_check,
    { queries: 8 * QUERY_SET_NAMES.length, equal: 8 * QUERY_SET_NAMES.length },
    'the prepared request answers as the request',
  );
});

test('the corpus is a pure function of its options; query terms fall in their rank bands', () => {
  const options = { ...DEFAULT_CORPUS, documents: 50, vocabulary: 6000, queries: 4 };
  const a = textCorpus(options);
  assert.deepEqual(textCorpus(options), a);
  assert.notDeepEqual(textCorpus({ ...options, seed: 7 }).documents, a.documents);
  assert.equal(new Set(a.words).size, a.words.length);
  for (const d of a.documents) {
    const length = d.split(' ').length;
    assert.ok(length >= options.minLength && length <= options.maxLength);
  }
  const rank = (word: string) => a.words.indexOf(word) + 1;
  for (const terms of a.queries.frequent_or) {
    assert.equal(new Set(terms).size, 3);
    for (const t of terms) assert.ok(rank(t) >= 1 && rank(t) < 100);
  }
  for (const [t] of a.queries.rare) assert.ok(rank(t!) >= 5000);
});
