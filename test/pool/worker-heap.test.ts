/**
 * Worker threads start with a larger old generation (src/pool/worker-heap.ts): the
 * server's service sets V8's `--initial-old-space-size` to INITIAL_OLD_SPACE_MB before its
 * first worker starts. What the setting buys (no full collection every 30-60 ms in a writer
 * under small batches, 12-21% more one-node write batches a second) is measured in
 * docs/benchmarks.md, "The writer's heap", not timed here: the count of full collections
 * it avoids depends on how fast the machine runs the load.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('../fixtures/heap-flag.js', import.meta.url));

test('constructing the threaded service sets the initial old generation of the worker threads it starts', () => {
  const out = execFileSync(process.execPath, [CHILD], { encoding: 'utf8', timeout: 60_000 });
  const tags = JSON.parse(out.trim()) as { start: number; service: number; byHand: number; reset: number };
  assert.notEqual(tags.service, tags.start, 'the service left V8 flags as they were');
  assert.equal(tags.byHand, tags.service, 'the service set another flag or value than --initial-old-space-size=INITIAL_OLD_SPACE_MB');
  assert.equal(tags.reset, tags.start, 'the flag hash does not return to the start: the comparison proves nothing');
});
