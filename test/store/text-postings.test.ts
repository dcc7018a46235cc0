/**
 * Text index postings on a real LMDB environment (src/store/text-postings.ts): exact
 * statistics under puts, replacements and removals (against a brute-force BM25 over the
 * live documents), tenant partitions, `_within` candidates, long terms, the per-document
 * limits, rollback, and deleting an index.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import fc from 'fast-check';
import { open, type RootDatabase } from 'lmdb';
import { scoreDocument, TermScorer, topK, type ScoredId } from '../../src/search/bm25.js';
import { analyzeDocument, queryTerms } from '../../src/search/text-analysis.js';
import { BLOCK_SIZE } from '../../src/store/text-blocks.js';
import { readU64, TEXT_KEY_KIND, TEXT_TENANT_KEY } from '../../src/store/keys.js';
import { TermPostingsCursor } from '../../src/store/text-cursor.js';
import { type TextBatch, TextPostings } from '../../src/store/text-postings.js';
import type { TextDb } from '../../src/store/layout.js';

const dir = mkdtempSync(join(tmpdir(), 'trellis-text-postings-'));
const env: RootDatabase = open({ path: dir, maxDbs: 4, noSubdir: false });
const db = env.openDB('text', { encoding: 'binary', keyEncoding: 'binary' }) as unknown as TextDb;
after(async () => {
  await env.close();
  rmSync(dir, { recursive: true, force: true });
});

let nextIndex = 1;
const newIndex = (tenantScoped: boolean, on: TextDb = db) => new TextPostings(on, nextIndex++, tenantScoped);
const write = <T>(fn: () => T): T => env.transactionSync(fn);
/** Reads on a fresh snapshot, as Store.read does. */
const read = <T>(fn: () => T): T => {
  env.resetReadTxn();
  return fn();
};

function indexKeys(indexId: number): number {
  const start = Buffer.alloc(4);
  start.writeUInt32BE(indexId);
  const end = Buffer.alloc(4);
  end.writeUInt32BE(indexId + 1);
  env.resetReadTxn();
  return db.getKeysCount({ start, end });
}

const indexIdOf = (index: TextPostings) => (index as unknown as { indexId: number }).indexId;

/** Counts the key writes of an index: a view of `db` whose putSync and removeSync count. */
function counting(): { db: TextDb; puts: number; removes: number } {
  const counts = { db: Object.create(db) as TextDb, puts: 0, removes: 0 };
  Object.assign(counts.db, {
    putSync: (key: Buffer, value: Buffer) => (counts.puts++, db.putSync(key, value)),
    removeSync: (key: Buffer) => (counts.removes++, db.removeSync(key)),
  });
  return counts;
}

/** BM25 over the live documents of one partition, from scratch. */
function bruteForce(
  docs: ReadonlyMap<number, { tenant: string | null; text: string }>,
  tenant: string | null,
  query: string,
  k: number,
  candidates?: (id: number) => boolean,
): ScoredId[] {
  const live = [...docs].filter(([, d]) => d.tenant === tenant).map(([id, d]) => [id, analyzeDocument(d.text)] as const);
  if (live.length === 0) return [];
  const stats = { documents: live.length, totalLength: live.reduce((sum, [, a]) => sum + a.length, 0) };
  const terms = queryTerms(query);
  const dfs = new Map(terms.map((t) => [t, live.filter(([, a]) => a.terms.has(t)).length]));
  const scores = new Map<number, number>();
  for (const [id, a] of live) {
    if ((candidates === undefined || candidates(id)) && terms.some((t) => a.terms.has(t)))
      scores.set(id, scoreDocument(stats, terms, dfs, a));
  }
  return topK(scores, k);
}

