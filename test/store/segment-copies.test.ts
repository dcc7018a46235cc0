/**
 * The copies a thread keeps of a segment's elements (src/store/segment-copies.ts): a copy
 * is read from LMDB once per segment and answered from memory after; a new segment (its
 * pointer's generation or nonce) starts afresh, so an element moved and published since is
 * ranked by its new vector; the keep is bounded. Through a real store: searches after a
 * move, before and after the publish that covers it, rank as brute force does.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { q } from '../helpers/embedded.js';
import { Rng } from '../helpers/prng.js';
import { tempDir } from '../helpers/server.js';
import {
  addDocs,
  bruteForce,
  built,
  clusteredVectors,
  createIndex,
  openVectorDb,
  search,
  type Hit,
  type Spec,
} from '../helpers/vectors.js';
import { COPY_BYTES, SegmentCopies } from '../../src/store/segment-copies.js';

/** A `read` for the keep that answers `id` as every component and counts its calls. */
function countingRead(dimension: number): { read: (id: number) => Float32Array | null; calls: number[] } {
  const calls: number[] = [];
  const into = new Float32Array(dimension);
  return {
    calls,
    read: (id) => {
      calls.push(id);
      return id < 0 ? null : into.fill(id);
    },
  };
}

test('a copy is read once per segment, answered from memory after, and read again for a new segment', () => {
  const copies = new SegmentCopies();
  const first = countingRead(4);
  const reader = copies.reader(7, 11, 1, 4, first.read);
  assert.deepEqual(Array.from(reader(3)!), [3, 3, 3, 3]);
  assert.deepEqual(Array.from(reader(5)!), [5, 5, 5, 5]);
  assert.deepEqual(Array.from(reader(3)!), [3, 3, 3, 3]);
  assert.equal(reader(-1), null);
  assert.deepEqual(first.calls, [3, 5, -1]);
  // Another reader over the same segment (the next search) finds them kept.
  const again = countingRead(4);
  assert.deepEqual(Array.from(copies.reader(7, 11, 1, 4, again.read)(5)!), [5, 5, 5, 5]);
  assert.deepEqual(again.calls, []);
  // The next generation, or another history (nonce), reads afresh.
  const next = countingRead(4);
  copies.reader(7, 11, 2, 4, next.read)(5);
  copies.reader(7, 12, 2, 4, next.read)(5);
  assert.deepEqual(next.calls, [5, 5]);
});

test('the copies kept are bounded: past COPY_BYTES a copy is answered but read again next time', () => {
  const copies = new SegmentCopies();
  const dimension = 4096;
  const fits = COPY_BYTES / (dimension * 4);
  const counting = countingRead(dimension);
  const reader = copies.reader(1, 1, 1, dimension, counting.read);
  for (let id = 0; id < fits + 10; id++) assert.equal(reader(id)![0], id);
  assert.equal(copies.keptBytes, COPY_BYTES);
  counting.calls.length = 0;
  assert.equal(reader(0)![0], 0);
  assert.equal(reader(fits + 5)![0], fits + 5);
  assert.deepEqual(counting.calls, [fits + 5]);
  // Another graph (a tenant's) then keeps nothing at all, and reads through every time.
  const other = countingRead(dimension);
  const through = copies.reader(2, 1, 1, dimension, other.read);
  through(9);
  through(9);
  assert.deepEqual(other.calls, [9, 9]);
  assert.equal(copies.keptBytes, COPY_BYTES);
  // A new segment of the first graph gives its room back.
  copies.reader(1, 1, 2, dimension, countingRead(dimension).read)(0);
  assert.ok(copies.keptBytes < 1024 * 1024, `${copies.keptBytes} bytes kept`);
});

const COSINE: Spec = { label: 'Doc', property: 'emb', dimension: 16, metric: 'cosine' };
const close = (got: Hit[], want: Hit[]) => {
  assert.deepEqual(
    got.map((h) => h.$id),
    want.map((h) => h.$id),
  );
  got.forEach((h, i) => assert.ok(Math.abs(h.$distance - want[i]!.$distance) < 1e-6, `${h.$distance} against ${want[i]!.$distance}`));
};

test('an element moved ranks by its new vector before and after the publish that covers it, not by a kept copy', async () => {
  const dir = tempDir('trellis-segment-copies-');
  try {
    const db = await openVectorDb({ path: dir.path });
    try {
      await createIndex(db, COSINE);
      const rng = new Rng(5);
      const vectors = clusteredVectors(rng, 300, 16);
      const ids = await addDocs(db, vectors);
      await built(db);
      const live = new Map(ids.map((id, i) => [id, vectors[i]!]));
      const x = ids[17]!;
      // Its copy is kept by this search (it is the nearest to its own vector).
      close(search(db, vectors[17]!, { k: 5, ef: 64 }), bruteForce('cosine', live, vectors[17]!, 5));
      const moved = clusteredVectors(rng, 1, 16, 1)[0]!.map((v, i) => (i === 0 ? v + 3 : v));
      await db.write([
        q(null, { set_property: { input: { nodes: { reference: { ids: [x] } } }, name: 'emb', value: { value: { f32_array: moved } } } }),
      ]);
      live.set(x, moved);
      // Queued: ranked from its entry.
      close(search(db, moved, { k: 5, ef: 64 }), bruteForce('cosine', live, moved, 5));
      // Published into the next segment: ranked from its new copy, not the one kept before.
      await built(db);
      for (let i = 0; i < 2; i++) close(search(db, moved, { k: 5, ef: 64 }), bruteForce('cosine', live, moved, 5));
      close(search(db, vectors[17]!, { k: 5, ef: 64 }), bruteForce('cosine', live, vectors[17]!, 5));
    } finally {
      await db.close();
    }
  } finally {
    dir.remove();
  }
});
