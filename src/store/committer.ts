/**
 * Runs write batches in child transactions of lmdb-js's asynchronous commits and decides
 * when each is answered (commit-watch.ts): a plain batch when its commit is visible, a
 * durable one when it is flushed to disk.
 *
 * A commit can fail as a whole (a full disk, an I/O error): lmdb-js groups the batches
 * started in one event turn into one commit, so every batch of it fails, including ones
 * that were not to blame. Nothing of a failed commit is kept, so each of its batches is
 * tried once more on its own, and from then on batches commit one at a time until one
 * succeeds: the batch that does not fit fails alone with a storage_error, the others
 * commit. Caches that may hold what the failed commit wrote are dropped first.
 */
import type { RootDatabase } from 'lmdb';
import { GraphError, messageOf } from '../core/errors.js';
import { CommitWatch } from './commit-watch.js';
import { META, type MetaDb } from './layout.js';
import { isStorageFailure, storageFailure } from './storage-failure.js';

/**
 * The change log's part in a batch (change-log.ts): recording starts before the batch
 * runs, and `end`, inside the same child transaction, gives its entry the next LSN.
 */
export interface BatchLog {
  begin(): void;
  /** The batch's LSN (the current one when it changed nothing). */
  end(): number;
  /** The batch threw: what it recorded is dropped with its transaction. */
  abort(): void;
  /** A logged batch is committed (visible): `lsn` is its LSN. */
  committed(lsn: number): void;
}

/** A batch's answer and the LSN at which it is visible. */
export interface Committed<T> {
  readonly value: T;
  readonly lsn: number;
}

/** What a batch leaves once its function returned inside the transaction. */
export interface BatchOutcome<T> {
  readonly value: T;
  /** Called once the batch is known committed (e.g. to share the names it created). */
  readonly onCommit: () => void;
}

interface Attempt<T> {
  /** Settles with the batch's answer: visible (or flushed, when durable), or its error. */
  readonly answer: Promise<T>;
  /** Settles once lmdb-js finished the commit, flush included, whatever the outcome. */
  readonly finished: Promise<void>;
}

type CommitFailure = Error & { commitError?: Promise<unknown> };

/** How write batches were answered: diagnostics, and the test that answers come early. */
export interface CommitStats {
  /** Plain batches answered when their commit became visible, before its flush. */
  answeredAtVisibility: number;
  /** Batches answered by their transaction promise, after the flush. */
  answeredAtFlush: number;
  /** Batches whose commit failed (each was then tried once more on its own). */
  commitFailures: number;
}

export class Committer {
  readonly stats: CommitStats = { answeredAtVisibility: 0, answeredAtFlush: 0, commitFailures: 0 };
  private seq: number;
  private readonly watch: CommitWatch;
  /** Set by a failed commit: batches then commit one at a time until one succeeds. */
  private oneAtATime = false;
  private queueTail: Promise<void> = Promise.resolve();

  constructor(
    private readonly env: RootDatabase,
    private readonly meta: MetaDb,
    private readonly path: string,
    /** Drops what the writer caches between batches (called after a failed commit). */
    private readonly dropCaches: () => void,
    /** Reports what operators must hear (StoreOptions.log). */
    private readonly log: (message: string) => void,
    /** Records each batch in the change log (none: batches are not logged, e.g. a replica's). */
    private readonly batchLog: BatchLog | null = null,
  ) {
    this.seq = (meta.get(META.commitSeq) as number | undefined) ?? 0;
    this.watch = new CommitWatch(env, meta, this.seq);
  }

  close(): void {
    this.watch.close();
  }

  /** Whether plain batches are answered at visibility (false: after the flush). */
  get answersAtVisibility(): boolean {
    return this.watch.hooked;
  }

  /**
   * Runs a batch; `logged` false for the log's own upkeep (trimming published rows), which
   * is this copy's local state and writes through no logged handle.
   */
  submit<T>(run: () => BatchOutcome<T>, durable: boolean, logged = true): Promise<Committed<T>> {
    if (this.oneAtATime) return this.alone(run, durable, logged);
    const attempt = this.attempt(run, durable, logged);
    return attempt.answer.catch((err: unknown) => {
      if (!(err instanceof RetryAlone)) throw err;
      return this.alone(run, durable, logged);
    });
  }