test('put, search, replace and remove', () => {
  const index = newIndex(false);
  write(() => {
    assert.equal(index.put(1, null, 'the quick brown fox'), null);
    assert.equal(index.put(2, null, 'the lazy dog'), null);
    assert.equal(index.put(3, null, 'the quick dog jumps quick'), null);
  });
  read(() => {
    assert.deepEqual(index.stats(null), { documents: 3, totalLength: 12 });
    // The hand-computed scores of test/search/bm25.test.ts.
    assert.deepEqual(index.search(null, 'Quick, dog!', 10), [
      { id: 3, score: 1.0301953554153442 },
      { id: 2, score: 0.5235483646392822 },
      { id: 1, score: 0.4700036346912384 },
    ]);
    assert.deepEqual(index.search(null, 'quick dog', 1), [{ id: 3, score: 1.0301953554153442 }]);
    assert.deepEqual(index.search(null, 'cat', 10), []);
    assert.deepEqual(index.search(null, '?!', 10), []);
    assert.ok(index.has(2) && !index.has(4));
  });
  write(() => {
    assert.equal(index.put(2, null, 'a lazy cat'), null);
    assert.equal(index.remove(1), true);
    assert.equal(index.remove(1), false);
    assert.equal(index.remove(99), false);
  });
  read(() => {
    assert.deepEqual(index.stats(null), { documents: 2, totalLength: 8 });
    assert.deepEqual(
      index.search(null, 'dog cat', 10).map((r) => r.id),
      [2, 3],
    );
    assert.equal(index.has(1), false);
  });
  write(() => {
    index.remove(2);
    index.remove(3);
  });
  // Nothing is left behind: no posting, no document, no statistics.
  assert.equal(indexKeys(indexIdOf(index)), 0);
  read(() => assert.deepEqual(index.search(null, 'quick', 10), []));
});

test('an empty document counts in the statistics and matches nothing', () => {
  const index = newIndex(false);
  write(() => {
    index.put(1, null, '');
    index.put(2, null, 'word');
  });
  read(() => {
    assert.deepEqual(index.stats(null), { documents: 2, totalLength: 1 });
    assert.deepEqual(
      index.search(null, 'word', 5).map((r) => r.id),
      [2],
    );
    assert.ok(index.has(1));
  });
});

test('putting the same document again writes nothing; a changed one only what changed', () => {
  const counts = counting();
  const index = newIndex(false, counts.db);
  const words = Array.from({ length: 500 }, (_, i) => `w${i}`).join(' ');
  write(() => index.put(7, null, words));
  assert.equal(counts.puts, 500 + 2); // postings, the document row, the statistics
  counts.puts = 0;
  write(() => index.put(7, null, words));
  assert.equal(counts.puts + counts.removes, 0);
  // Same length, one term swapped: one posting removed, one added, the row (the statistics stay).
  write(() => index.put(7, null, words.replace('w3 ', 'zz ')));
  assert.deepEqual([counts.puts, counts.removes], [2, 1]);
  // One more token: every posting holds the length, so all are rewritten, and the statistics.
  counts.puts = counts.removes = 0;
  write(() => index.put(7, null, words.replace('w3 ', 'zz ') + ' w0'));
  assert.deepEqual([counts.puts, counts.removes], [500 + 2, 0]);
  write(() => index.put(7, null, words.replace('w3 ', 'zz ')));
  read(() => {
    assert.deepEqual(index.stats(null), { documents: 1, totalLength: 500 });
    assert.equal(index.search(null, 'w3', 5).length, 0);
    assert.equal(index.search(null, 'zz', 5).length, 1);
  });
});

