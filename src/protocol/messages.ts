/**
 * Messages between the main thread and the worker threads. They travel as msgpackr
 * buffers (codec.ts); errors travel as data (ErrorBody), never as thrown objects.
 */
import type { ErrorBody } from '../errors.js';
import type { Batch, RequestType } from '../plan/batch.js';
import type { Value } from '../value.js';

/** A QueryPlan in transit: parameters as entries (msgpack maps would decode as objects). */
export interface PlanMessage {
  readonly type: RequestType;
  readonly queryName: string | null;
  readonly batch: Batch;
  readonly params: readonly (readonly [string, Value])[];
}

export type Reply = { readonly ok: true; readonly body: string } | { readonly ok: false; readonly error: ErrorBody };

/** What every worker thread is started with (workerData). */
export interface WorkerSettings {
  readonly dataDir: string;
  /** Execution budget of one query, ms. */
  readonly queryTimeoutMs: number;
}

/** One task for a read worker: every read request that arrived in one event-loop turn. */
export interface ReadTask {
  readonly plans: readonly PlanMessage[];
}
export interface ReadTaskResult {
  readonly replies: readonly Reply[];
}

/**
 * Posted to the writer as `{ id, bytes }` (WriterEnvelope), with the request msgpack-encoded
 * in `bytes`: the id stays readable even if the bytes do not decode, so that request alone fails.
 */
export type WriterRequest =
  | { readonly kind: 'write'; readonly plan: PlanMessage; readonly awaitDurable: boolean }
  | { readonly kind: 'close' };
export interface WriterEnvelope {
  readonly id: number;
  readonly bytes: Uint8Array;
}

export type WriterEvent =
  | { readonly kind: 'ready' }
  | { readonly kind: 'failed'; readonly error: ErrorBody }
  | { readonly kind: 'reply'; readonly id: number; readonly reply: Reply }
  | { readonly kind: 'closed' };