  /** Queues a batch to commit by itself, after every batch queued before it has finished. */
  private alone<T>(run: () => BatchOutcome<T>, durable: boolean, logged: boolean): Promise<Committed<T>> {
    const start = this.queueTail.then(() => this.attempt(run, durable, logged, true));
    this.queueTail = start.then(
      (a) => a.finished,
      () => undefined,
    );
    return start.then((a) => a.answer);
  }

  private attempt<T>(run: () => BatchOutcome<T>, durable: boolean, logged: boolean, last = false): Attempt<Committed<T>> {
    const seq = ++this.seq;
    let outcome: BatchOutcome<T> | undefined;
    let lsn = 0;
    let settled = false;
    let visible = false;
    let commitFailed = false;
    let resolveAnswer!: (value: Committed<T>) => void;
    let rejectAnswer!: (err: unknown) => void;
    const answer = new Promise<Committed<T>>((resolve, reject) => {
      resolveAnswer = resolve;
      rejectAnswer = reject;
    });
    const succeed = (atFlush: boolean) => {
      if (settled || commitFailed) return;
      settled = true;
      if (atFlush) this.stats.answeredAtFlush++;
      else this.stats.answeredAtVisibility++;
      outcome!.onCommit();
      if (logged && lsn > 0) this.batchLog?.committed(lsn);
      resolveAnswer({ value: outcome!.value, lsn });
    };
    const fail = (err: unknown) => {
      if (settled) return;
      settled = true;
      this.watch.forget(seq);
      rejectAnswer(err);
    };

    // The callback runs later, inside the commit lmdb-js is building; a throw aborts only
    // this child transaction, and the batch is answered with its error at once.
    const committed = this.env.childTransaction(() => {
      const log = logged ? this.batchLog : null;
      try {
        log?.begin();
        const ran = run();
        if (log !== null) lsn = log.end();
        outcome = ran;
        this.meta.putSync(META.commitSeq, seq);
        return true;
      } catch (err) {
        log?.abort();
        fail(isStorageFailure(err) ? storageFailure(err, this.path) : err);
        throw err;
      }
    });
    void this.watch.visibleAt(seq).then(() => {
      visible = true;
      if (!durable && outcome !== undefined) succeed(false);
    });
    const finished = committed.then(
      () => {
        this.watch.reached(seq);
        this.oneAtATime = false;
        succeed(true);
      },
      async (err: CommitFailure) => {
        if (settled && !visible) return; // the batch's own function threw: already answered
        // Before any await: a later commit's visibility must not answer this batch.
        commitFailed = !visible;
        if (commitFailed) this.watch.forget(seq);
        const cause = await commitCause(err);
        if (visible) {
          // Committed and seen by readers, but the flush failed: the data may not be on disk.
          this.log(`a commit to ${this.path} is visible but could not be flushed to disk: ${messageOf(cause)}`);
          fail(
            new GraphError('storage_error', `the write was committed but could not be flushed to disk in ${this.path}: ${describe(cause)}`),
          );
          return;
        }
        this.oneAtATime = true;
        this.stats.commitFailures++;
        this.dropCaches();
        fail(last ? storageFailure(cause, this.path) : new RetryAlone());
      },
    );
    return { answer, finished };
  }
}

/** A batch of a failed commit that may succeed alone. */
class RetryAlone extends Error {}

/** How long to wait for lmdb-js to name the cause of a failed commit. */
const CAUSE_WAIT_MS = 1000;

/**
 * lmdb-js rejects every batch of a failed commit with one error whose cause is a promise,
 * rejected when its write thread reports the status; should that never come, the batch is
 * still answered (with the less precise error).
 */
async function commitCause(err: CommitFailure): Promise<unknown> {
  if (err.commitError === undefined) return err;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<unknown>((resolve) => (timer = setTimeout(() => resolve(err), CAUSE_WAIT_MS)));
  try {
    return await Promise.race([err.commitError.then(() => err), late]);
  } catch (cause) {
    return cause;
  } finally {
    clearTimeout(timer);
  }
}

function describe(err: unknown): string {
  return err instanceof Error ? err.message.split(':')[0]! : String(err);
}