test('tenant partitions are isolated, each with its own statistics', () => {
  const index = newIndex(true);
  write(() => {
    index.put(1, 'acme', 'red apple');
    index.put(2, 'acme', 'green apple pie');
    index.put(3, 'globex', 'red apple red');
    index.put(4, '', 'apple'); // the empty string is a tenant value
    assert.equal(index.put(5, null, 'apple'), null); // no tenant value: not indexed
  });
  read(() => {
    assert.deepEqual(index.stats('acme'), { documents: 2, totalLength: 5 });
    assert.deepEqual(index.stats('globex'), { documents: 1, totalLength: 3 });
    assert.deepEqual(index.stats(''), { documents: 1, totalLength: 1 });
    assert.equal(index.stats(null), undefined);
    assert.equal(index.has(5), false);
    assert.deepEqual(
      index.search('acme', 'apple red', 10).map((r) => r.id),
      [1, 2],
    );
    assert.deepEqual(
      index.search('globex', 'apple', 10).map((r) => r.id),
      [3],
    );
    assert.deepEqual(
      index.search('', 'apple', 10).map((r) => r.id),
      [4],
    );
    assert.deepEqual(index.search('initech', 'apple', 10), []); // an unknown partition
    assert.deepEqual(index.search(null, 'apple', 10), []);
    // Scores use the partition's own statistics.
    const docs = new Map([
      [1, { tenant: 'acme', text: 'red apple' }],
      [2, { tenant: 'acme', text: 'green apple pie' }],
      [3, { tenant: 'globex', text: 'red apple red' }],
    ]);
    assert.deepEqual(index.search('acme', 'red', 10), bruteForce(docs, 'acme', 'red', 10));
    assert.deepEqual(index.search('globex', 'red', 10), bruteForce(docs, 'globex', 'red', 10));
  });
  write(() => {
    index.put(3, 'acme', 'red apple red'); // moves to another partition
    index.put(1, null, 'red apple'); // loses its tenant value: leaves the index
  });
  read(() => {
    assert.equal(index.stats('globex'), undefined);
    assert.deepEqual(index.stats('acme'), { documents: 2, totalLength: 6 });
    assert.deepEqual(
      index.search('acme', 'red', 10).map((r) => r.id),
      [3],
    );
    assert.equal(index.has(1), false);
  });
});

test('long tenant values are hashed into their partition key', () => {
  const index = newIndex(true);
  const long = 't'.repeat(3000);
  write(() => {
    index.put(1, long, 'hello');
    index.put(2, long.slice(0, -1) + 'u', 'hello');
  });
  read(() => {
    assert.deepEqual(
      index.search(long, 'hello', 5).map((r) => r.id),
      [1],
    );
    assert.deepEqual(index.stats(long), { documents: 1, totalLength: 1 });
  });
});

test('an index without a tenant property refuses a tenant value on put', () => {
  const index = newIndex(false);
  assert.throws(() => write(() => index.put(1, 'acme', 'x')), /without a tenant property/);
});

test('candidates: only accepted ids are ranked, under the whole partition statistics', () => {
  const index = newIndex(false);
  const docs = new Map<number, { tenant: null; text: string }>();
  for (let id = 0; id < 40; id++) docs.set(id, { tenant: null, text: `alpha ${'beta '.repeat(id % 5)} gamma${id % 3}` });
  write(() => {
    for (const [id, d] of docs) index.put(id, null, d.text);
  });
  read(() => {
    const odd = (id: number) => id % 2 === 1;
    const all = index.search(null, 'beta gamma1', 100);
    const within = index.search(null, 'beta gamma1', 100, odd);
    assert.ok(within.length > 0 && within.length < all.length);
    assert.deepEqual(
      within,
      all.filter((r) => odd(r.id)),
    );
    assert.deepEqual(within, bruteForce(docs, null, 'beta gamma1', 100, odd));
    assert.deepEqual(index.search(null, 'beta', 3, odd), index.search(null, 'beta', 100, odd).slice(0, 3));
    assert.deepEqual(
      index.search(null, 'alpha', 10, () => false),
      [],
    );
  });
});

test('long tokens stay searchable: terms over 256 bytes are hashed', () => {
  const index = newIndex(false);
  const t3000 = 'x'.repeat(3000);
  const other3000 = 'x'.repeat(2999) + 'y';
  const t256 = 'é'.repeat(128); // exactly 256 bytes: kept as it is
  const t257 = 'a' + t256;
  // ASCII at the edge: 256 bytes kept as they are (the flush's reused key), 257 hashed.
  const a256 = 'a'.repeat(256);
  const a257 = 'a'.repeat(257);
  write(() => {
    index.put(1, null, `${t3000} short`);
    index.put(2, null, `${other3000} short`);
    index.put(3, null, `${t256} ${t257}`);
    index.put(4, null, `${a256} ${a257} ${a257}`);
    index.put(5, null, a256);
  });
  read(() => {
    assert.deepEqual(
      index.search(null, a256, 10).map((r) => r.id),
      [5, 4],
    );
    assert.deepEqual(
      index.search(null, a257, 10).map((r) => r.id),
      [4],
    );
    assert.deepEqual(
      index.search(null, 'short', 10).map((r) => r.id),
      [1, 2],
    );
    assert.deepEqual(
      index.search(null, t3000.toUpperCase(), 10).map((r) => r.id),
      [1],
    );
    assert.deepEqual(
      index.search(null, other3000, 10).map((r) => r.id),
      [2],
    );
    assert.deepEqual(
      index.search(null, 'x'.repeat(2998), 10).map((r) => r.id),
      [],
    );
    assert.deepEqual(
      index.search(null, t256, 10).map((r) => r.id),
      [3],
    );
    assert.deepEqual(
      index.search(null, t257, 10).map((r) => r.id),
      [3],
    );
  });
  write(() => {
    index.remove(1);
    index.remove(2);
    index.remove(3);
    index.remove(4);
    index.remove(5);
  });
  assert.equal(indexKeys(indexIdOf(index)), 0);
});

