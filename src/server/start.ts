/**
 * Starts the HTTP server: check the data folder first (a writer takes its lock, a reader
 * finds a database of this format), then listen (so /healthz answers while the database
 * opens and /readyz says 503), then start the writer thread and the read pool.
 *
 * Every answer carries a request id (`x-request-id`), is counted for `GET /metrics` unless
 * metrics are off, and is logged as answers.ts says; the threads' deaths and restarts go
 * to the same logger.
 */
import { createLogger, requestIdOf, type Logger } from '../observe/log.js';
import { lockDataFolder, openStore, type WriterLock } from '../store/index.js';
import { observeAnswers } from './answers.js';
import { serverRoutes } from './handle.js';
import { createRouter, routeLabels } from './routes.js';
import { ServerMetrics } from './server-metrics.js';
import { ThreadedService } from './threaded-service.js';
import { startHttpServer, type HttpServer } from './uws.js';
import { utf8Text, type Mode } from './service.js';
import type { CompiledQuery } from '../hql/compile.js';
import type { Project } from '../hql/project.js';
import { namedQueries, namedQueryRoutes } from './named-queries.js';
import { encodeMessage } from '../protocol/codec.js';
import { mcpRoutes } from './mcp-routes.js';
import { replicationRoutes } from './replication-routes.js';
import { Follower, seedReplica } from '../replication/follower.js';
import type { Store } from '../store/index.js';
import type { ReplicaLink } from './service.js';
import { explorerRoutes, loadExplorerFiles } from './explorer-files.js';
import { openApiRoute } from './openapi.js';
import { VERSION } from './version.js';
import { awaitSchemaVersion, migrateSchema } from './schema-migration.js';
import { isTypeVectorIndex, listIndexes } from './list-indexes.js';
import { DEFAULT_HNSW_BUILD } from '../core/index-spec.js';

export interface ServerOptions {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly mode: Mode;
  readonly workers: number;
  /** Read worker threads for long queries (default 1). */
  readonly longWorkers?: number;
  /** Reads running longer move to the long queries' threads (ms, default 2; 0: never). */
  readonly querySliceMs?: number;
  /** Heap limit of each read worker, MiB (default 0: Node's default). */
  readonly workerHeapMb?: number;
  readonly maxBodyBytes: number;
  readonly queryTimeoutMs: number;
  /** Serve `GET /metrics` and count for it (default true); false: 404, nothing counted. */
  readonly metrics?: boolean;
  /** Serve `POST /v2/cypher` and `POST /v2/cypher/explain` (default true); false: 404. */
  readonly cypher?: boolean;
  /** Where the server logs (default: JSON lines on stdout, at `info`). */
  readonly logger?: Logger;
  /** The query-language project whose queries are served at POST /<QueryName> (src/hql/project.ts). */
  readonly queries?: Project;
  /** Replication (docs/replication.md): NATS URL (a writer publishes, a replica follows), stream, a replica's writer. */
  readonly nats?: string | undefined;
  readonly stream?: string;
  readonly writerUrl?: string | undefined;
  /** A replica further behind than this is not ready (ms, default 5000). */
  readonly maxLagMs?: number;
  /** How long a replica waits for X-Trellis-Min-Lsn (ms, default 1000). */
  readonly minLsnWaitMs?: number;
  /** Serve the explorer at `GET /` (default true; docs/explorer.md); false: its paths are 404. */
  readonly explorer?: boolean;
}

/** A replica's state for the HTTP layer, delegating to the follower once it runs. */
class ReplicaState implements ReplicaLink {
  follower: Follower | null = null;
  store: Store | null = null;
  constructor(
    readonly maxLagMs: number,
    private readonly waitMs: number,
  ) {}
  lsn(): number {
    return this.follower?.position.lsn ?? 0;
  }
  lagMs(): number {
    return this.follower?.lagMs() ?? Number.POSITIVE_INFINITY;
  }
  waitFor(lsn: number): Promise<boolean> {
    return this.follower?.waitFor(lsn, this.waitMs) ?? Promise.resolve(false);
  }
  async close(): Promise<void> {
    await this.follower?.close();
    await this.store?.close();
  }
}

