/** The posting codec and score impacts of text indexes (src/store/text-blocks.ts). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import {
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

test('texts round-trip after their byte count, short and past 127 bytes', () => {
  fc.assert(
    fc.property(
      fc.array(fc.oneof(fc.string({ unit: 'grapheme', maxLength: 300 }), fc.constant('é'.repeat(200))), { maxLength: 5 }),
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