test('per-document limits: a breach writes nothing; the edges pass', () => {
  const index = newIndex(false);
  const unique = (n: number) => Array.from({ length: n }, (_, i) => `t${i.toString(36)}`).join(' ');
  write(() => {
    assert.deepEqual(index.put(1, null, unique(16_379)), { resource: 'output_operations', usage: 16_385, allowance: 16_384 });
  });
  assert.equal(indexKeys(indexIdOf(index)), 0);
  write(() => assert.equal(index.put(1, null, unique(16_378)), null));
  assert.equal(indexKeys(indexIdOf(index)), 16_378 + 2);
  // 200,000 one-letter tokens of five terms.
  const short = Array.from({ length: 200_000 }, (_, i) => 'abcde'[i % 5]).join(' ');
  write(() => assert.equal(index.put(2, null, short), null));
  read(() => {
    assert.deepEqual(index.stats(null), { documents: 2, totalLength: 16_378 + 200_000 });
    assert.deepEqual(
      index
        .search(null, 'c t0', 5)
        .map((r) => r.id)
        .sort(),
      [1, 2],
    );
  });
  // A breaching replacement keeps the previous document.
  write(() => assert.equal(index.put(2, null, 'a '.repeat(235_470))?.resource, 'analysis_bytes'));
  read(() => assert.deepEqual(index.stats(null), { documents: 2, totalLength: 16_378 + 200_000 }));
});

test('a rolled-back write leaves no trace', () => {
  const index = newIndex(true);
  write(() => index.put(1, 'acme', 'kept words here'));
  const before = indexKeys(indexIdOf(index));
  assert.throws(
    () =>
      write(() => {
        index.put(1, 'acme', 'replaced entirely');
        index.put(2, 'acme', 'new document');
        index.put(3, 'other', 'elsewhere');
        index.remove(1);
        throw new Error('abort');
      }),
    /abort/,
  );
  assert.equal(indexKeys(indexIdOf(index)), before);
  read(() => {
    assert.deepEqual(index.stats('acme'), { documents: 1, totalLength: 3 });
    assert.equal(index.stats('other'), undefined);
    assert.ok(index.has(1) && !index.has(2) && !index.has(3));
    assert.deepEqual(
      index.search('acme', 'kept replaced new', 10).map((r) => r.id),
      [1],
    );
  });
});

test('deleteIndex removes every key of one index and nothing else', () => {
  const a = newIndex(false);
  const b = newIndex(false);
  write(() => {
    for (let id = 0; id < 3000; id++) {
      a.put(id, null, `doc ${id} shared words`);
      b.put(id, null, `doc ${id}`);
    }
  });
  const bKeys = indexKeys(indexIdOf(b));
  assert.equal(
    write(() => TextPostings.deleteIndex(db, indexIdOf(a))),
    // A row per document, the statistics, a head per term ("doc", "shared", "words" and each
    // id) and the full blocks of the three shared terms (each cut every BLOCK_SIZE postings).
    3000 + 1 + (3 + 3000) + 3 * Math.floor(3000 / BLOCK_SIZE),
  );
  assert.equal(indexKeys(indexIdOf(a)), 0);
  assert.equal(indexKeys(indexIdOf(b)), bKeys);
  read(() => {
    assert.deepEqual(a.search(null, 'doc', 5), []);
    assert.equal(b.search(null, 'doc', 5).length, 5);
  });
});

