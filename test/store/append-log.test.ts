/**
 * The adjacency append log (src/store/append-log.ts): entries come back ordered by key,
 * equal keys in append order, whichever way the log grew (by doubling, or reserved at once
 * by a batch that knows its size) and whichever sort the key span picks; an empty log holds
 * no room (every write batch makes one).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { AppendLog } from '../../src/store/append-log.js';
import { Rng } from '../helpers/prng.js';

interface Entry {
  key: number;
  label: number;
  other: number;
  edge: number;
}

function entries(rng: Rng, n: number, span: number): Entry[] {
  return Array.from({ length: n }, (_, i) => ({ key: rng.int(span), label: rng.int(3), other: rng.int(1e6), edge: i }));
}

function sortedOf(log: AppendLog): Entry[] {
  const s = log.sorted();
  return Array.from({ length: s.n }, (_, i) => ({ key: s.keys[i]!, label: s.labels[i]!, other: s.others[i]!, edge: s.edges[i]! }));
}

// Appended in edge order, so a stable sort by key is the order wanted.
const expected = (all: Entry[]) => [...all].sort((a, b) => a.key - b.key || a.edge - b.edge);

for (const [what, span] of [
  ['a dense key span (counting sort)', 5_000],
  ['a wide key span (packed sort)', 2 ** 30],
] as const) {
  test(`append log: ${what}, grown by doubling or reserved at once, sorts stably by key`, () => {
    const rng = new Rng(span);
    const all = entries(rng, 6_000, span);
    const doubling = new AppendLog();
    const reserved = new AppendLog();
    // Part appended before the reservation: the reservation keeps what the log holds.
    all.slice(0, 1_500).forEach((e) => reserved.push(e.key, e.label, e.other, e.edge));
    reserved.reserve(all.length - 1_500);
    const capacity = reserved.keys.length;
    assert.ok(capacity >= all.length, 'room for every entry at once');
    all.slice(1_500).forEach((e) => reserved.push(e.key, e.label, e.other, e.edge));
    assert.equal(reserved.keys.length, capacity, 'no growth after the reservation');
    all.forEach((e) => doubling.push(e.key, e.label, e.other, e.edge));
    assert.deepEqual(sortedOf(doubling), expected(all));
    assert.deepEqual(sortedOf(reserved), expected(all));
  });
}

test('append log: a log that appends nothing holds no room; the first append or reservation makes it', () => {
  const empty = new AppendLog();
  assert.equal(empty.keys.length + empty.labels.length + empty.others.length + empty.edges.length, 0);
  const one = new AppendLog();
  one.push(7, 1, 2, 3);
  assert.equal(one.keys.length, 1024);
  assert.deepEqual(sortedOf(one), [{ key: 7, label: 1, other: 2, edge: 3 }]);
  const reserved = new AppendLog();
  reserved.reserve(5_000);
  assert.equal(reserved.keys.length, 5_000);
});
