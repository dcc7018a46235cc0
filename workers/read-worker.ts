/**
 * Read worker thread (Piscina). Plumbing only: opens the shared LMDB environment once and
 * answers each task's requests through the query pipeline (src/database.ts): reads run
 * here, each on a fresh snapshot (Store.read renews it); writes come back as plans for the
 * writer thread. Requests arrive as raw bodies and answers leave as response bytes
 * (src/protocol/frames.ts), so the main thread does no per-request parsing.
 */
import { workerData } from 'node:worker_threads';
import { answerQuery, runRead } from '../src/database.js';
import { encodeMessage, toPlanMessage } from '../src/protocol/codec.js';
import { decodeRequests, encodeAnswers } from '../src/protocol/frames.js';
import type { WorkerSettings } from '../src/protocol/messages.js';
import { fromOptionFlags } from '../src/core/request-options.js';
import { openStore } from '../src/store/index.js';

const settings = workerData as WorkerSettings;
const store = await openStore({ path: settings.dataDir, readOnly: true });
const exec = { timeoutMs: settings.queryTimeoutMs };
const read = (plan: Parameters<typeof runRead>[1]) => runRead(store, plan, exec);

export default function runReadTask(bytes: Uint8Array): Uint8Array {
  const answers = decodeRequests(bytes).map(({ flags, body }) => {
    const answer = answerQuery(body, fromOptionFlags(flags), settings.mode === 'reader', read);
    return answer.kind === 'done'
      ? { kind: 'response' as const, status: answer.status, text: answer.body }
      : { kind: 'write' as const, awaitDurable: answer.awaitDurable, plan: encodeMessage(toPlanMessage(answer.plan)) };
  });
  return encodeAnswers(answers);
}
