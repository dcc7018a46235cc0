/**
 * What the HTTP layer needs from the database side: answer a /v2/query body (and a Cypher
 * one, when the service serves Cypher), and report health. The threaded server implements it (and tests, in-process); handle.ts knows
 * nothing of threads.
 */
import type { PipelineOptions } from '../core/request-options.js';

export type Mode = 'writer' | 'reader' | 'replica';
export type IndexRuntime = 'starting' | 'ready' | 'failed';

export interface HealthResponse {
  ready: boolean;
  mode: Mode;
  index_runtime: IndexRuntime;
}

/** A /v2/query answer: the status and the JSON body (a QueryResponse or a QueryError). */
export interface QueryReply {
  readonly status: number;
  readonly body: string | Uint8Array;
  /** The change-log position the answer reflects (a write's LSN; a replica's applied LSN): the X-Trellis-Lsn header. */
  readonly lsn?: number;
}

/** A reply's or response's body as text, reading the bytes in place. */
export function utf8Text(body: string | Uint8Array): string {
  return typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
}

/** A replica's side of replication, as the HTTP layer sees it (docs/replication.md). */
export interface ReplicaLink {
  /** The applied LSN: every read answered now reflects at least this. */
  lsn(): number;
  /** Resolves true once `lsn` is applied, false past the wait bound. */
  waitFor(lsn: number): Promise<boolean>;
}

export interface QueryService {
  readonly mode: Mode;
  /** Set on a replica. */
  readonly replica?: ReplicaLink;
  health(): HealthResponse;
  /** Runs the query pipeline (database.ts answerQuery) on a request body. */
  query(body: Uint8Array, options: PipelineOptions): Promise<QueryReply>;
  /**
   * Calls the project's named query number `queryId` with `body`, the JSON object of its
   * parameters (database.ts answerNamed): the answer is the named-query response.
   */
  named?(queryId: number, body: Uint8Array, options: PipelineOptions): Promise<QueryReply>;
  /**
   * Runs the Cypher pipeline (database.ts answerCypher) on a /v2/cypher body, or with
   * `explain` on a /v2/cypher/explain body. A service without it serves no Cypher routes.
   */
  cypher?(body: Uint8Array, options: PipelineOptions, explain: boolean): Promise<QueryReply>;
  /**
   * Runs a /v2/import batch (database.ts answerImport): one label's rows as msgpack columns.
   * A service without it serves no /v2/import route.
   */
  bulkImport?(body: Uint8Array, options: PipelineOptions): Promise<QueryReply>;
}
