/**
 * The pool of read workers (the only importer of piscina). A Piscina task costs ~65 µs of
 * dispatch on this machine, far more than an LMDB read, so every request that arrives in
 * one event-loop turn is sent together, as raw bodies in one buffer (protocol/frames.ts):
 * the queue is flushed on setImmediate, split evenly over the threads. Workers parse,
 * validate and run reads; writes come back as plans for the writer thread.
 */
import { Piscina } from 'piscina';
import { errorJson, GraphError } from '../errors.js';
import { decodeAnswers, encodeRequests, type AnswerFrame, type RequestFrame } from '../protocol/frames.js';
import type { WorkerSettings } from '../protocol/messages.js';

interface Pending {
  readonly request: RequestFrame;
  readonly resolve: (answer: AnswerFrame) => void;
}

/** Requests per task at most: bounds one task's latency under a burst. */
const MAX_TASK_SIZE = 256;

const encoder = new TextEncoder();

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

  /** Answers one /v2/query body (`flags`: request-options.ts optionFlags). */
  submit(body: Uint8Array, flags: number): Promise<AnswerFrame> {
    return new Promise((resolve) => {
      this.queue.push({ request: { flags, body }, resolve });
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
      this.runTask(chunk.map((p) => p.request)).then(
        (answers) => chunk.forEach((p, j) => p.resolve(answers[j] ?? failure(new Error('a read worker returned too few answers')))),
        (err: unknown) => chunk.forEach((p) => p.resolve(failure(err))),
      );
    }
  }

  private async runTask(requests: RequestFrame[]): Promise<AnswerFrame[]> {
    const task = encodeRequests(requests);
    const bytes: Uint8Array = await this.piscina.run(task, { transferList: [task.buffer as ArrayBuffer] });
    return decodeAnswers(bytes);
  }

  close(): Promise<void> {
    return this.piscina.destroy();
  }
}

function failure(err: unknown): AnswerFrame {
  const body = err instanceof GraphError ? { error: err.code, msg: err.msg } : { error: 'internal_error' as const, msg: 'a read worker failed' };
  return { kind: 'response', status: 500, body: encoder.encode(errorJson(body)) };
}
