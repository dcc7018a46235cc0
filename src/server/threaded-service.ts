/**
 * The QueryService of the real server: requests go to the Piscina pool, which parses them
 * and runs reads; the writes it hands back go to the writer thread (none in reader mode).
 * Ready once the writer has opened the database and every read worker has too.
 */
import { errorReply } from '../core/errors.js';
import { ReadPool } from '../pool/read-pool.js';
import { WriterClient } from '../pool/writer-client.js';
import type { WorkerSettings } from '../protocol/messages.js';
import { optionFlags, type PipelineOptions } from '../core/request-options.js';
import type { HealthResponse, IndexRuntime, Mode, QueryReply, QueryService } from './service.js';

const READ_WORKER = new URL('../../workers/read-worker.js', import.meta.url);
const WRITER = new URL('../../workers/writer.js', import.meta.url);

export class ThreadedService implements QueryService {
  private pool: ReadPool | null = null;
  private readonly writer: WriterClient | null;
  private state: IndexRuntime = 'starting';

  constructor(
    private readonly settings: WorkerSettings,
    private readonly readThreads: number,
  ) {
    this.writer = settings.mode === 'writer' ? new WriterClient(WRITER, settings) : null;
  }

  get mode(): Mode {
    return this.settings.mode;
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

  async query(body: Uint8Array, options: PipelineOptions): Promise<QueryReply> {
    if (this.pool === null) return fail('not_ready', 'the read workers are starting');
    const answer = await this.pool.submit(body, optionFlags(options));
    if (answer.kind === 'response') return { status: answer.status, body: answer.body };
    // Workers refuse writes in reader mode, so a write plan means a writer exists.
    if (this.writer === null) return fail('writer_mode_required', 'this server is in reader mode');
    const reply = await this.writer.write(answer.plan, answer.awaitDurable);
    return reply.ok ? { status: 200, body: reply.body } : errorReply(reply.error);
  }

  async close(): Promise<void> {
    await this.pool?.close();
    await this.writer?.close();
  }
}

function fail(code: 'not_ready' | 'writer_mode_required', msg: string): QueryReply {
  return errorReply({ error: code, msg });
}
