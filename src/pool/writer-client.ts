/**
 * The main thread's side of the single writer thread: sends write plans in arrival order
 * and matches replies by id. If the writer thread dies (a bug, never a client mistake),
 * its pending writes fail with internal_error (the LMDB transaction of an unfinished batch
 * is aborted with the thread, so nothing half-applied remains), the server reports not
 * ready, and a new writer thread is started.
 */
import { Worker } from 'node:worker_threads';
import { decodeMessage } from '../protocol/codec.js';
import type { Reply, WorkerSettings, WriterEvent, WriterRequest } from '../protocol/messages.js';

/**
 * Pause before a replacement thread starts, so a thread that dies at once cannot spin;
 * doubled after each replacement that fails to open, up to the longest pause.
 */
const RESTART_DELAY_MS = 200;
const LONGEST_RESTART_DELAY_MS = 10_000;

export class WriterClient {
  private worker!: Worker;
  private readonly pending = new Map<number, (reply: Reply) => void>();
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

  constructor(
    private readonly workerFile: URL,
    private readonly settings: WorkerSettings,
  ) {
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
        } else {
          this.pending.get(event.id)?.(event.reply);
          this.pending.delete(event.id);
        }
      });
      worker.on('error', (err) => {
        // Before the database opened, this is the start-up failure the promise reports.
        if (opened) console.error('trellis: the writer thread failed:', err);
        else reject(err);
      });
      worker.on('exit', (code) => {
        this.alive = false;
        this.failPending('the writer thread stopped before answering: the outcome of this write is unknown, read back before retrying');
        if (!opened)
          reject(new Error(`the writer thread stopped while opening the database in ${this.settings.dataDir} (exit code ${code})`));
        if (this.closing || (!opened && this.restarts === 0)) return;
        if (!opened) this.failedReplacements++;
        const delay = Math.min(LONGEST_RESTART_DELAY_MS, RESTART_DELAY_MS * 2 ** this.failedReplacements);
        setTimeout(() => {
          if (this.closing) return;
          this.restarts++;
          this.spawn().catch((err: unknown) =>
            console.error(`trellis: a replacement writer thread failed to start: ${err instanceof Error ? err.message : String(err)}`),
          );
        }, delay).unref();
      });
    });
  }

  get isAlive(): boolean {
    return this.alive;
  }

  /** Runs a write plan (a msgpack PlanMessage, as a read worker encoded it). */
  write(plan: Uint8Array, awaitDurable: boolean): Promise<Reply> {
    if (!this.alive)
      return Promise.resolve({ ok: false, error: { error: 'not_ready', msg: 'the writer thread is starting; retry shortly' } });
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      this.worker.postMessage({ kind: 'write', id, plan, awaitDurable } satisfies WriterRequest);
    });
  }

  private failPending(msg: string): void {
    for (const resolve of this.pending.values()) resolve({ ok: false, error: { error: 'internal_error', msg } });
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
