/**
 * The single writer thread. Plumbing only: owns the read-write LMDB handle, runs each
 * write plan in its own child transaction (Store.write groups the ones of one turn into
 * one commit) and answers after commit, or after the flush for await-durable writes.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runWrite } from '../src/database.js';
import { toErrorBody } from '../src/errors.js';
import { decodeMessage, encodeMessage, fromPlanMessage } from '../src/protocol/codec.js';
import type { Reply, WriterEvent, WriterRequest } from '../src/protocol/messages.js';
import { openStore } from '../src/store/index.js';
import type { Store } from '../src/store/types.js';

const port = parentPort!;
const send = (event: WriterEvent) => port.postMessage(encodeMessage(event));

const { dataDir, queryTimeoutMs } = workerData as { dataDir: string; queryTimeoutMs: number };
const exec = { timeoutMs: queryTimeoutMs };
let store: Store;
try {
  store = await openStore({ path: dataDir });
  send({ kind: 'ready' });
} catch (err) {
  send({ kind: 'failed', error: toErrorBody(err) });
  throw err;
}

let inFlight = Promise.resolve();

port.on('message', ({ id, bytes }: { id: number; bytes: Uint8Array }) => {
  let request: WriterRequest;
  try {
    request = decodeMessage<WriterRequest>(bytes);
  } catch (err) {
    // A message this thread cannot read is a bug on our side: that one request fails
    // with internal_error, the thread and every other write carry on.
    send({ kind: 'reply', id, reply: { ok: false, error: toErrorBody(err) } });
    return;
  }
  if (request.kind === 'close') {
    void inFlight.then(() => store.close()).then(() => send({ kind: 'closed' }));
    return;
  }
  const done = handleWrite(id, request.plan, request.awaitDurable);
  inFlight = inFlight.then(() => done);
});

async function handleWrite(id: number, message: Extract<WriterRequest, { kind: 'write' }>['plan'], awaitDurable: boolean): Promise<void> {
  let reply: Reply;
  try {
    const body = await runWrite(store, fromPlanMessage(message), exec);
    if (awaitDurable) await store.flushed();
    reply = { ok: true, body };
  } catch (err) {
    reply = { ok: false, error: toErrorBody(err) };
  }
  send({ kind: 'reply', id, reply });
}
