/**
 * The main thread's side of the single writer thread: sends write plans in arrival order
 * and matches replies by id. If the writer thread dies (a bug, never a client mistake),
 * its pending writes fail with internal_error (the LMDB transaction of an unfinished batch
 * is aborted with the thread, so nothing half-applied remains), the server reports not
 * ready, and a new writer thread is started.
 *
 * What the writer thread measures of each batch comes back on its reply (the time from the
 * plan reaching the thread to its answer), so watching the writer costs no extra message.
 */
import { Worker } from 'node:worker_threads';
import { consoleLog, type LogSink } from '../core/log-sink.js';
import { decodeMessage } from '../protocol/codec.js';
import type { Reply, WorkerSettings, WriterEvent, WriterRequest } from '../protocol/messages.js';
import { messageOf } from '../core/errors.js';

/**
 * One write batch answered, as the metrics see it: `seconds` from the plan reaching the
 * writer thread to its answer, undefined for a batch lost with a thread that died.
 */
export type BatchObserver = (reply: Reply, awaitDurable: boolean, seconds: number | undefined) => void;

export interface WriterClientOptions {
  /** Where the thread's deaths, restarts and storage diagnostics are reported (default: stderr). */
  readonly log?: LogSink;
  /** Called for every batch the writer thread answers. */
  readonly onBatch?: BatchObserver;
}

/** What the writer client has seen so far (the server's metrics read these at each scrape). */
export interface WriterCounters {
  /** Write batches sent to the writer thread and not answered yet. */
  readonly queued: number;
  /** Whether a writer thread is running and has opened the database. */
  readonly alive: boolean;
  /** Writer threads that ended while the server was running. */
  readonly deaths: number;
  /** Replacement threads started after a death. */
  readonly restarts: number;
  /** The change log's last LSN the writer thread committed and published (a writer with --nats; 0 otherwise). */
  readonly committedLsn: number;
  readonly publishedLsn: number;
}

interface Pending {
  readonly resolve: (reply: Reply) => void;
  readonly awaitDurable: boolean;
}

/**
 * Pause before a replacement thread starts, so a thread that dies at once cannot spin;
 * doubled after each replacement that fails to open, up to the longest pause.
 */
const RESTART_DELAY_MS = 200;
const LONGEST_RESTART_DELAY_MS = 10_000;

export class WriterClient {
  private worker!: Worker;
  private readonly pending = new Map<number, Pending>();
  /** Snapshot requests waiting for the writer thread: their outcome (null, or why they failed). */
  private readonly snapshots = new Map<number, (error: string | null) => void>();
  private nextId = 1;
  private alive = false;
  private closing = false;
  /** Resolves when the first writer thread has opened the database. */
  readonly ready: Promise<void>;
  private closed: (() => void) | null = null;
  /** Replacement threads started after a death, for health and tests. */
  restarts = 0;
  /** Replacements in a row that failed to open the database (the backoff's exponent). */
  private failedReplacements = 0;
  /** Threads that ended while the client was open. */
  private deaths = 0;
  /** The writer thread's last report of the change log's position (WriterEvent 'position'). */
  private position = { committed: 0, published: 0 };
  private readonly log: LogSink;
  private readonly onBatch: BatchObserver | undefined;

  constructor(
    private readonly workerFile: URL,
    private readonly settings: WorkerSettings,
    options: WriterClientOptions = {},
  ) {
    this.log = options.log ?? consoleLog;
    this.onBatch = options.onBatch;
    this.ready = this.spawn();
  }

