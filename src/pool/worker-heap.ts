/**
 * The V8 heap the server's worker threads start with (docs/architecture.md, "Threads").
 *
 * A thread that writes small batches keeps a small live heap (about 13 MB for the writer)
 * while it allocates fast: V8 then sizes the old generation's limit from that small heap,
 * close enough to the young generation's capacity that it starts incremental marking
 * almost as soon as a full collection has ended. The writer thread ran a full collection
 * every 30 to 60 ms, each about 2 ms on the thread and 15 ms of marking on V8's helper
 * threads: 40 to 60 µs of CPU per one-node batch, more than the batch's own work (measured
 * with --trace-gc and --trace-incremental-marking; docs/benchmarks.md, "The writer's
 * heap"). Starting the old generation at INITIAL_OLD_SPACE_MB moves the limit away from
 * that edge: no full collection in 40 s of the same load.
 *
 * Node takes no V8 heap flag per worker other than its maximums (resourceLimits), so the
 * flag is set for the process before the first worker starts: every isolate created
 * afterwards (the writer, the read workers, the vector builder) starts with it; the main
 * thread's heap, made before, keeps V8's default. The cost is memory: each such thread may
 * hold up to this much garbage before its first full collection.
 */
import { setFlagsFromString } from 'node:v8';

/** The old generation's initial size of each worker thread, MB (32 did not help; 64 and 128 did alike). */
export const INITIAL_OLD_SPACE_MB = 64;

let configured = false;

/** Gives every worker thread started from now on the initial old generation above (once per process). */
export function configureWorkerHeaps(): void {
  if (configured) return;
  configured = true;
  setFlagsFromString(`--initial-old-space-size=${INITIAL_OLD_SPACE_MB}`);
}