/** One random operation on an index: put (id, tenant, text) or remove id. */
type Op = { put: true; id: number; tenant: string | null; text: string } | { put: false; id: number };

/**
 * Applies `op` to an index (or a batch of one) and to `docs`, the live documents it should
 * hold: a put without a tenant in a tenant-scoped index removes the element's document.
 */
function applyOp(
  target: TextPostings | TextBatch,
  tenantScoped: boolean,
  op: Op,
  docs: Map<number, { tenant: string | null; text: string }>,
): void {
  if (!op.put) {
    assert.equal(target.remove(op.id), docs.delete(op.id));
  } else if (op.tenant === null && tenantScoped) {
    assert.equal(target.put(op.id, op.tenant, op.text), null);
    docs.delete(op.id);
  } else {
    assert.equal(target.put(op.id, op.tenant, op.text), null);
    docs.set(op.id, { tenant: op.tenant, text: op.text });
  }
}

const WORDS = ['apple', 'Banana', 'cherry', 'date', 'elder', 'fig', 'grape', 'x'];
const textArb = fc.array(fc.constantFrom(...WORDS), { maxLength: 8 }).map((ws) => ws.join(' '));

test('after random operations, searches and statistics equal a brute-force BM25 over the live documents', () => {
  for (const tenantScoped of [false, true]) {
    const tenants: (string | null)[] = tenantScoped ? ['a', 'b', '', null] : [null];
    const opArb: fc.Arbitrary<Op> = fc.oneof(
      fc.record({ put: fc.constant(true as const), id: fc.nat(15), tenant: fc.constantFrom(...tenants), text: textArb }),
      fc.record({ put: fc.constant(false as const), id: fc.nat(15) }),
    );
    fc.assert(
      fc.property(
        fc.array(fc.array(opArb, { minLength: 1, maxLength: 6 }), { maxLength: 8 }),
        fc.array(textArb, { minLength: 1, maxLength: 4 }),
        fc.integer({ min: 1, max: 20 }),
        (transactions, queries, k) => {
          const index = newIndex(tenantScoped);
          const docs = new Map<number, { tenant: string | null; text: string }>();
          for (const ops of transactions) {
            write(() => {
              for (const op of ops) applyOp(index, tenantScoped, op, docs);
            });
          }
          read(() => {
            for (const tenant of tenants) {
              const live = [...docs.values()].filter((d) => d.tenant === tenant).map((d) => analyzeDocument(d.text));
              const stats = live.length === 0 ? undefined : { documents: live.length, totalLength: live.reduce((s, a) => s + a.length, 0) };
              assert.deepEqual(index.stats(tenant), tenantScoped && tenant === null ? undefined : stats);
              for (const query of queries) {
                const expected = tenantScoped && tenant === null ? [] : bruteForce(docs, tenant, query, k);
                assert.deepEqual(index.search(tenant, query, k), expected);
                const even = (id: number) => id % 2 === 0;
                assert.deepEqual(
                  index.search(tenant, query, k, even),
                  tenantScoped && tenant === null ? [] : bruteForce(docs, tenant, query, k, even),
                );
              }
            }
            for (let id = 0; id <= 15; id++) assert.equal(index.has(id), docs.has(id));
          });
          write(() => {
            for (const id of docs.keys()) index.remove(id);
          });
          assert.equal(indexKeys(indexIdOf(index)), 0);
        },
      ),
      { numRuns: 60 },
    );
  }
});

/**
 * Corpora large enough for full blocks: a few words over hundreds of documents, so each
 * term holds several blocks; ids arrive in random order (blocks take postings inside their
 * range, re-key and split), documents are replaced, moved between tenants and removed in
 * batches of many operations, each batch flushed once.
 */
