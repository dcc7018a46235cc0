/**
 * Node property columns: the chunk codec keeps every value exactly (kinds included), and
 * after any sequence of writes the columns agree with the node records, slot by slot.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { chunkValue, decodeChunk, encodeChunk, SlotCache } from '../../src/store/columns.js';
import { openStore } from '../../src/store/index.js';
import type { GraphReader, Store } from '../../src/store/types.js';
import { DateTime, type Value, type ValueObject } from '../../src/core/value.js';
import { tempDir } from '../helpers/server.js';

const dirs: { remove(): void }[] = [];
after(() => dirs.forEach((d) => d.remove()));

function roundTrip(slots: (Value | undefined)[]): (Value | undefined)[] {
  const bytes = encodeChunk(slots);
  if (bytes === null) return [];
  const chunk = decodeChunk(bytes);
  return Array.from({ length: slots.length }, (_, i) => chunkValue(chunk, i));
}

test('chunks keep numbers, strings and anything else exactly, absent slots absent', () => {
  const nums: (Value | undefined)[] = [1n, undefined, 2.5, -0, 9007199254740991n, Number.NaN];
  assert.deepEqual(roundTrip(nums), nums);
  assert.equal(decodeChunk(encodeChunk(nums)!).kind, 'num');
  const strs: (Value | undefined)[] = ['a', undefined, 'é', 'a', ''];
  assert.deepEqual(roundTrip(strs), strs);
  assert.equal(decodeChunk(encodeChunk(strs)!).kind, 'str');
  const mixed: (Value | undefined)[] = [
    9007199254740993n,
    'x',
    null,
    true,
    new DateTime(5),
    { k: [1n, 'v'] },
    new Float32Array([0.5]),
    undefined,
    -0,
    [-0, 'z'],
  ];
  // Strict: -0 must come back as -0 (msgpackr alone would write it as the integer 0).
  assert.deepStrictEqual(roundTrip(mixed), mixed);
  assert.equal(decodeChunk(encodeChunk(mixed)!).kind, 'gen');
  assert.equal(encodeChunk([undefined, undefined]), null);
  const wide = Array.from({ length: 1024 }, (_, i) => (i % 3 === 0 ? undefined : `s${i}`));
  assert.deepEqual(roundTrip(wide), wide);
});

/** What the columns say about every node, next to what the records say. */
function viewsOf(r: GraphReader, props: string[]): { fromColumns: unknown[]; fromRecords: unknown[] } {
  const fromColumns: unknown[] = [];
  for (const block of r.nodeColumns(props)) {
    for (let slot = 0; slot < block.labels.length; slot++) {
      if (block.labels[slot] === 0) continue;
      const values = block.columns.map((c) => (c === null ? undefined : chunkValue(c, slot)));
      fromColumns.push([block.base + slot, block.labels[slot], values]);
    }
  }
  const fromRecords = [...r.nodeIds()].map((id) => {
    const rec = r.getNode(id)!;
    return [id, r.labelId(rec.label), props.map((p) => (Object.hasOwn(rec.props, p) ? rec.props[p] : undefined))];
  });
  return { fromColumns, fromRecords };
}

const valueArb: fc.Arbitrary<Value> = fc.oneof(
  fc.bigInt({ min: -(2n ** 60n), max: 2n ** 60n }),
  fc.double({ noNaN: true }),
  fc.constantFrom('a', 'b', 'é', ''),
  fc.boolean(),
  fc.constant(null),
);
const propsArb: fc.Arbitrary<ValueObject> = fc.dictionary(fc.constantFrom('p', 'q', 'r'), valueArb, { maxKeys: 3 });
type Op =
  | { op: 'create'; label: string; props: ValueObject }
  | { op: 'put'; pick: number; label: string; props: ValueObject }
  | { op: 'delete'; pick: number };
