/**
 * The single writer thread. Plumbing only: owns the read-write LMDB handle, runs each
 * write plan in its own child transaction (Store.write groups the ones of one turn into
 * one commit) and answers after commit, or after the flush for await-durable writes.
 * Each answer carries the time from the plan's arrival to it (the commit latency the
 * server's metrics report); what the store logs goes to the main thread's logger.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { runWriteLogged } from '../src/database.js';
import { messageOf, toErrorBody } from '../src/core/errors.js';
import { decodeMessage, encodeMessage, fromPlanMessage } from '../src/protocol/codec.js';
import type { PlanMessage, Reply, WorkerSettings, WriterEvent, WriterRequest } from '../src/protocol/messages.js';
import { openStore, type Store } from '../src/store/index.js';
import { Publisher } from '../src/replication/publisher.js';

const port = parentPort!;
const send = (event: WriterEvent) => port.postMessage(encodeMessage(event));

const settings = workerData as WorkerSettings;
const exec = { timeoutMs: settings.queryTimeoutMs };
let store: Store;
let publisher: Publisher | null = null;
/** Why this writer takes no more writes (its stream holds another history), or null. */
let fenced: string | null = null;
/** The last LSN committed (background steps included), reported with the published one. */
let committed = 0;
/** How often the change log's position is reported to the main thread while it moves (its metrics). */
const POSITION_MS = 250;
try {
  store = await openStore({
    path: settings.dataDir,
    ...(settings.writerLock === undefined ? {} : { writerLock: settings.writerLock }),
    log: (message) => send({ kind: 'log', message }),
    keepLog: settings.replication !== undefined,
    // Without a publisher the change log costs nothing (docs/replication.md, "Cost").
    unlogged: settings.replication === undefined,
    onLogged: (lsn) => {
      committed = lsn;
      publisher?.notify();
    },
  });
  if (settings.replication !== undefined) {
    publisher = await Publisher.start({
      ...settings.replication,
      store,
      log: (message) => send({ kind: 'log', message }),
      onFenced: (reason) => (fenced = reason),
    }).catch(async (err: unknown) => {
      await store.close();
      throw err;
    });
  }
  send({ kind: 'ready' });
  if (publisher !== null) reportPosition(publisher);
} catch (err) {
  send({ kind: 'failed', message: messageOf(err) });
  throw err;
}

let inFlight = Promise.resolve();
let dying = false;

/**
 * A bug that escapes (an uncaught exception or rejection) ends this thread, but only after
 * lmdb-js has finished the commit it may have in flight: a thread torn down under a native
 * commit takes the whole process with it (lmdb-js frees the environment its write thread
 * is still committing in: SIGSEGV in mdb_txn_commit). store.close() waits for the writes;
 * then the thread exits, and the main thread answers its pending writes "outcome unknown"
 * and starts a new one. Writes that arrive meanwhile are left to that answer.
 */
function die(err: unknown): void {
  if (dying) return;
  dying = true;
  send({ kind: 'log', message: `the writer thread failed: ${messageOf(err)}` });
  store
    .close()
    .catch(() => undefined)
    .finally(() => process.exit(1));
}
process.on('uncaughtException', die);
process.on('unhandledRejection', die);

port.on('message', (request: WriterRequest) => {
  if (dying) return;
  if (request.kind === 'close') {
    void inFlight
      .then(() => publisher?.close())
      .then(() => store.close())
      .then(() => send({ kind: 'closed' }));
    return;
  }
  if (request.kind === 'snapshot') {
    const id = request.id;
    store.backup(request.path).then(
      () => send({ kind: 'snapshot', id, error: null }),
      (err: unknown) => send({ kind: 'snapshot', id, error: messageOf(err) }),
    );
    return;
  }
  const done = handleWrite(request.id, request.plan, request.awaitDurable, performance.now());
  inFlight = inFlight.then(() => done);
});

async function handleWrite(id: number, bytes: Uint8Array, awaitDurable: boolean, arrived: number): Promise<void> {
  let reply: Reply;
  if (fenced !== null) {
    send({ kind: 'reply', id, reply: { ok: false, error: { error: 'writer_fenced', msg: fenced } }, seconds: 0 });
    return;
  }
  try {
    // A plan that does not decode is a bug on our side: that request alone fails.
    const plan = fromPlanMessage(decodeMessage<PlanMessage>(bytes));
    const { value: body, lsn } = await runWriteLogged(store, plan, exec, awaitDurable);
    reply = { ok: true, body, lsn };
  } catch (err) {
    reply = { ok: false, error: toErrorBody(err) };
  }
  send({ kind: 'reply', id, reply, seconds: (performance.now() - arrived) / 1000 });
}

function reportPosition(p: Publisher): void {
  let sent = { committed: -1, published: -1 };
  const timer = setInterval(() => {
    const now = { committed, published: Math.max(0, p.publishedLsn) };
    if (now.committed === sent.committed && now.published === sent.published) return;
    sent = now;
    send({ kind: 'position', ...now });
  }, POSITION_MS);
  timer.unref();
}
