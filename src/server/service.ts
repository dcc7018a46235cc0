/**
 * What the HTTP layer needs from the database side: run a read, run a write, and report
 * health. The threaded server and tests implement it; handle.ts knows nothing of threads.
 */
import type { QueryPlan } from '../plan/batch.js';
import type { Reply } from '../protocol/messages.js';

export type Mode = 'writer' | 'reader';
export type IndexRuntime = 'starting' | 'ready' | 'failed';

export interface HealthResponse {
  ready: boolean;
  mode: Mode;
  index_runtime: IndexRuntime;
}

export interface QueryService {
  readonly mode: Mode;
  health(): HealthResponse;
  read(plan: QueryPlan): Promise<Reply>;
  write(plan: QueryPlan, awaitDurable: boolean): Promise<Reply>;
}