const opArb: fc.Arbitrary<Op> = fc.oneof(
  fc.record({ op: fc.constant('create' as const), label: fc.constantFrom('A', 'B'), props: propsArb }),
  fc.record({ op: fc.constant('put' as const), pick: fc.nat(), label: fc.constantFrom('A', 'B'), props: propsArb }),
  fc.record({ op: fc.constant('delete' as const), pick: fc.nat() }),
);

test('property: after random creates, updates, relabels and deletes, columns agree with records', async () => {
  await fc.assert(
    fc.asyncProperty(fc.array(fc.array(opArb, { maxLength: 40 }), { minLength: 1, maxLength: 4 }), async (batches) => {
      const dir = tempDir('trellis-columns-');
      dirs.push(dir);
      const store: Store = await openStore({ path: dir.path });
      try {
        for (const batch of batches) {
          await store.write((w) => {
            for (const o of batch) {
              const live = [...w.nodeIds()];
              if (o.op === 'create') w.createNode(o.label, o.props);
              else if (live.length > 0 && o.op === 'put') w.putNode({ id: live[o.pick % live.length]!, label: o.label, props: o.props });
              else if (live.length > 0 && o.op === 'delete') w.deleteNode(live[o.pick % live.length]!);
            }
          });
        }
        const { fromColumns, fromRecords } = store.read((r) => viewsOf(r, ['p', 'q', 'r', 'never']));
        assert.deepEqual(fromColumns, fromRecords);
      } finally {
        await store.close();
      }
    }),
    { numRuns: 40 },
  );
});

test('a reader that cached chunks sees every later commit (chunk versions), deletes and re-creates included', async () => {
  const dir = tempDir('trellis-columns-');
  dirs.push(dir);
  const store = await openStore({ path: dir.path });
  const values = () =>
    store.read((r) =>
      [...r.nodeColumns(['v'])].flatMap((b) =>
        Array.from(b.labels.keys())
          .filter((i) => b.labels[i] !== 0)
          .map((i) => (b.columns[0] ? chunkValue(b.columns[0], i) : undefined)),
      ),
    );
  await store.write((w) => {
    for (let i = 0; i < 3; i++) w.createNode('A', { v: BigInt(i) });
  });
  assert.deepEqual(values(), [0n, 1n, 2n]);
  await store.write((w) => w.putNode({ id: 1, label: 'A', props: { v: 'one' } }));
  assert.deepEqual(values(), [0n, 'one', 2n]);
  await store.write((w) => {
    for (const id of [0, 1, 2]) w.deleteNode(id);
  });
  assert.deepEqual(values(), []);
  await store.write((w) => w.createNode('A', { v: 7n }));
  assert.deepEqual(values(), [7n]);
  await store.close();
});

test('a rolled-back batch leaves neither its chunks nor its cached edits behind', async () => {
  const dir = tempDir('trellis-columns-');
  dirs.push(dir);
  const store = await openStore({ path: dir.path });
  const values = () =>
    store.read((r) =>
      [...r.nodeColumns(['v'])].flatMap((b) => [0, 1].map((i) => (b.columns[0] ? chunkValue(b.columns[0], i) : undefined))),
    );
  await store.write((w) => [w.createNode('A', { v: 1n }), w.createNode('A', { v: 2n })]);
  await assert.rejects(
    store.write((w) => {
      w.putNode({ id: 0, label: 'A', props: { v: 'rolled back' } });
      throw new Error('no');
    }),
  );
  assert.deepEqual(values(), [1n, 2n]);
  // The next batch edits the same chunk from the committed state, not the rolled-back one.
  await store.write((w) => w.putNode({ id: 1, label: 'A', props: { v: 3n } }));
  assert.deepEqual(values(), [1n, 3n]);
  await store.close();
});