test('with full blocks, batched random writes keep searches equal to a brute-force BM25, and leave no key behind', () => {
  const words = ['alpha', 'beta', 'gamma', 'delta', 'rare'];
  const docTextArb = fc
    .array(fc.constantFrom(...words, ...words.slice(0, 3), 'alpha'), { minLength: 1, maxLength: 6 })
    .map((ws) => ws.join(' '));
  const opArb: fc.Arbitrary<Op> = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record({ put: fc.constant(true as const), id: fc.nat(600), tenant: fc.constantFrom('a', 'b'), text: docTextArb }),
    },
    { weight: 1, arbitrary: fc.record({ put: fc.constant(false as const), id: fc.nat(600) }) },
  );
  fc.assert(
    fc.property(
      fc.array(fc.array(opArb, { minLength: 50, maxLength: 400 }), { minLength: 1, maxLength: 4 }),
      fc.array(docTextArb, { minLength: 1, maxLength: 3 }),
      fc.integer({ min: 1, max: 40 }),
      (transactions, queries, k) => {
        const index = newIndex(true);
        const docs = new Map<number, { tenant: string | null; text: string }>();
        for (const ops of transactions) {
          write(() => {
            const batch = index.batch();
            for (const op of ops) applyOp(batch, true, op, docs);
            batch.flush();
          });
        }
        read(() => {
          for (const tenant of ['a', 'b']) {
            for (const query of [...queries, 'alpha', 'rare delta']) {
              assert.deepEqual(index.search(tenant, query, k), bruteForce(docs, tenant, query, k));
              const third = (id: number) => id % 3 === 0;
              assert.deepEqual(index.search(tenant, query, k, third), bruteForce(docs, tenant, query, k, third));
            }
          }
        });
        write(() => {
          const batch = index.batch();
          for (const id of docs.keys()) batch.remove(id);
          batch.flush();
        });
        assert.equal(indexKeys(indexIdOf(index)), 0);
      },
    ),
    { numRuns: 25 },
  );
});

test('a top-k search skips the blocks that cannot compete, undecoded and unscored, and ranks as brute force', () => {
  const index = newIndex(false);
  const docs = new Map<number, { tenant: null; text: string }>();
  // Eight full blocks of "common": cold documents everywhere but three hot ones in the fifth.
  const blocks = 8;
  for (let id = 0; id < blocks * BLOCK_SIZE; id++)
    docs.set(id, { tenant: null, text: id >= 600 && id < 603 ? 'common common common' : 'common filler filler filler' });
  write(() => {
    const batch = index.batch();
    for (const [id, d] of docs) batch.put(id, null, d.text);
    batch.flush();
  });
  // Counted through the prototypes: every posting scored, every block decoded.
  const cursor = TermPostingsCursor.prototype as unknown as { decode(): void };
  const { decode } = cursor;
  const { score } = TermScorer.prototype;
  let decoded = 0;
  let scored = 0;
  cursor.decode = function (this: unknown) {
    decoded++;
    decode.call(this);
  };
  TermScorer.prototype.score = function (this: TermScorer, tf: number, length: number) {
    scored++;
    return score.call(this, tf, length);
  };
  try {
    read(() => {
      for (const k of [1, 3]) {
        const expected = bruteForce(docs, null, 'common', k);
        decoded = 0;
        scored = 0;
        const hits = index.search(null, 'common', k);
        assert.deepEqual(hits, expected);
        assert.deepEqual(
          hits.map((h) => h.id),
          [600, 601, 602].slice(0, k),
        );
        // The first block (where the cursor starts) and the hot one; a few scores past the bounds.
        assert.equal(decoded, 2, `k ${k}`);
        assert.ok(scored < 3 * blocks + 2 * BLOCK_SIZE, `k ${k}: ${scored} scores`);
      }
    });
  } finally {
    cursor.decode = decode;
    TermScorer.prototype.score = score;
  }
});

