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
import { answerRequest, type Answerer, type NamedQuery } from '../src/database.js';
import { decodeTask, encodeAnswers } from '../src/protocol/frames.js';
import type { ReadTask, WorkerSettings, WorkerStats } from '../src/protocol/messages.js';
import { openStore } from '../src/store/index.js';
import { decodeMessage } from '../src/protocol/codec.js';

const settings = workerData as WorkerSettings;
const answerer: Answerer = {
  store: await openStore({ path: settings.dataDir, readOnly: true }),
  readerMode: settings.mode === 'reader',
  timeoutMs: settings.queryTimeoutMs,
  named: settings.namedQueries === undefined ? [] : decodeMessage<NamedQuery[]>(settings.namedQueries),
  snapshotLsn: settings.snapshotLsn === true,
};

function stats(): WorkerStats {
  const resources = process.getActiveResourcesInfo();
  return {
    timers: resources.filter((r) => r === 'Timeout').length,
    heapUsedBytes: process.memoryUsage().heapUsed,
  };
}

export default function runReadTask(task: ReadTask): Uint8Array | WorkerStats {
  if (task === 'stats') return stats();
  const { sliceMs, requests } = decodeTask(task);
  return encodeAnswers(requests.map((request) => answerRequest(answerer, request, sliceMs)));
}