test('a column fact is made once while the columns stand, again after a commit that changes them, and on every call in a write batch', async () => {
  const dir = tempDir('trellis-columns-');
  dirs.push(dir);
  const store = await openStore({ path: dir.path });
  let made = 0;
  // The fact: the values of `v`, read from the columns as a scan would.
  const valuesOf = (r: GraphReader) => () => {
    made++;
    return [...r.nodeColumns(['v'])].flatMap((b) => (b.columns[0] ? [0, 1].map((i) => chunkValue(b.columns[0]!, i)) : []));
  };
  const fact = (key = 'values of v') => store.read((r) => r.columnsFact(key, valuesOf(r)));
  try {
    await store.write((w) => [w.createNode('A', { v: 1n }), w.createNode('A', { v: 2n })]);
    assert.deepEqual(fact(), [1n, 2n]);
    assert.deepEqual(fact(), [1n, 2n]);
    assert.equal(made, 1, 'made once while nothing changed');
    assert.deepEqual(fact('another key'), [1n, 2n]);
    assert.equal(made, 2, 'each key is its own fact');

    await store.write((w) => w.createEdge('E', 0, 1, {}));
    assert.deepEqual(fact(), [1n, 2n]);
    assert.equal(made, 2, 'an edge changes no column: the fact stands');
    await assert.rejects(
      store.write((w) => {
        w.putNode({ id: 0, label: 'A', props: { v: 'rolled back' } });
        throw new Error('no');
      }),
    );
    assert.deepEqual(fact(), [1n, 2n]);
    assert.equal(made, 2, 'a rolled-back batch changes nothing');

    await store.write((w) => w.putNode({ id: 1, label: 'A', props: { v: 'two' } }));
    assert.deepEqual(fact(), [1n, 'two']);
    assert.equal(made, 3, 'a commit that wrote the column: made again');

    // A write batch sees its own writes, so it makes the fact on every call.
    const inBatch = await store.write((w) => {
      const before = w.columnsFact('values of v', valuesOf(w));
      w.putNode({ id: 0, label: 'A', props: { v: 'one' } });
      return [before, w.columnsFact('values of v', valuesOf(w))];
    });
    assert.deepEqual(inBatch, [
      [1n, 'two'],
      ['one', 'two'],
    ]);
    assert.equal(made, 5);
    assert.deepEqual(fact(), ['one', 'two']);
  } finally {
    await store.close();
  }
});

test("the writer's slot cache is bounded by the chunks' bytes, not their count: a column of vectors cannot fill the heap", async () => {
  // Budget 1 MiB: a chunk counts 64 + twice its encoded bytes.
  const cache = new SlotCache(1024 * 1024);
  const slots = (tag: number) => [BigInt(tag)];
  for (let i = 0; i < 100; i++) cache.put(`small:${i}`, 1, slots(i), 1000);
  assert.deepEqual(cache.take('small:0', 1), [0n], 'a hundred small chunks fit');
  assert.equal(cache.take('small:0', 2), undefined, 'another version does not match');
  // Chunks of 128-d vectors (about 1.2 MB encoded) would each exceed the budget alone.
  cache.put('vectors:0', 1, slots(-1), 1_200_000);
  assert.equal(cache.take('vectors:0', 1), undefined, 'a chunk over the budget is not kept');
  // 200 KB chunks: five fit with room for little else, the least recently written go first.
  for (let i = 0; i < 8; i++) cache.put(`mid:${i}`, 1, slots(i), 100_000);
  assert.equal(cache.take('small:0', 1), undefined, 'the oldest went first');
  assert.equal(cache.take('mid:0', 1), undefined);
  assert.deepEqual(cache.take('mid:7', 1), [7n], 'the newest stays');
  let kept = 0;
  for (let i = 0; i < 8; i++) if (cache.take(`mid:${i}`, 1) !== undefined) kept++;
  assert.equal(kept, 5, 'five of 200,064 bytes fit in 1 MiB');
  // Writing a chunk again replaces it (its bytes counted once).
  for (let i = 0; i < 20; i++) cache.put('mid:7', 1 + i, slots(100 + i), 100_000);
  assert.deepEqual(cache.take('mid:7', 20), [119n]);
  kept = 0;
  for (let i = 0; i < 8; i++) if (cache.take(`mid:${i}`, 1) !== undefined) kept++;
  assert.equal(kept, 4, 'the other four stay');
});