test('a term grows past one block in one batch and across batches; the blocks hold every posting', () => {
  const index = newIndex(false);
  const docs = new Map<number, { tenant: null; text: string }>();
  for (let id = 0; id < 3 * BLOCK_SIZE + 7; id++) docs.set(id, { tenant: null, text: id % 2 === 0 ? 'common even' : 'common odd odd' });
  const ids = [...docs.keys()];
  write(() => {
    const batch = index.batch();
    for (const id of ids.slice(0, 200)) batch.put(id, null, docs.get(id)!.text);
    batch.flush();
  });
  write(() => {
    const batch = index.batch();
    for (const id of ids.slice(200)) batch.put(id, null, docs.get(id)!.text);
    batch.flush();
  });
  read(() => {
    for (const query of ['common', 'odd', 'even common']) {
      assert.deepEqual(index.search(null, query, 1000), bruteForce(docs, null, query, 1000));
      assert.deepEqual(index.search(null, query, 3), bruteForce(docs, null, query, 3));
    }
  });
  // Rewrite the documents of one block in place, then in reverse order within a batch.
  write(() => {
    const batch = index.batch();
    for (const id of ids.slice(0, 150).reverse()) {
      const text = id % 3 === 0 ? 'common rewritten' : docs.get(id)!.text;
      docs.set(id, { tenant: null, text });
      batch.put(id, null, text);
    }
    batch.flush();
  });
  read(() => {
    for (const query of ['common', 'rewritten', 'odd even'])
      assert.deepEqual(index.search(null, query, 50), bruteForce(docs, null, query, 50));
  });
});

test('blocks below the first are re-keyed, emptied blocks deleted, overgrown ones split', () => {
  const index = newIndex(false);
  const docs = new Map<number, { tenant: null; text: string }>();
  let batch: TextBatch | null = null;
  const batchOf = (ops: () => void) =>
    write(() => {
      batch = index.batch();
      ops();
      batch.flush();
    });
  const put = (id: number, text: string) => {
    docs.set(id, { tenant: null, text });
    batch!.put(id, null, text);
  };
  const remove = (id: number) => {
    docs.delete(id);
    batch!.remove(id);
  };
  const check = () =>
    read(() => {
      for (const query of ['word', 'other', 'word other'])
        assert.deepEqual(index.search(null, query, 2000), bruteForce(docs, null, query, 2000));
    });
  /** The first ids of the stored blocks of "word" (their keys end with it). */
  const wordBlocks = (): number[] => {
    const prefix = Buffer.alloc(5);
    prefix.writeUInt32BE(indexIdOf(index));
    prefix[4] = TEXT_KEY_KIND.block;
    const start = Buffer.concat([prefix, Buffer.of(TEXT_TENANT_KEY.none), Buffer.from('word'), Buffer.of(0)]);
    env.resetReadTxn();
    return [...db.getKeys({ start, end: Buffer.concat([start, Buffer.alloc(8, 0xff)]) })].map((k) => readU64(k as Buffer, k.length - 8));
  };
  // Every tenth id from 1000: three full blocks of 128 (the first spanning 1000..2270) and a
  // one-posting tail.
  batchOf(() => {
    for (let id = 1000; id <= 1000 + 10 * 3 * BLOCK_SIZE; id += 10) put(id, 'word');
  });
  check();
  const firsts = [1000, 1000 + 10 * BLOCK_SIZE, 1000 + 20 * BLOCK_SIZE];
  assert.deepEqual(wordBlocks(), firsts);
  // Ids below the first block's first id join it (it is re-keyed).
  batchOf(() => {
    for (let id = 5; id < 40; id++) put(id, 'word other');
  });
  check();
  assert.deepEqual(wordBlocks(), [5, ...firsts.slice(1)]);
  // Filling the gaps of the second block grows it past two blocks' worth: it is split.
  batchOf(() => {
    for (let id = 1000 + 10 * BLOCK_SIZE; id < 1000 + 20 * BLOCK_SIZE; id++) if (id % 10 !== 0) put(id, 'other word');
  });
  check();
  // Ten blocks of 128 consecutive ids in its place.
  const split = Array.from({ length: 10 }, (_, i) => firsts[1]! + i * BLOCK_SIZE);
  assert.deepEqual(wordBlocks(), [5, ...split, firsts[2]]);
  // Removing every posting of a block deletes it.
  batchOf(() => {
    for (const id of [...docs.keys()]) if (id >= 1000 + 20 * BLOCK_SIZE && id < 1000 + 30 * BLOCK_SIZE) remove(id);
  });
  check();
  assert.deepEqual(wordBlocks(), [5, ...split]);
  batchOf(() => {
    for (const id of [...docs.keys()]) remove(id);
  });
  assert.equal(indexKeys(indexIdOf(index)), 0);
});
