/**
 * The read workers (the only importer of piscina), in two lanes:
 *
 * - the **short lane** takes every request first. A Piscina task costs tens of µs of
 *   dispatch and wake-ups, far more than an LMDB read, so requests travel in batches, as
 *   raw bodies in one buffer (protocol/frames.ts). Each worker has at most one task in
 *   flight: requests that arrive while every worker is busy wait, and leave together as
 *   soon as a worker is free. A read that runs past the lane's time slice is stopped
 *   (GuardedReader) and moved to the long lane, so the requests batched with it are not
 *   held up by it.
 * - the **long lane** runs one request per task and never preempts: reads that outran the
 *   slice, bodies too large to parse quickly, and requests retried after a worker died.
 *   Long queries wait for each other there, not for short ones, and not the other way.
 *
 * Workers run their event loop between tasks (`atomics: 'disabled'`): parked in
 * Atomics.wait, as Piscina does by default, a thread runs no timers, and lmdb-js arms one
 * with every read snapshot, so they piled up at about 150 bytes per read until the worker
 * ran out of heap.
 *
 * A worker that dies (out of memory, a crash) is logged and replaced by Piscina; every
 * request of its task is tried once more, alone, in the long lane. Read workers never
 * change the database (a write is only parsed there and comes back as a plan), so trying
 * again is safe for writes too. A request whose second worker dies as well is answered
 * with an error.
 */
import { Piscina } from 'piscina';
import { errorReply, GraphError, toErrorBody, type ErrorBody } from '../core/errors.js';
import type { LogSink } from '../core/log-sink.js';
import { decodeAnswers, encodeTask, type AnswerFrame } from '../protocol/frames.js';
import type { RequestRoute, WorkerSettings, WorkerStats } from '../protocol/messages.js';

export interface ReadPoolOptions {
  /** Worker threads of the short lane. */
  readonly workers: number;
  /** Worker threads of the long lane. */
  readonly longWorkers: number;
  /** Reads of the short lane running longer than this move to the long lane (ms). */
  readonly sliceMs: number;
  /** Heap limit of each worker (MiB); 0: V8's default. */
  readonly workerHeapMb: number;
  /** Where a worker's death is reported. */
  readonly log: LogSink;
}

/** What one lane has seen so far (the server's metrics read these at each scrape). */
export interface LaneCounters {
  /** Requests waiting for a worker of the lane. */
  readonly queued: number;
  /** Tasks sent to the lane's workers and not answered yet. */
  readonly inFlight: number;
  /** Workers that ended while the pool was open (a crash, out of memory). */
  readonly deaths: number;
  /** Workers Piscina started in place of dead ones. */
  readonly replacements: number;
}

export interface ReadPoolCounters {
  readonly short: LaneCounters;
  readonly long: LaneCounters;
  /** Reads stopped at their time slice (here or on the main thread) and moved to the long lane. */
  readonly preempted: number;
  /** Requests tried once more in the long lane after the worker running them died. */
  readonly retried: number;
}

interface Pending {
  readonly body: Uint8Array;
  readonly flags: number;
  readonly queryId: number;
  readonly route: RequestRoute;
  spentMs: number;
  /** Already tried again after its worker died. */
  retried: boolean;
  readonly resolve: (answer: AnswerFrame) => void;
}

/** Requests per short-lane task at most: bounds one task's latency under a burst. */
const MAX_TASK_SIZE = 256;

/** Bodies larger than this go straight to the long lane: parsing them takes milliseconds. */
export const LONG_BODY_BYTES = 1024 * 1024;

const encoder = new TextEncoder();

class Lane {
  private readonly queue: Pending[] = [];
  private scheduled = false;
  /** Tasks sent and not answered yet (at most one per worker). */
  private inFlight = 0;
  /** Counted for the metrics: plain numbers, read only when scraped. */
  private deaths = 0;
  private started = 0;

  constructor(
    readonly name: string,
    readonly piscina: Piscina,
    readonly threads: number,
    private readonly maxTask: number,
    private readonly sliceMs: number,
    private readonly settle: (pending: Pending, answer: AnswerFrame) => void,
    private readonly died: (pending: readonly Pending[], err: unknown) => void,
  ) {}

