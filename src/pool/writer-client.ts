/**
 * The main thread's side of the single writer thread: sends write plans in arrival order
 * and matches replies by id. If the writer thread dies, pending writes fail with
 * internal_error and the server reports not ready.
 */
import { Worker } from 'node:worker_threads';
import type { QueryPlan } from '../plan/batch.js';
import { decodeMessage, encodeMessage, toPlanMessage } from '../protocol/codec.js';
import type { Reply, WriterEvent, WriterRequest } from '../protocol/messages.js';

export class WriterClient {
  private readonly worker: Worker;
  private readonly pending = new Map<number, (reply: Reply) => void>();
  private nextId = 1;
  private alive = true;
  readonly ready: Promise<void>;
  private closed: (() => void) | null = null;

  constructor(workerFile: URL, dataDir: string) {
    this.worker = new Worker(workerFile, { workerData: { dataDir } });
    this.ready = new Promise((resolve, reject) => {
      this.worker.on('message', (bytes: Uint8Array) => {
        const event = decodeMessage<WriterEvent>(bytes);
        if (event.kind === 'ready') resolve();
        else if (event.kind === 'failed') reject(new Error(`${event.error.error}: ${event.error.msg}`));
        else if (event.kind === 'closed') this.closed?.();
        else {
          this.pending.get(event.id)?.(event.reply);
          this.pending.delete(event.id);
        }
      });
      this.worker.on('error', (err) => {
        this.fail(`the writer thread failed: ${err.message}`);
        reject(err);
      });
      this.worker.on('exit', () => this.fail('the writer thread exited'));
    });
  }

  get isAlive(): boolean {
    return this.alive;
  }

  write(plan: QueryPlan, awaitDurable: boolean): Promise<Reply> {
    if (!this.alive) return Promise.resolve({ ok: false, error: { error: 'internal_error', msg: 'the writer thread is not running' } });
    const id = this.nextId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      const request: WriterRequest = { kind: 'write', id, plan: toPlanMessage(plan), awaitDurable };
      this.worker.postMessage(encodeMessage(request));
    });
  }

  private fail(msg: string): void {
    this.alive = false;
    for (const resolve of this.pending.values()) resolve({ ok: false, error: { error: 'internal_error', msg } });
    this.pending.clear();
  }

  /** Lets queued writes finish, closes the database, then ends the thread. */
  async close(): Promise<void> {
    if (!this.alive) return;
    await new Promise<void>((resolve) => {
      this.closed = resolve;
      this.worker.postMessage(encodeMessage({ kind: 'close' } satisfies WriterRequest));
      setTimeout(resolve, 5000).unref();
    });
    await this.worker.terminate();
  }
}