  /**
   * Starts a writer thread; resolves when it has opened the database, rejects with why it
   * could not (one line naming the folder). A first thread that fails is not replaced:
   * the server cannot start. A replacement that fails is retried after a pause.
   */
  private spawn(): Promise<void> {
    const worker = new Worker(this.workerFile, { workerData: this.settings });
    this.worker = worker;
    let opened = false;
    return new Promise((resolve, reject) => {
      worker.on('message', (bytes: Uint8Array) => {
        const event = decodeMessage<WriterEvent>(bytes);
        if (event.kind === 'ready') {
          opened = true;
          this.alive = true;
          this.failedReplacements = 0;
          resolve();
        } else if (event.kind === 'failed') {
          reject(new Error(event.message));
        } else if (event.kind === 'closed') {
          this.closed?.();
        } else if (event.kind === 'snapshot') {
          const waiting = this.snapshots.get(event.id);
          this.snapshots.delete(event.id);
          waiting?.(event.error);
        } else if (event.kind === 'log') {
          this.log.error({ thread: 'writer' }, event.message);
        } else if (event.kind === 'position') {
          this.position = { committed: event.committed, published: event.published };
        } else {
          const pending = this.pending.get(event.id);
          if (pending === undefined) return;
          this.pending.delete(event.id);
          this.onBatch?.(event.reply, pending.awaitDurable, event.seconds);
          pending.resolve(event.reply);
        }
      });
      worker.on('error', (err) => {
        // Before the database opened, this is the start-up failure the promise reports.
        if (opened) this.log.error({ err }, 'the writer thread failed');
        else reject(err);
      });
      worker.on('exit', (code) => {
        this.alive = false;
        if (!this.closing) this.deaths++;
        this.failPending('the writer thread stopped before answering: the outcome of this write is unknown, read back before retrying');
        if (!opened)
          reject(new Error(`the writer thread stopped while opening the database in ${this.settings.dataDir} (exit code ${code})`));
        if (this.closing || (!opened && this.restarts === 0)) return;
        if (!opened) this.failedReplacements++;
        const delay = Math.min(LONGEST_RESTART_DELAY_MS, RESTART_DELAY_MS * 2 ** this.failedReplacements);
        this.log.error({ code, restartInMs: delay }, 'the writer thread stopped; a new one starts shortly');
        setTimeout(() => {
          if (this.closing) return;
          this.restarts++;
          this.spawn().then(
            () => this.log.info({ restarts: this.restarts }, 'a replacement writer thread opened the database'),
            (err: unknown) => this.log.error({ err: messageOf(err) }, 'a replacement writer thread failed to start'),
          );
        }, delay).unref();
      });
    });
  }

  get isAlive(): boolean {
    return this.alive;
  }

  counters(): WriterCounters {
    const { committed, published } = this.position;
    return {
      queued: this.pending.size,
      alive: this.alive,
      deaths: this.deaths,
      restarts: this.restarts,
      committedLsn: committed,
      publishedLsn: published,
    };
  }

  /** Runs a write plan (a msgpack PlanMessage, as a read worker encoded it). */
  write(plan: Uint8Array, awaitDurable: boolean): Promise<Reply> {
    if (!this.alive)
      return Promise.resolve({ ok: false, error: { error: 'not_ready', msg: 'the writer thread is starting; retry shortly' } });
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, { resolve, awaitDurable });
      this.worker.postMessage({ kind: 'write', id, plan, awaitDurable } satisfies WriterRequest);
    });
  }

  /** Asks the writer thread for a copy of the database in `path` (flushed before it resolves). */
  snapshot(path: string): Promise<void> {
    if (!this.alive) return Promise.reject(new Error('the writer thread is starting; retry shortly'));
    const id = this.nextId++;
    return new Promise((resolve, reject) => {
      this.snapshots.set(id, (error) => (error === null ? resolve() : reject(new Error(error))));
      this.worker.postMessage({ kind: 'snapshot', id, path } satisfies WriterRequest);
    });
  }

  private failPending(msg: string): void {
    for (const done of this.snapshots.values()) done(msg);
    this.snapshots.clear();
    for (const { resolve, awaitDurable } of this.pending.values()) {
      const reply: Reply = { ok: false, error: { error: 'internal_error', msg } };
      this.onBatch?.(reply, awaitDurable, undefined);
      resolve(reply);
    }
    this.pending.clear();
  }

  /** Lets queued writes finish, closes the database, then ends the thread. */
  async close(): Promise<void> {
    this.closing = true;
    if (!this.alive) {
      await this.worker.terminate();
      return;
    }
    await new Promise<void>((resolve) => {
      this.closed = resolve;
      this.worker.postMessage({ kind: 'close' } satisfies WriterRequest);
      setTimeout(resolve, 5000).unref();
    });
    await this.worker.terminate();
  }
}