  /** A worker of the lane became ready: past the first `threads`, a replacement. */
  workerStarted(): void {
    this.started++;
  }

  /** A worker of the lane ended while the pool was open. */
  workerDied(): void {
    this.deaths++;
  }

  counters(): LaneCounters {
    return {
      queued: this.queue.length,
      inFlight: this.inFlight,
      deaths: this.deaths,
      replacements: Math.max(0, this.started - this.threads),
    };
  }

  /** Nothing queued or running: a request sent now starts at once. */
  get idle(): boolean {
    return this.inFlight === 0 && this.queue.length === 0;
  }

  enqueue(pending: Pending): void {
    this.queue.push(pending);
    if (!this.scheduled) {
      this.scheduled = true;
      // Everything that arrives in this event-loop turn leaves in one task.
      setImmediate(() => this.flush());
    }
  }

  private flush(): void {
    this.scheduled = false;
    const idle = this.threads - this.inFlight;
    if (idle <= 0 || this.queue.length === 0) return;
    const size = Math.min(this.maxTask, Math.ceil(this.queue.length / idle));
    for (let sent = 0; sent < idle && this.queue.length > 0; sent++) {
      const chunk = this.queue.splice(0, size);
      this.inFlight++;
      this.run(chunk)
        .then(
          (answers) =>
            chunk.forEach((p, j) =>
              this.settle(p, answers[j] ?? failure({ error: 'internal_error', msg: 'a read worker returned too few answers' })),
            ),
          (err: unknown) => this.died(chunk, err),
        )
        .finally(() => {
          this.inFlight--;
          this.flush();
        });
    }
  }

  private async run(chunk: readonly Pending[]): Promise<AnswerFrame[]> {
    const task = encodeTask({ sliceMs: this.sliceMs, requests: chunk });
    const bytes: Uint8Array = await this.piscina.run(task, { transferList: [task.buffer as ArrayBuffer] });
    return decodeAnswers(bytes);
  }
}

export class ReadPool {
  private readonly short: Lane;
  private readonly long: Lane;
  private preempted = 0;
  private retried = 0;
  private closing = false;

  constructor(
    workerFile: URL,
    workerData: WorkerSettings,
    private readonly options: ReadPoolOptions,
  ) {
    const settle = (p: Pending, answer: AnswerFrame) => {
      if (answer.kind !== 'preempted') p.resolve(answer);
      else {
        this.preempted++;
        p.spentMs = answer.spentMs;
        this.long.enqueue(p);
      }
    };
    const died = (lane: string) => (pending: readonly Pending[], err: unknown) => this.workerDied(lane, pending, err);
    // Each pool tells its lane of the workers it starts and ends (looked up when that
    // happens, after the lanes exist).
    this.short = new Lane(
      'short',
      this.piscina(workerFile, workerData, options.workers, () => this.short),
      options.workers,
      MAX_TASK_SIZE,
      options.sliceMs,
      settle,
      died('short'),
    );
    this.long = new Lane(
      'long',
      this.piscina(workerFile, workerData, options.longWorkers, () => this.long),
      options.longWorkers,
      1,
      0,
      settle,
      died('long'),
    );
  }

  private piscina(workerFile: URL, workerData: WorkerSettings, threads: number, lane: () => Lane): Piscina {
    const pool = new Piscina({
      filename: workerFile.href,
      minThreads: threads,
      maxThreads: threads,
      idleTimeout: Number.POSITIVE_INFINITY,
      atomics: 'disabled',
      workerData,
      ...(this.options.workerHeapMb > 0 ? { resourceLimits: { maxOldGenerationSizeMb: this.options.workerHeapMb } } : {}),
    });
    // A worker that fails outside a task: Piscina replaces it; without a listener the
    // 'error' event would end the process. Its death is counted by 'workerDestroy'.
    pool.on('error', (err: unknown) =>
      this.options.log.error({ lane: lane().name, err: describe(err) }, 'a read worker failed between tasks; it is replaced'),
    );
    // Piscina emits these for every worker it starts (once ready) and ends, the pool's own
    // start and close included; what happens in between is a death and its replacement.
    pool.on('workerCreate', () => lane().workerStarted());
    pool.on('workerDestroy', () => {
      if (!this.closing) lane().workerDied();
    });
    return pool;
  }

