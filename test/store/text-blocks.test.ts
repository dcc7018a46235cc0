/** The posting codec and score impacts of text indexes (src/store/text-blocks.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
  appendToHead,
  BLOCK_SIZE,
  ByteReader,
  ByteWriter,
  decodeBlock,
  decodeHead,
  encodeBlock,
  encodeHead,
  impactsOf,
  MAX_IMPACTS,
  PostingList,
} from '../../src/store/text-blocks.js';

const pairsArb = fc.array(fc.tuple(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 1, max: 5000 })), { maxLength: 200 });

test('impacts are at most MAX_IMPACTS pairs and dominate every pair; without merging, exactly the Pareto-best ones', () => {
  fc.assert(
    fc.property(pairsArb, (pairs) => {
      const flat = pairs.flat();
      const impacts = impactsOf(flat);
      assert.ok(impacts.length <= 2 * MAX_IMPACTS);
      for (const [tf, length] of pairs) {
        let dominated = false;
        for (let i = 0; i < impacts.length; i += 2) if (impacts[i]! >= tf && impacts[i + 1]! <= length) dominated = true;
        assert.ok(dominated, `(${tf}, ${length}) is not dominated by ${impacts.join(',')}`);
      }
      const pareto = pairs.filter(([tf, length]) => !pairs.some(([t, l]) => t >= tf && l <= length && (t > tf || l < length)));
      const distinct = new Set(pareto.map((p) => p.join(','))).size;
      if (distinct <= MAX_IMPACTS) assert.equal(impacts.length / 2, distinct);
    }),
    { numRuns: 300 },
  );
  // More Pareto-best pairs than kept: neighbours merge into (larger tf, smaller length).
  const staircase = Array.from({ length: 20 }, (_, i) => [i + 1, 10 * (i + 1)]).flat();
  assert.equal(impactsOf(staircase).length, 2 * 5);
  assert.deepEqual(impactsOf([]), []);
});

test('heads and blocks round-trip, ids up to 2^52', () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.integer({ min: 0, max: 2 ** 52 - 1 }), { minLength: 1, maxLength: 300 }),
      fc.integer({ min: 1, max: 2 ** 20 }),
      (ids, tf) => {
        const list = new PostingList();
        for (const id of [...ids].sort((a, b) => a - b)) list.push(id, tf, tf + (id % 1000));
        const block = decodeBlock(list.ids[0]!, encodeBlock(list));
        assert.deepEqual([block.ids, block.tfs, block.lengths], [list.ids, list.tfs, list.lengths]);
        const head = { df: ids.length, blocks: 3, blocksEnd: list.ids[0]!, impacts: [tf, 7], tail: list };
        assert.deepEqual(decodeHead(encodeHead(head)), head);
      },
    ),
    { numRuns: 100 },
  );
});

test('texts round-trip after their byte count, short and past 127 bytes, ASCII (written a character at a time) or not', () => {
  fc.assert(
    fc.property(
      fc.array(
        fc.oneof(
          fc.string({ unit: 'grapheme', maxLength: 300 }),
          fc.string({ unit: 'binary-ascii', maxLength: 200 }),
          fc.constant('é'.repeat(200)),
          fc.constant('a'.repeat(127)),
          fc.constant('a'.repeat(128)),
          fc.constant('ab\u00e9'),
          fc.constant(`${'a'.repeat(126)}é`),
        ),
        { maxLength: 5 },
      ),
      (texts) => {
        const w = new ByteWriter();
        for (const t of texts) {
          w.utf8(t);
          w.varint(7);
        }
        const r = new ByteReader(w.done());
        for (const t of texts) {
          assert.equal(r.utf8(), t);
          assert.equal(r.varint(), 7);
        }
      },
    ),
    { numRuns: 200 },
  );
});

test('appending to a head without decoding its tail equals decoding, appending and encoding', () => {
  fc.assert(
    fc.property(
      fc.uniqueArray(fc.integer({ min: 0, max: 2 ** 40 }), { minLength: 1, maxLength: 140 }),
      fc.integer({ min: 0, max: 140 }),
      fc.integer({ min: 0, max: 3 }),
      (ids, split, blocks) => {
        const sorted = [...ids].sort((a, b) => a - b);
        const cut = Math.min(split, sorted.length - 1);
        const tail = new PostingList();
        for (const id of sorted.slice(0, cut)) tail.push(id, 1 + (id % 3), 10 + (id % 7));
        const added = sorted.slice(cut);
        const tfs = added.map((id) => 2 + (id % 5));
        const lengths = added.map((id) => 5 + (id % 11));
        const blocksEnd = blocks === 0 ? 0 : (sorted[0] ?? 0);
        const head = {
          df: tail.size + 500 * blocks,
          blocks,
          blocksEnd,
          impacts: impactsOf([1, 50, ...tail.tfs.flatMap((tf, i) => [tf, tail.lengths[i]!])]),
          tail,
        };
        const appended = appendToHead(encodeHead(head), added, tfs, lengths);
        if (tail.size + added.length >= BLOCK_SIZE) {
          assert.equal(appended, null);
          return;
        }
        const expected = new PostingList();
        for (let i = 0; i < tail.size; i++) expected.push(tail.ids[i]!, tail.tfs[i]!, tail.lengths[i]!);
        added.forEach((id, i) => expected.push(id, tfs[i]!, lengths[i]!));
        const impacts = impactsOf([...head.impacts, ...added.flatMap((_, i) => [tfs[i]!, lengths[i]!])]);
        assert.deepEqual(decodeHead(appended!), { df: head.df + added.length, blocks, blocksEnd, impacts, tail: expected });
      },
    ),
    { numRuns: 200 },
  );
  // Not past the stored ids: the caller takes the general path.
  const tail = new PostingList();
  tail.push(10, 1, 5);
  assert.equal(appendToHead(encodeHead({ df: 1, blocks: 0, blocksEnd: 0, impacts: [1, 5], tail }), [10], [1], [5]), null);
  // Below the blocks' end (an id a full block may hold): the general path as well.
  const empty = new PostingList();
  assert.equal(appendToHead(encodeHead({ df: 500, blocks: 2, blocksEnd: 100, impacts: [1, 5], tail: empty }), [99], [1], [5]), null);
  assert.notEqual(appendToHead(encodeHead({ df: 500, blocks: 2, blocksEnd: 100, impacts: [1, 5], tail: empty }), [100], [1], [5]), null);
  // An empty tail takes element 0 (fast-check's counterexample [[0], 0, 0]).
  const one = new PostingList();
  one.push(0, 2, 5);
  const none = encodeHead({ df: 0, blocks: 0, blocksEnd: 0, impacts: [], tail: new PostingList() });
  assert.deepEqual(decodeHead(appendToHead(none, [0], [2], [5])!), { df: 1, blocks: 0, blocksEnd: 0, impacts: [2, 5], tail: one });
});
