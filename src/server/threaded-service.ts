/**
 * The QueryService of the real server: reads on the Piscina pool, writes on the writer
 * thread (none in reader mode). Ready once the writer has opened the database and every
 * read worker has too.
 */
import type { QueryPlan } from '../plan/batch.js';
import type { Reply, WorkerSettings } from '../protocol/messages.js';
import { ReadPool } from '../pool/read-pool.js';
import { WriterClient } from '../pool/writer-client.js';
import type { HealthResponse, IndexRuntime, Mode, QueryService } from './service.js';

const READ_WORKER = new URL('../../workers/read-worker.js', import.meta.url);
const WRITER = new URL('../../workers/writer.js', import.meta.url);

export class ThreadedService implements QueryService {
  private pool: ReadPool | null = null;
  private readonly writer: WriterClient | null;
  private state: IndexRuntime = 'starting';

  constructor(
    readonly mode: Mode,
    private readonly settings: WorkerSettings,
    private readonly readThreads: number,
  ) {
    this.writer = mode === 'writer' ? new WriterClient(WRITER, settings) : null;
  }

  async start(): Promise<void> {
    try {
      // The writer opens (and creates) the environment before any reader opens it.
      await this.writer?.ready;
      this.pool = new ReadPool(READ_WORKER, this.settings, this.readThreads);
      await this.pool.warm();
      this.state = 'ready';
    } catch (err) {
      this.state = 'failed';
      throw err;
    }
  }

  health(): HealthResponse {
    const ready = this.state === 'ready' && (this.writer === null || this.writer.isAlive);
    return { ready, mode: this.mode, index_runtime: this.state };
  }

  read(plan: QueryPlan): Promise<Reply> {
    if (this.pool === null) return Promise.resolve({ ok: false, error: { error: 'not_ready', msg: 'the read workers are starting' } });
    return this.pool.read(plan);
  }

  write(plan: QueryPlan, awaitDurable: boolean): Promise<Reply> {
    if (this.writer === null) {
      return Promise.resolve({ ok: false, error: { error: 'writer_mode_required', msg: 'this server is in reader mode' } });
    }
    return this.writer.write(plan, awaitDurable);
  }

  async close(): Promise<void> {
    await this.pool?.close();
    await this.writer?.close();
  }
}
