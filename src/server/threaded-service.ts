/**
 * The QueryService of the real server (/v2/query and the Cypher routes alike, told apart
 * by their route, protocol/frames.ts): a request is answered on the main thread when the
 * read workers are idle and it is small (inline-queries.ts), else by the read pool, which
 * parses it and runs reads in two lanes (src/pool/read-pool.ts); writes, parsed either
 * way, go to the writer thread (none in reader mode). Ready once the writer has opened the
 * database and every read worker has too.
 */
import { errorReply } from '../core/errors.js';
import { consoleLog, type LogSink } from '../core/log-sink.js';
import { optionFlags, type PipelineOptions } from '../core/request-options.js';
import { ReadPool, type ReadPoolCounters, type ReadPoolOptions } from '../pool/read-pool.js';
import { WriterClient, type BatchObserver, type WriterCounters } from '../pool/writer-client.js';
import { configureWorkerHeaps } from '../pool/worker-heap.js';
import type { AnswerFrame } from '../protocol/frames.js';
import type { RequestRoute, WorkerSettings } from '../protocol/messages.js';
import type { IndexBacklog } from '../store/index.js';
import { InlineQueries } from './inline-queries.js';
import type { CompiledQuery } from '../hql/compile.js';
import type { HealthResponse, IndexRuntime, Mode, QueryReply, QueryService, ReplicaLink } from './service.js';

const READ_WORKER = new URL('../../workers/read-worker-entry.cjs', import.meta.url);
const WRITER = new URL('../../workers/writer.js', import.meta.url);

export type PoolOptions = Omit<ReadPoolOptions, 'log'>;

export interface ServiceHooks {
  /** Where the threads' deaths and restarts are reported (default: stderr). */
  readonly log?: LogSink;
  /** Called for every write batch the writer thread answers (the metrics). */
  readonly onBatch?: BatchObserver;
  /** A replica's link (its read workers run as a reader's); ready only within the lag bound. */
  readonly replica?: ReplicaLink & { lagMs(): number; readonly maxLagMs: number };
}

/** What the threads have seen so far; null for a part not running (no writer in reader mode, no pool yet). */
export interface ServiceCounters {
  readonly writer: WriterCounters | null;
  readonly pool: ReadPoolCounters | null;
  /** Every vector index's queued work, read from the database (empty until it is open). */
  readonly vectors: readonly IndexBacklog[];
}

export class ThreadedService implements QueryService {
  private pool: ReadPool | null = null;
  private inline: InlineQueries | null = null;
  private readonly writer: WriterClient | null;
  private state: IndexRuntime = 'starting';

  private readonly log: LogSink;
  readonly replica: (ReplicaLink & { lagMs(): number; readonly maxLagMs: number }) | undefined;

  constructor(
    private readonly settings: WorkerSettings,
    private readonly poolOptions: PoolOptions,
    hooks: ServiceHooks = {},
    /** The project's named queries; the read workers get them from `settings.namedQueries`. */
    private readonly namedQueries: readonly CompiledQuery[] = [],
  ) {
    this.log = hooks.log ?? consoleLog;
    this.replica = hooks.replica;
    // Before the first worker starts: the heap its isolate is made with (worker-heap.ts).
    configureWorkerHeaps();
    this.writer = settings.mode === 'writer' ? new WriterClient(WRITER, settings, { log: this.log, onBatch: hooks.onBatch }) : null;
  }

  get mode(): Mode {
    return this.replica === undefined ? this.settings.mode : 'replica';
  }

  /** The writer thread's client (none in reader and replica mode). */
  get writerClient(): WriterClient | null {
    return this.writer;
  }

  /**
   * Opens the threads; `beforeReady` (a writer's start-up work that must precede every
   * request, such as a schema migration) runs once they can answer service calls, while
   * the routes still answer not_ready.
   */
  async start(beforeReady?: () => Promise<void>): Promise<void> {
    try {
      // The writer opens (and creates) the environment before any reader opens it.
      await this.writer?.ready;
      this.pool = new ReadPool(READ_WORKER, this.settings, { ...this.poolOptions, log: this.log });
      await this.pool.warm();
      this.inline = await InlineQueries.open({
        dataDir: this.settings.dataDir,
        readerMode: this.settings.mode === 'reader',
        snapshotLsn: this.settings.snapshotLsn === true,
        queryTimeoutMs: this.settings.queryTimeoutMs,
        named: this.namedQueries,
      });
      await beforeReady?.();
      this.state = 'ready';
    } catch (err) {
      this.state = 'failed';
      throw err;
    }
  }

