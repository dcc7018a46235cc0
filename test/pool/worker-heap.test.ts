/**
 * Worker threads start with a larger old generation (src/pool/worker-heap.ts): the
 * server's service sets V8's `--initial-old-space-size` to INITIAL_OLD_SPACE_MB before it
 * makes its writer thread. What the setting buys (no full collection every 30-60 ms in a
 * writer under small batches, 12-21% more one-node write batches a second) is measured in
 * docs/benchmarks.md, "The writer's heap", not timed here: the count of full collections
 * it avoids depends on how fast the machine runs the load.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const CHILD = fileURLToPath(new URL('../fixtures/heap-flag.js', import.meta.url));

test('the writer thread is made with the initial old generation set', () => {
  const out = execFileSync(process.execPath, [CHILD], { encoding: 'utf8', timeout: 60_000 });
  const tags = JSON.parse(out.trim()) as { start: number; writer: number | null; configured: number };
  assert.notEqual(tags.writer, null, 'the service made a writer thread');
  assert.notEqual(tags.configured, tags.start, 'the flag changes the hash: the comparison can tell');
  assert.equal(
    tags.writer,
    tags.configured,
    'the flags in effect when the writer thread was made are --initial-old-space-size=INITIAL_OLD_SPACE_MB',
  );
});
