/**
 * Read worker thread (Piscina). Plumbing only: opens the shared LMDB environment once and
 * answers each task's requests through the query pipeline (src/database.ts), /v2/query's
 * or Cypher's as the request's route says (Cypher statements are compiled here and kept in
 * this thread's plan cache, src/cypher/plan-cache.ts): reads run here, each on a fresh
 * snapshot (Store.read renews it); writes come back as plans for the writer thread.
 * Requests arrive as raw bodies and answers leave as response bytes
 * (src/protocol/frames.ts), so the main thread does no per-request parsing.
 *
 * A task may carry a time slice: a read that outruns it is answered `preempted` and the
 * pool runs it again in the lane for long queries, so the reads after it in this task are
 * not held up. The pool can also ask for this thread's statistics (a `stats` task).
 */
import { workerData } from 'node:worker_threads';
import { answerRoute, runRead, type QueryAnswer } from '../src/database.js';
import { encodeMessage, toPlanMessage } from '../src/protocol/codec.js';
import { decodeTask, encodeAnswers, type RequestFrame } from '../src/protocol/frames.js';
import type { WorkerSettings, WorkerStats } from '../src/protocol/messages.js';
import { fromOptionFlags } from '../src/core/request-options.js';
import type { QueryPlan } from '../src/plan/batch.js';
import { openStore } from '../src/store/index.js';

const settings = workerData as WorkerSettings;
const store = await openStore({ path: settings.dataDir, readOnly: true });
const readerMode = settings.mode === 'reader';

function stats(): WorkerStats {
  const resources = process.getActiveResourcesInfo();
  return {
    timers: resources.filter((r) => r === 'Timeout').length,
    heapUsedBytes: process.memoryUsage().heapUsed,
  };
}

export default function runReadTask(task: Uint8Array | 'stats'): Uint8Array | WorkerStats {
  if (task === 'stats') return stats();
  const { sliceMs, requests } = decodeTask(task);
  const answers = requests.map((request) => {
    const start = performance.now();
    const { spentMs } = request;
    const answer = answerRequest(request, { timeoutMs: settings.queryTimeoutMs, spentMs, sliceMs });
    switch (answer.kind) {
      case 'done':
        return { kind: 'response' as const, status: answer.status, text: answer.body };
      case 'preempted':
        return { kind: 'preempted' as const, spentMs: spentMs + (performance.now() - start) };
      default:
        return { kind: 'write' as const, awaitDurable: answer.awaitDurable, plan: encodeMessage(toPlanMessage(answer.plan)) };
    }
  });
  return encodeAnswers(answers);
}

/** One request through its route's pipeline. */
function answerRequest({ flags, paramsAt, route, body }: RequestFrame, exec: Parameters<typeof runRead>[2]): QueryAnswer {
  const options = fromOptionFlags(flags);
  const read = (plan: QueryPlan) => runRead(store, plan, exec);
  return answerRoute(route ?? 'query', body, options, readerMode, read, paramsAt);
}
