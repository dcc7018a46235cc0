/**
 * Edge batches an online import joins into one request (src/bulk-io/held-edges.ts): rows
 * in order, every column kind, presence lists where any batch had one, and only batches
 * of one label and the same columns.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { HeldEdges, type EdgeBatch } from '../../src/bulk-io/held-edges.js';
import type { BulkColumn } from '../../src/store/index.js';
import { cellOf } from '../../src/store/bulk-columns.js';

/** A batch of `n` edges from `base`: a weight column (missing where `gap`), a text column. */
function batch(base: number, n: number, gap: ((i: number) => boolean) | null, label = 'E'): EdgeBatch {
  const from = new Float64Array(n + 2).fill(-1); // longer than count: only count rows are read
  const to = new Float64Array(n + 2).fill(-1);
  const w = new Float64Array(n);
  const present = gap === null ? null : new Uint8Array(n);
  const text: (string | undefined)[] = [];
  for (let i = 0; i < n; i++) {
    from[i] = base + i;
    to[i] = base + i + 1;
    w[i] = (base + i) * 10;
    if (present !== null) present[i] = gap!(i) ? 0 : 1;
    text.push(i % 3 === 0 ? undefined : `t${base + i}`);
  }
  const columns: BulkColumn[] = [
    { name: 'w', kind: 'i64', values: w, present },
    { name: 'note', kind: 'value', values: text },
  ];
  return { label, from, to, count: n, columns };
}

const cells = (b: EdgeBatch, column: number) => Array.from({ length: b.count }, (_, i) => cellOf(b.columns[column]!, i));

test('held edge batches join into one, in order, with every cell as it was', () => {
  const parts = [batch(0, 4, null), batch(100, 3, (i) => i === 1), batch(200, 5, null)];
  const held = new HeldEdges();
  for (const p of parts) {
    assert.equal(held.accepts(p), true);
    held.add(p);
  }
  assert.equal(held.count, 12);
  const joined = held.take()!;
  assert.equal(joined.count, 12);
  assert.deepEqual(Array.from(joined.from), [0, 1, 2, 3, 100, 101, 102, 200, 201, 202, 203, 204]);
  assert.deepEqual(
    Array.from(joined.to),
    Array.from(joined.from, (f) => f + 1),
  );
  assert.deepEqual(
    cells(joined, 0),
    parts.flatMap((p) => cells(p, 0)),
  );
  assert.equal(cells(joined, 0)[5], undefined, 'the missing weight of the second batch stays missing');
  assert.equal(cells(joined, 0)[0], 0n, 'i64 cells stay integers');
  assert.deepEqual(
    cells(joined, 1),
    parts.flatMap((p) => cells(p, 1)),
  );
  assert.equal(held.count, 0);
  assert.equal(held.take(), null, 'take empties it');
});

test('one held batch is taken as it is; batches of another label or other columns are not joined', () => {
  const held = new HeldEdges();
  const one = batch(0, 3, null);
  held.add(one);
  assert.equal(held.accepts(batch(10, 2, null, 'F')), false, 'another label');
  const renamed = batch(10, 2, null);
  assert.equal(held.accepts({ ...renamed, columns: [renamed.columns[1]!, renamed.columns[0]!] }), false, 'columns in another order');
  assert.equal(held.accepts({ ...renamed, columns: [renamed.columns[0]!] }), false, 'fewer columns');
  const floats = {
    ...renamed,
    columns: [{ ...(renamed.columns[0] as BulkColumn & { kind: 'i64' }), kind: 'f64' as const }, renamed.columns[1]!],
  };
  assert.equal(held.accepts(floats), false, 'another kind');
  assert.equal(held.take(), one);
  assert.equal(held.accepts(batch(10, 2, null, 'F')), true, 'anything joins an empty hold');
});
