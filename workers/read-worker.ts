/**
 * Read worker thread (Piscina). Plumbing only: opens the shared LMDB environment once and
 * runs each task's plans, each on its own fresh snapshot (Store.read renews it).
 */
import { workerData } from 'node:worker_threads';
import { runRead } from '../src/database.js';
import { toErrorBody } from '../src/errors.js';
import { decodeMessage, encodeMessage, fromPlanMessage } from '../src/protocol/codec.js';
import type { Reply, ReadTask } from '../src/protocol/messages.js';
import { openStore } from '../src/store/index.js';

const { dataDir, queryTimeoutMs } = workerData as { dataDir: string; queryTimeoutMs: number };
const store = await openStore({ path: dataDir, readOnly: true });
const exec = { timeoutMs: queryTimeoutMs };

export default function runReadTask(bytes: Uint8Array): Uint8Array {
  const task = decodeMessage<ReadTask>(bytes);
  const replies: Reply[] = task.plans.map((message) => {
    try {
      return { ok: true, body: runRead(store, fromPlanMessage(message), exec) };
    } catch (err) {
      return { ok: false, error: toErrorBody(err) };
    }
  });
  return encodeMessage({ replies });
}
