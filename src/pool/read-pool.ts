/**
 * The pool of read workers (the only importer of piscina). A Piscina task costs ~65 µs of
 * dispatch and wake-ups on this machine, far more than an LMDB read, so requests travel
 * in batches, as raw bodies in one buffer (protocol/frames.ts). Each worker has at most
 * one task in flight: requests that arrive while every worker is busy wait, and leave
 * together as soon as a worker is free. An idle pool sends at the end of the event-loop
 * turn, so a lone request waits for nothing; a loaded one sends large batches.
 * Workers parse, validate and run reads; writes come back as plans for the writer thread.
 */
import { Piscina } from 'piscina';
import { errorReply, GraphError, toErrorBody } from '../core/errors.js';
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
  /** Tasks sent and not answered yet (at most one per worker). */
  private inFlight = 0;

  constructor(
    workerFile: URL,
    workerData: WorkerSettings,
    readonly threads: number,
  ) {
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
    const idle = this.threads - this.inFlight;
    if (idle <= 0 || this.queue.length === 0) return;
    const size = Math.min(MAX_TASK_SIZE, Math.ceil(this.queue.length / idle));
    for (let sent = 0; sent < idle && this.queue.length > 0; sent++) {
      const chunk = this.queue.splice(0, size);
      this.inFlight++;
      this.runTask(chunk.map((p) => p.request))
        .then(
          (answers) => chunk.forEach((p, j) => p.resolve(answers[j] ?? failure(new Error('a read worker returned too few answers')))),
          (err: unknown) => chunk.forEach((p) => p.resolve(failure(err))),
        )
        .finally(() => {
          this.inFlight--;
          this.flush();
        });
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
  const body = err instanceof GraphError ? toErrorBody(err) : { error: 'internal_error' as const, msg: 'a read worker failed' };
  const reply = errorReply(body);
  return { kind: 'response', status: reply.status, body: encoder.encode(reply.body) };
}