  health(): HealthResponse {
    const ready =
      this.state === 'ready' &&
      (this.writer === null || this.writer.isAlive) &&
      (this.replica === undefined || this.replica.lagMs() <= this.replica.maxLagMs);
    return { ready, mode: this.mode, index_runtime: this.state };
  }

  /** The read pool, for statistics in tests. */
  get readPool(): ReadPool | null {
    return this.pool;
  }

  /** Plain numbers, read when /metrics is scraped. */
  counters(): ServiceCounters {
    return { writer: this.writer?.counters() ?? null, pool: this.pool?.counters() ?? null, vectors: this.inline?.vectorBacklogs() ?? [] };
  }

  query(body: Uint8Array, options: PipelineOptions): Promise<QueryReply> {
    return this.answer(body, options, 0, 'query');
  }

  named(queryId: number, body: Uint8Array, options: PipelineOptions): Promise<QueryReply> {
    return this.answer(body, options, queryId, 'named');
  }

  cypher(body: Uint8Array, options: PipelineOptions, explain: boolean): Promise<QueryReply> {
    return this.answer(body, options, 0, explain ? 'cypher_explain' : 'cypher');
  }

  bulkImport(body: Uint8Array, options: PipelineOptions): Promise<QueryReply> {
    return this.answer(body, options, 0, 'import');
  }

  private async answer(body: Uint8Array, options: PipelineOptions, queryId: number, route: RequestRoute): Promise<QueryReply> {
    const pool = this.pool;
    if (pool === null) return fail('not_ready', 'the read workers are starting');
    const flags = optionFlags(options);
    const answer =
      this.inline !== null && pool.idle && this.inline.accepts(body)
        ? await this.answerInline(this.inline, pool, body, flags, queryId, route)
        : await pool.submit(body, flags, queryId, route);
    if (answer.kind === 'response') {
      return answer.lsn === undefined
        ? { status: answer.status, body: answer.body }
        : { status: answer.status, body: answer.body, lsn: answer.lsn };
    }
    if (answer.kind === 'preempted') return fail('internal_error', 'a read was preempted in the long lane');
    // Workers refuse writes in reader mode, so a write plan means a writer exists.
    if (this.writer === null)
      return route === 'query' || route === 'named' || route === 'import'
        ? fail('writer_mode_required', 'this server is in reader mode')
        : fail('access_mode_error', 'this server is in reader mode');
    const reply = await this.writer.write(answer.plan, answer.awaitDurable);
    return reply.ok
      ? { status: 200, body: reply.body, lsn: reply.lsn }
      : errorReply(reply.error, route === 'named' ? 'named_query' : 'any');
  }

  /** On the main thread (inline-queries.ts); a read that outruns its slice moves to the long lane. */
  private async answerInline(
    inline: InlineQueries,
    pool: ReadPool,
    body: Uint8Array,
    flags: number,
    queryId: number,
    route: RequestRoute,
  ): Promise<AnswerFrame> {
    const answer = inline.answer(body, flags, queryId, route);
    if (answer.kind === 'preempted') return pool.submitLong(body, flags, answer.spentMs, queryId, route);
    if (answer.kind === 'response' && 'text' in answer) {
      const { status, lsn } = answer;
      const body = Buffer.from(answer.text);
      return lsn === undefined ? { kind: 'response', status, body } : { kind: 'response', status, body, lsn };
    }
    return answer;
  }

  async close(): Promise<void> {
    await this.pool?.close();
    await this.inline?.close();
    await this.writer?.close();
  }
}

function fail(code: 'not_ready' | 'writer_mode_required' | 'access_mode_error' | 'internal_error', msg: string): QueryReply {
  return errorReply({ error: code, msg });
}
