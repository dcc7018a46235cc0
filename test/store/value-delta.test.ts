/**
 * Deltas of a value against its previous version (src/store/value-delta.ts), the change
 * log's patches: any edit round-trips exactly, the edits writes make come out small, a
 * delta past its budget is refused, and a delta that does not fit the value it is applied
 * to is an error, never a wrong value.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { applyDelta, encodeDelta } from '../../src/store/value-delta.js';

function delta(prev: Uint8Array, next: Uint8Array, limit = 1 << 20): Buffer | null {
  const out = Buffer.alloc(limit);
  const end = encodeDelta(prev, prev.length, next, out, 0, limit);
  return end < 0 ? null : out.subarray(0, end);
}

/** An edit of `prev`: bytes set, inserted, removed, appended or cut. */
const edited = fc
  .tuple(
    fc.uint8Array({ minLength: 0, maxLength: 3000 }),
    fc.array(
      fc.record({
        kind: fc.constantFrom('set', 'insert', 'remove', 'append', 'cut'),
        at: fc.nat(),
        bytes: fc.uint8Array({ minLength: 1, maxLength: 40 }),
      }),
      { maxLength: 6 },
    ),
  )
  .map(([prev, edits]) => {
    let next = Buffer.from(prev);
    for (const { kind, at, bytes } of edits) {
      const i = next.length === 0 ? 0 : at % next.length;
      if (kind === 'set') next = Buffer.concat([next.subarray(0, i), bytes, next.subarray(Math.min(next.length, i + bytes.length))]);
      else if (kind === 'insert') next = Buffer.concat([next.subarray(0, i), bytes, next.subarray(i)]);
      else if (kind === 'remove') next = Buffer.concat([next.subarray(0, i), next.subarray(i + bytes.length)]);
      else if (kind === 'append') next = Buffer.concat([next, bytes]);
      else next = next.subarray(0, i);
    }
    return { prev, next };
  });

test('every edit of a value round-trips through its delta', () => {
  fc.assert(
    fc.property(edited, ({ prev, next }) => {
      const d = delta(prev, next)!;
      assert.deepEqual(applyDelta(prev, d, 'test'), Buffer.from(next));
    }),
    { numRuns: 500 },
  );
});

test('a value longer than its read buffer says is read only to its length (lmdb-js reuses one buffer)', () => {
  const prev = Buffer.alloc(4000, 7);
  prev.fill(9, 2000);
  const next = Buffer.alloc(2500, 7);
  const out = Buffer.alloc(10_000);
  const end = encodeDelta(prev, 2000, next, out, 0, out.length);
  assert.deepEqual(applyDelta(prev.subarray(0, 2000), out.subarray(0, end), 'test'), next);
});

test("a value in lmdb-js's shared read buffer (its length property the value's, the buffer larger) is read only to that length", () => {
  // getBinaryFast's buffer: one long buffer whose own `length` property says the value's length.
  const shared = Buffer.alloc(200_000, 5);
  shared.fill(7, 0, 3000);
  Object.defineProperty(shared, 'length', { value: 3000, writable: true });
  const next = Buffer.alloc(3008, 7);
  next.writeUInt32LE(99, 40);
  const out = Buffer.alloc(10_000);
  const end = encodeDelta(shared, shared.length, next, out, 0, out.length);
  assert.ok(end > 0 && end < 100, `the delta takes ${end} bytes`);
  assert.deepEqual(applyDelta(Buffer.alloc(3000, 7), out.subarray(0, end), 'test'), next);
});

test('values of several pages (past the first staging memory) round-trip', () => {
  const prev = Buffer.from(Array.from({ length: 150_000 }, (_, i) => (i * 7) % 256));
  const next = Buffer.concat([prev.subarray(0, 70_000), Buffer.from('inserted'), prev.subarray(70_000)]);
  next[5] = 1;
  next[149_000] = 2;
  const d = delta(prev, next)!;
  assert.ok(d.length < 200, `the delta takes ${d.length} bytes`);
  assert.deepEqual(applyDelta(prev, d, 'test'), next);
});

test('the edits a write makes come out small: a slot set in a chunk, a word inserted in a dictionary', () => {
  const chunk = Buffer.alloc(8400);
  for (let i = 0; i < 700; i++) chunk.writeDoubleLE(i * 1.5, 400 + i * 8);
  const set = Buffer.from(chunk);
  set.writeUInt16LE(701, 2); // the header's count
  set.writeDoubleLE(1050, 400 + 700 * 8);
  const d1 = delta(chunk, set)!;
  assert.ok(d1.length < 60, `a set slot takes ${d1.length} bytes`);
  const words = Array.from({ length: 300 }, (_, i) => `word-${i * 7919}`);
  const lengths = (list: string[]) => Buffer.from(new Uint32Array(list.map((w) => w.length)).buffer);
  const dict = (list: string[]) => Buffer.concat([Buffer.alloc(16, 1), lengths(list), Buffer.from(list.join(''))]);
  const before = dict(words);
  const after = dict([...words.slice(0, 120), 'inserted', ...words.slice(120)]);
  const d2 = delta(before, after)!;
  assert.ok(d2.length < 120, `an inserted word takes ${d2.length} bytes of ${after.length}`);
  assert.deepEqual(applyDelta(before, d2, 'test'), after);
});

test('a delta past its budget is refused; a delta applied to another value is an error', () => {
  const prev = Buffer.from('a'.repeat(500));
  const unrelated = Buffer.from(Array.from({ length: 500 }, (_, i) => (i * 31) % 251));
  assert.equal(delta(prev, unrelated, 250), null);
  const d = delta(prev, Buffer.from(`${'a'.repeat(300)}b${'a'.repeat(199)}`))!;
  assert.throws(() => applyDelta(Buffer.from('a'.repeat(100)), d, 'entry 9, change 2'), /entry 9, change 2: the delta copies bytes/);
  assert.throws(
    () => applyDelta(prev, d.subarray(0, d.length - 1), 'entry 9, change 2'),
    /entry 9, change 2: the delta is truncated|does not cover/,
  );
  const bad = Buffer.from(d);
  bad.writeUInt32LE(501, 0);
  assert.throws(() => applyDelta(prev, bad, 'x'), /does not cover the new value exactly/);
});
