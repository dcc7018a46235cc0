/**
 * What the HTTP layer needs from the database side: answer a /v2/query body (and a Cypher
 * one, when the service serves Cypher), and report health. The threaded server implements it (and tests, in-process); handle.ts knows
 * nothing of threads.
 */
import type { PipelineOptions } from '../core/request-options.js';

export type Mode = 'writer' | 'reader';
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
}

/** A reply's or response's body as text, reading the bytes in place. */
export function utf8Text(body: string | Uint8Array): string {
  return typeof body === 'string' ? body : Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('utf8');
}

export interface QueryService {
  readonly mode: Mode;
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
}