export interface RunningServer {
  readonly port: number;
  /** Every method and path the router serves: its routes and the project's queries (the OpenAPI document lists each). */
  readonly routes: readonly { readonly method: string; readonly path: string }[];
  /** Resolves when the database and workers are ready (rejects if they fail to start). */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

/**
 * Fails (with a DataFolderError or a listen error, each one line) before anything runs
 * when the folder or the port cannot be used; `ready` rejects when the database or the
 * threads fail to open later.
 */
export async function startServer(options: ServerOptions): Promise<RunningServer> {
  const lock = await checkDataFolder(options.dataDir, options.mode);
  const logger = options.logger ?? createLogger({ name: 'trellis', level: 'info' });
  const replica = options.mode === 'replica' ? new ReplicaState(options.maxLagMs ?? 5000, options.minLsnWaitMs ?? 1000) : null;
  const stream = options.stream ?? 'trellis';
  let service: ThreadedService | undefined;
  const metrics =
    (options.metrics ?? true)
      ? new ServerMetrics(() => service!.counters(), replica === null ? undefined : () => replica.follower?.counters() ?? null)
      : null;
  let http: HttpServer;
  const queries = namedQueries(options.queries);
  let served: { method: string; path: string }[];
  try {
    service = new ThreadedService(
      {
        dataDir: options.dataDir,
        mode: options.mode === 'writer' ? 'writer' : 'reader',
        ...(options.mode === 'replica' ? { snapshotLsn: true } : {}),
        queryTimeoutMs: options.queryTimeoutMs,
        ...(lock === null || options.mode !== 'writer' ? {} : { writerLock: lock.token }),
        ...(options.mode === 'writer' && options.nats !== undefined ? { replication: { url: options.nats, stream } } : {}),
        ...(queries.list.length === 0 ? {} : { namedQueries: encodeMessage(queries.list) }),
      },
      {
        workers: options.workers,
        longWorkers: options.longWorkers ?? 1,
        sliceMs: options.querySliceMs ?? 2,
        workerHeapMb: options.workerHeapMb ?? 0,
      },
      { log: logger, onBatch: metrics?.batch, ...(replica === null ? {} : { replica }) },
      queries.list,
    );
    // The MCP SDK takes about half a second to load: only a project with MCP on loads it.
    const endpoint = options.queries?.config.mcp
      ? (await import('./mcp-endpoint.js')).mcpEndpointRoutes(service, options.queries, queries)
      : [];
    const routes = [
      ...serverRoutes(service, { metrics: metrics?.serve, cypher: options.cypher ?? true }),
      ...mcpRoutes(service, options.queries, queries),
      ...endpoint,
      ...(options.mode === 'writer' ? replicationRoutes({ dataDir: options.dataDir, snapshot: (path) => snapshotOf(service!, path) }) : []),
      ...((options.explorer ?? true) ? explorerRoutes(loadExplorerFiles()) : []),
    ];
    routes.push(openApiRoute(() => ({ version: VERSION, routes, queries: options.queries?.queries ?? new Map() })));
    const named = namedQueryRoutes(service, options.queries, queries);
    served = [
      ...routes.map(({ method, path }) => ({ method, path })),
      ...[...queries.byName.keys()].map((name) => ({ method: 'POST', path: `/${name}` })),
    ];
    http = await startHttpServer({
      host: options.host,
      port: options.port,
      maxBodyBytes: options.maxBodyBytes,
      handler: createRouter(routes, named),
      requestId: requestIdOf,
      onAnswer: observeAnswers(logger, metrics?.requests ?? null, routeLabels(routes, named)),
      onError: (err, requestId) => logger.error({ err, req_id: requestId }, 'request handler failed'),
    });
  } catch (err) {
    await service?.close();
    lock?.release();
    throw err;
  }
  const started = service;
  const ready = (async () => {
    if (replica !== null) {
      const log = (message: string, fields?: Record<string, unknown>) => logger.info(fields ?? {}, message);
      const seeded = await seedReplica(options.dataDir, options.writerUrl!, log);
      replica.store = await openStore({ path: options.dataDir, replica: true, writerLock: lock!.token, log: (m) => logger.error(m) });
      replica.follower = await Follower.start({
        store: replica.store,
        dataDir: options.dataDir,
        url: options.nats!,
        stream,
        writerUrl: options.writerUrl!,
        log,
        seeded,
      });
    }
    // A writer migrates the data to the project's schema version before any request is
    // served; a reader or a replica waits until the data is at that version.
    const project = options.queries;
    await started.start(
      project === undefined
        ? undefined
        : options.mode === 'writer'
          ? () => migrateSchema(started, project.versions, project.config.vectorIndex ?? DEFAULT_HNSW_BUILD, options.dataDir, logger)
          : () => awaitSchemaVersion(started, project.versions, options.dataDir, logger),
    );
    if (options.mode === 'writer') {
      await makeTextIndexes(started, queries.list, logger);
      await noteVectorIndexes(started, queries.list, logger);
    }
  })();
  ready.catch(() => undefined);
  return {
    port: http.port,
    routes: served,
    ready,
    async close() {
      http.close();
      try {
        await service.close();
        await replica?.close();
      } finally {
        lock?.release();
      }
    },
  };
}

/**
 * The text indexes the project's text searches read (SearchBM25, SearchHybrid: one per
 * String field of the type), made when missing before the server is ready. An index of a
 * type with no node yet is active at once; one over existing nodes is built in the
 * background, and a search answers index_building until it is done.
 */
async function makeTextIndexes(service: ThreadedService, queries: readonly CompiledQuery[], logger: Logger): Promise<void> {
  const seen = new Set<string>();
  const entries: unknown[] = [];
  for (const q of queries) {
    for (const { label, property } of q.needs.textIndexes) {
      const key = `${label}\u0000${property}`;
      if (seen.has(key)) continue;
      seen.add(key);
      entries.push({ query: { root: { create_index: { spec: { node_text: { label, property } }, if_not_exists: true } } } });
    }
  }
  if (entries.length === 0) return;
  const body = JSON.stringify({ request_type: 'write', query: { write: { entries, returns: [] } } });
  const reply = await service.query(Buffer.from(body), { warm: false, requireWriter: false, awaitDurable: true });
  if (reply.status !== 200)
    logger.warn({ status: reply.status, body: utf8Text(reply.body) }, 'the text indexes of the project could not all be made');
}

/**
 * The vector indexes of the project's types (made by their first write, src/hql/call.ts)
 * that exist with other build parameters than the project's (`m`, `ef_construction`:
 * src/config.ts `vectorIndex`): each keeps the ones it was built with, as its graph holds
 * them, and a warning says so and how to rebuild it with the project's.
 */
async function noteVectorIndexes(service: ThreadedService, queries: readonly CompiledQuery[], logger: Logger): Promise<void> {
  const wanted = new Map<string, CompiledQuery['needs']['vectorIndex']>();
  for (const q of queries) for (const w of q.needs.vectorWrites) wanted.set(w.type, q.needs.vectorIndex);
  if (wanted.size === 0) return;
  const listed = await listIndexes(service);
  if (!('indexes' in listed)) {
    logger.warn({ status: listed.status, body: listed.text }, "the project's vector indexes could not be listed");
    return;
  }
  for (const index of listed.indexes) {
    const want = wanted.get(index.label);
    if (!isTypeVectorIndex(index) || want === undefined) continue;
    const { m, ef_construction } = index;
    if (m === want.m && ef_construction === want.ef_construction) continue;
    logger.warn(
      { label: index.label, m, ef_construction, project: want },
      `the vector index of ${index.label} keeps the m ${m} and ef_construction ${ef_construction} it was built with; ` +
        `the project's m ${want.m} and ef_construction ${want.ef_construction} apply to an index made anew ` +
        `(drop_index it; the next write of a ${index.label} vector makes it with them)`,
    );
  }
}

/**
 * The main thread's look at the folder before any thread opens it. A writer creates it
 * and takes its writer lock (held until close; the writer thread opens under it, so a
 * replacement thread finds it held). A reader opens it read-only once, which checks that
 * it holds a database of this format, so a read worker never meets a folder it cannot open.
 */
async function checkDataFolder(dataDir: string, mode: Mode): Promise<WriterLock | null> {
  // A replica writes its own copy (the follower applies the log), so it holds the lock too.
  if (mode === 'writer' || mode === 'replica') return lockDataFolder(dataDir);
  const store = await openStore({ path: dataDir, readOnly: true });
  await store.close();
  return null;
}

function snapshotOf(service: ThreadedService, path: string): Promise<void> {
  const writer = service.writerClient;
  if (writer === null) return Promise.reject(new Error('this server has no writer thread'));
  return writer.snapshot(path);
}
