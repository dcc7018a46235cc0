/**
 * The pool of read workers (the only importer of piscina). A Piscina task costs ~65 µs of
 * dispatch on this machine, far more than an LMDB read, so every read request that
 * arrives in one event-loop turn is sent together: the queue is flushed on setImmediate,
 * split evenly over the threads.
 */
import { Piscina } from 'piscina';
import { GraphError } from '../errors.js';
import type { QueryPlan } from '../plan/batch.js';
import { decodeMessage, encodeMessage, toPlanMessage } from '../protocol/codec.js';
import type { PlanMessage, Reply, ReadTaskResult, WorkerSettings } from '../protocol/messages.js';

interface Pending {
  readonly plan: PlanMessage;
  readonly resolve: (reply: Reply) => void;
}

/** Requests per task at most: bounds one task's latency under a burst. */
const MAX_TASK_SIZE = 256;

export class ReadPool {
  private readonly piscina: Piscina;
  private queue: Pending[] = [];
  private scheduled = false;

  constructor(workerFile: URL, workerData: WorkerSettings, readonly threads: number) {
    this.piscina = new Piscina({
      filename: workerFile.href,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Number.POSITIVE_INFINITY,
      workerData,
    });
  }

  /** Resolves when every worker thread has opened the database. */
  async warm(): Promise<void> {
    await Promise.all(Array.from({ length: this.threads }, () => this.runTask([])));
  }

  read(plan: QueryPlan): Promise<Reply> {
    return new Promise((resolve) => {
      this.queue.push({ plan: toPlanMessage(plan), resolve });
      if (!this.scheduled) {
        this.scheduled = true;
        setImmediate(() => this.flush());
      }
    });
  }

  private flush(): void {
    this.scheduled = false;
    const queue = this.queue;
    this.queue = [];
    const size = Math.min(MAX_TASK_SIZE, Math.ceil(queue.length / this.threads));
    for (let i = 0; i < queue.length; i += size) {
      const chunk = queue.slice(i, i + size);
      this.runTask(chunk.map((p) => p.plan)).then(
        (result) => chunk.forEach((p, j) => p.resolve(result.replies[j] ?? lost())),
        (err: unknown) => chunk.forEach((p) => p.resolve(failure(err))),
      );
    }
  }

  private async runTask(plans: PlanMessage[]): Promise<ReadTaskResult> {
    const bytes: Uint8Array = await this.piscina.run(encodeMessage({ plans }));
    return decodeMessage<ReadTaskResult>(bytes);
  }

  close(): Promise<void> {
    return this.piscina.destroy();
  }
}

function lost(): Reply {
  return { ok: false, error: { error: 'internal_error', msg: 'a read worker returned too few replies' } };
}

function failure(err: unknown): Reply {
  const msg = err instanceof GraphError ? err.msg : 'a read worker failed';
  return { ok: false, error: { error: err instanceof GraphError ? err.code : 'internal_error', msg } };
}
