/**
 * The id set of a `_within` search over a scan (src/exec/scan/id-set.ts): dense ids
 * answered from a bitmap, sparse ones from the sorted list, both the same to every caller;
 * slots of a block added with their label and mask.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { IdSet } from '../../src/exec/scan/id-set.js';
import { Rng } from '../helpers/prng.js';

function check(set: IdSet, ids: number[], probes: number[]): void {
  assert.equal(set.size, ids.length);
  assert.deepEqual([...set.keys()], ids);
  const members = new Set(ids);
  for (const id of probes) assert.equal(set.has(id), members.has(id), `has(${id})`);
}

test('dense and sparse ids: size, keys ascending and has, inside and outside their span', () => {
  const rng = new Rng(11);
  for (const spread of [1, 3, 1000, 1e9]) {
    const ids: number[] = [];
    let id = 1 + Math.floor(rng.float() * 100);
    for (let i = 0; i < 3000; i++) {
      ids.push(id);
      id += 1 + Math.floor(rng.float() * spread);
    }
    const set = new IdSet();
    for (const x of ids) set.push(x);
    set.done();
    const probes = [0, ids[0]! - 1, id, id + 1e6, 2 ** 52, ...ids.slice(0, 200), ...ids.slice(0, 200).map((x) => x + 1)];
    check(set, ids, probes);
  }
  const empty = new IdSet().done();
  check(empty, [], [0, 1, 5]);
});

test('slots of blocks: those holding an element and passing the mask, then single ids after them', () => {
  const set = new IdSet();
  const labels = new Uint32Array(8).fill(1);
  labels[2] = 0;
  const mask = Uint8Array.from([1, 1, 1, 0, 1, 0, 0, 1]);
  set.pushSlots(0, 8, labels, null);
  set.pushSlots(1024, 8, labels, mask);
  set.push(5000);
  set.done();
  check(set, [0, 1, 3, 4, 5, 6, 7, 1024, 1025, 1028, 1031, 5000], [2, 1026, 1027, 1029, 4999, 5001]);
});