  /** Resolves when every worker thread has opened the database. */
  async warm(): Promise<void> {
    const empty = () => encodeTask({ sliceMs: 0, requests: [] });
    await Promise.all([this.short, this.long].flatMap((lane) => Array.from({ length: lane.threads }, () => lane.piscina.run(empty()))));
  }

  /** The short lane is idle: a request sent now would start at once. */
  get idle(): boolean {
    return this.short.idle;
  }

  /**
   * Answers one request body: a /v2/query request unless `route` says otherwise (`flags`:
   * request-options.ts optionFlags; `queryId`: the named query a `named` request calls).
   */
  submit(body: Uint8Array, flags: number, queryId = 0, route: RequestRoute = 'query'): Promise<AnswerFrame> {
    return new Promise((resolve) => {
      const pending: Pending = { body, flags, queryId, route, spentMs: 0, retried: false, resolve };
      (body.byteLength > LONG_BODY_BYTES ? this.long : this.short).enqueue(pending);
    });
  }

  /** Runs a read that already ran for `spentMs` elsewhere and outran its slice there. */
  submitLong(body: Uint8Array, flags: number, spentMs: number, queryId = 0, route: RequestRoute = 'query'): Promise<AnswerFrame> {
    this.preempted++;
    return new Promise((resolve) => this.long.enqueue({ body, flags, queryId, route, spentMs, retried: false, resolve }));
  }

  /** Statistics of every worker (one task per thread; for tests and diagnostics). */
  async stats(): Promise<WorkerStats[]> {
    const lanes = [this.short, this.long];
    return Promise.all(
      lanes.flatMap((lane) => Array.from({ length: lane.threads }, () => lane.piscina.run('stats') as Promise<WorkerStats>)),
    );
  }

  /** What the lanes have seen so far, for the metrics. */
  counters(): ReadPoolCounters {
    return { short: this.short.counters(), long: this.long.counters(), preempted: this.preempted, retried: this.retried };
  }

  private workerDied(lane: string, pending: readonly Pending[], err: unknown): void {
    const retry = pending.filter((p) => !p.retried);
    this.retried += retry.length;
    this.options.log.error(
      { lane, err: describe(err), requests: pending.length, retried: retry.length },
      `a read worker of the ${lane} lane died (${describe(err)}); it is replaced, ` +
        `and ${retry.length} of its ${pending.length} requests are tried again in the long lane`,
    );
    for (const p of pending) {
      if (p.retried) p.resolve(failure(diedTwice(err)));
      else {
        p.retried = true;
        this.long.enqueue(p);
      }
    }
  }

  async close(): Promise<void> {
    this.closing = true;
    await Promise.all([this.short.piscina.destroy(), this.long.piscina.destroy()]);
  }
}

function describe(err: unknown): string {
  if (err instanceof Error) {
    const code = (err as { code?: unknown }).code;
    return typeof code === 'string' ? `${code}: ${err.message}` : err.message;
  }
  return String(err);
}

/** The answer to a request that two workers died running. */
function diedTwice(err: unknown): ErrorBody {
  if (err instanceof GraphError) return toErrorBody(err);
  if ((err as { code?: unknown } | null)?.code === 'ERR_WORKER_OUT_OF_MEMORY') {
    return {
      error: 'limit_exceeded',
      msg: 'the query needs more memory than a read worker has (--worker-heap-mb); two workers ran out of memory running it: add a limit or a filter',
    };
  }
  return { error: 'internal_error', msg: `the read worker running this request died twice (${describe(err)}); it was not tried again` };
}

function failure(body: ErrorBody): AnswerFrame {
  const reply = errorReply(body);
  return { kind: 'response', status: reply.status, body: encoder.encode(reply.body) };
}
