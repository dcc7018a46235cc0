/**
 * Messages between the main thread and the worker threads: read tasks travel as binary
 * frames (frames.ts), plans and writer events as msgpackr buffers (codec.ts); errors travel
 * as data (ErrorBody), never as thrown objects.
 */
import type { ErrorBody } from '../core/errors.js';
import type { Batch, RequestType } from '../plan/batch.js';
import type { Value } from '../core/value.js';
import type { RowTable } from '../core/row-table.js';

/**
 * A QueryPlan in transit: parameters as entries (msgpack maps would decode as objects),
 * arrays of uniform rows as row tables (src/core/row-table.ts).
 */
export interface PlanMessage {
  readonly type: RequestType;
  readonly queryName: string | null;
  readonly batch: Batch;
  readonly params: readonly (readonly [string, Value])[];
  readonly tables: readonly (readonly [string, RowTable])[];
}

/**
 * What a request body is: a /v2/query request, a Cypher statement to run, one to explain,
 * or the parameters (a JSON object) of a call of a named query of the project.
 */
export type RequestRoute = 'query' | 'cypher' | 'cypher_explain' | 'named' | 'import';

/** A read worker's task: an encoded task frame (frames.ts), or a request for its statistics. */
export type ReadTask = Uint8Array | 'stats';

/** A write's answer; `lsn`: the change-log position at which it is visible (docs/replication.md). */
export type Reply = { readonly ok: true; readonly body: string; readonly lsn: number } | { readonly ok: false; readonly error: ErrorBody };

/** What a read worker reports of itself (for tests and diagnostics). */
export interface WorkerStats {
  /** Pending timers of the thread: a number that grows with every read is a leak. */
  readonly timers: number;
  readonly heapUsedBytes: number;
}

/** What every worker thread is started with (workerData). */
export interface WorkerSettings {
  readonly dataDir: string;
  /** A reader refuses writes (503 writer_mode_required). */
  readonly mode: 'writer' | 'reader';
  /** Execution budget of one query, ms. */
  readonly queryTimeoutMs: number;
  /**
   * The writer lock of the data folder, taken by the main thread before any thread starts
   * (src/store/lock.ts): the writer thread opens under it, again after every restart.
   */
  readonly writerLock?: string;
  /**
   * Read answers carry the change-log LSN of the snapshot they read (a replica's
   * X-Trellis-Lsn: docs/replication.md).
   */
  readonly snapshotLsn?: boolean;
  /** The writer publishes its change log to this JetStream stream (docs/replication.md). */
  readonly replication?: { readonly url: string; readonly stream: string };
  /**
   * The project's compiled named queries (src/hql compile.ts CompiledQuery[], msgpack):
   * a `named` request calls one by its place in this list.
   */
  readonly namedQueries?: Uint8Array;
}

/**
 * Posted to the writer. A write carries its plan as the msgpack PlanMessage a read worker
 * encoded (the main thread forwards the bytes as they are); if they do not decode, that
 * request alone fails.
 */
export type WriterRequest =
  | { readonly kind: 'write'; readonly id: number; readonly plan: Uint8Array; readonly awaitDurable: boolean }
  /** A copy of the database in the file `path`, for a replica (docs/replication.md). */
  | { readonly kind: 'snapshot'; readonly id: number; readonly path: string }
  | { readonly kind: 'close' };

export type WriterEvent =
  | { readonly kind: 'ready' }
  /** The database did not open: the message says why, in one line naming the folder. */
  | { readonly kind: 'failed'; readonly message: string }
  /** `seconds`: from the plan reaching the writer thread to this answer (the metrics' commit latency). */
  | { readonly kind: 'reply'; readonly id: number; readonly reply: Reply; readonly seconds: number }
  /** Something the store could not answer to a caller (a commit visible but not flushed): the main thread logs it. */
  | { readonly kind: 'log'; readonly message: string }
  /** A snapshot request's outcome: null, or why it failed. */
  | { readonly kind: 'snapshot'; readonly id: number; readonly error: string | null }
  /**
   * The change log's position (sent at most every POSITION_MS while it moves, with a
   * publisher): the last LSN committed, background index steps included, and the last
   * published to the stream (0: none yet).
   */
  | { readonly kind: 'position'; readonly committed: number; readonly published: number }
  | { readonly kind: 'closed' };
