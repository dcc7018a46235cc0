/**
 * The reranking operations (Trellis extensions): `fuse` by reciprocal rank and by summed
 * scores, over its input and variables, and `rerank_mmr` (maximal marginal relevance),
 * with exact scores and orders, and their bad inputs with codes and JSON paths.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { atPath, f, ids, openTestDb, q, rejects400, type TestDb } from '../helpers/embedded.js';

let t: TestDb;
const vec = (...xs: number[]) => ({ value: { f32_array: xs } });

before(async () => {
  t = await openTestDb();
  // 0 and 1 point almost the same way, 2 and 3 elsewhere; 4 has no vector, 5 a longer one.
  const node = (data: unknown) => q(null, { add_n: { label: 'Doc', properties: data === null ? [] : [['data', data]] } });
  await t.write([node(vec(1, 0)), node(vec(0.99, 0.01)), node(vec(0, 1)), node(vec(0.7, 0.7)), node(null), node(vec(1, 0, 0))], []);
});
after(() => t.close());

const read1 = async (entries: unknown[], parameters?: Record<string, unknown>) => (await t.read(entries, ['r'], parameters)).r;
const rrf = (k: number, ...ranks: number[]) => ranks.reduce((sum, rank) => sum + 1 / (k + rank + 1), 0);

test('fuse by reciprocal rank: every ranking adds 1 / (k + rank) for each element; highest first, then by id', async () => {
  const got = await read1([q('a', ids(0, 1, 2)), q('b', ids(2, 0, 3)), q('r', { fuse: { variables: ['a', 'b'] } })]);
  assert.deepEqual(got, [
    { $id: 0, $score: rrf(60, 0, 1) },
    { $id: 2, $score: rrf(60, 2, 0) },
    { $id: 1, $score: rrf(60, 1) },
    { $id: 3, $score: rrf(60, 2) },
  ]);
});

test('fuse of its input alone is RerankRRF: the order kept, scores 1 / (k + rank), k from a parameter; duplicates count once', async () => {
  const repeated = { inject: { input: ids(3, 1), variable: 'again' } }; // rows 3, 1, 3, 2
  const got = await read1([q('again', ids(3, 2)), q('r', { fuse: { input: repeated, k: { expr: { param: 'k' } } } })], { k: 10 });
  assert.deepEqual(got, [
    { $id: 3, $score: 1 / 11 },
    { $id: 1, $score: 1 / 12 },
    { $id: 2, $score: 1 / 13 },
  ]);
  // A skipped or empty ranking adds nothing.
  const skipped = await read1([
    q('a', ids(1), { var_not_empty: 'none' }),
    q('none', ids(99)),
    q('r', { fuse: { input: ids(2), variables: ['a', 'none'], k: f(1) } }),
  ]);
  assert.deepEqual(skipped, [{ $id: 2, $score: 0.5 }]);
});

test("fuse by summed scores adds the rows' $score (0 for a row without one)", async () => {
  const got = await read1([
    q('a', { fuse: { input: ids(0, 1), k: f(1) } }),
    q('b', { fuse: { input: ids(1), k: f(3) } }),
    q('r', { fuse: { variables: ['a', 'b'], method: 'score_sum', input: ids(2) } }),
  ]);
  assert.deepEqual(got, [
    { $id: 1, $score: 1 / 3 + 1 / 4 },
    { $id: 0, $score: 1 / 2 },
    { $id: 2, $score: 0 },
  ]);
});

test('rerank_mmr: lambda 1 keeps the relevance order; a lower lambda moves a near-duplicate behind a different element', async () => {
  const ranked = { fuse: { input: ids(0, 1, 2), k: f(1) } }; // relevance 1/2, 1/3, 1/4
  const order = async (lambda: number, metric?: string) =>
    ((await read1([q('r', { rerank_mmr: { input: ranked, lambda: f(lambda), ...(metric ? { metric } : {}) } })])) as { $id: number }[]).map(
      (row) => row.$id,
    );
  assert.deepEqual(await order(1), [0, 1, 2]);
  assert.deepEqual(await order(0.5), [0, 2, 1]);
  assert.deepEqual(await order(0.5, 'euclidean'), [0, 2, 1]);
  assert.deepEqual(await order(0.99, 'dot_product'), [0, 1, 2]);
  assert.deepEqual(await order(0.9, 'dot_product'), [0, 2, 1]);
  const scored = await read1([q('r', { rerank_mmr: { input: ranked, lambda: f(0.5) } })]);
  // The first row scores lambda * relevance; the next relevance minus its similarity to what was chosen.
  assert.equal(scored[0].$score, 0.5 * 0.5);
  assert.ok(Math.abs(scored[1].$score - (0.5 * 0.25 - 0.5 * 0)) < 1e-6, String(scored[1].$score));
});

test('bad reranking: no ranking, k and lambda out of range, rows without vectors or of other lengths, variables of values', async () => {
  const at = (suffix: string) => atPath(suffix);
  await rejects400(t.read([q('r', { fuse: { variables: [] } })], ['r']), 'invalid_branch_arity', at('.fuse'));
  await rejects400(t.read([q('r', { fuse: { input: ids(0), k: f(0) } })], ['r']), 'invalid_rerank_parameter', at('.fuse.k'));
  await rejects400(
    t.read([q('r', { fuse: { input: ids(0), k: { expr: { param: 'k' } } } })], ['r'], { k: -1 }),
    'invalid_rerank_parameter',
    at('.fuse.k'),
  );
  await rejects400(t.read([q('r', { fuse: { input: ids(0), method: 'max' } })], ['r']), 'invalid_query_json', at('.fuse.method'));
  await rejects400(t.read([q('r', { fuse: { variables: ['nope'] } })], ['r']), 'unknown_variable', at('.fuse.variables[0]'));
  await rejects400(
    t.read([q('v', { id: { input: ids(0) } }), q('r', { fuse: { variables: ['v'] } })], ['r']),
    'invalid_query',
    atPath('.fuse.variables[0]', 'query.read.entries[1].query.root'),
  );
  await rejects400(
    t.read([q('r', { rerank_mmr: { input: ids(0), lambda: f(1.5) } })], ['r']),
    'invalid_rerank_parameter',
    at('.rerank_mmr.lambda'),
  );
  await rejects400(
    t.read([q('r', { rerank_mmr: { input: ids(0, 4), lambda: f(0.5) } })], ['r']),
    'invalid_search_input',
    at('.rerank_mmr'),
  );
  await rejects400(
    t.read([q('r', { rerank_mmr: { input: ids(0, 5), lambda: f(0.5) } })], ['r']),
    'invalid_vector_dimension',
    at('.rerank_mmr'),
  );
  await rejects400(
    t.read([q('r', { rerank_mmr: { input: ids(0), lambda: f(0.5), metric: 'l1' } })], ['r']),
    'invalid_query_json',
    at('.rerank_mmr.metric'),
  );
});
