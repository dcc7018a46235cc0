/**
 * Starts a gateway: the key ring, the databases' server pools, the rate limiter's Redis
 * connection, and the HTTP front end (the server's uWS transport, with the head checks
 * run before any body is read). docs/gateway.md describes what it does.
 */
import { requestIdOf, type Logger } from '../observe/log.js';
import type { Handler, HttpRequest, HttpResponse } from '../server/http-types.js';
import { startHttpServer } from '../server/uws.js';
import { Admission } from './admission.js';
import { errorResponse } from '../server/http-errors.js';
import { DatabaseBackends, Forwarder } from './backends.js';
import type { GatewayConfig } from './config.js';
import { observeAnswers, OPENAPI_PATH, Pipeline, refuseRoute } from './handler.js';
import { KeyRing } from './keys.js';
import { RedisLimiter } from './limiter.js';
import { LsnTokens } from './lsn-tokens.js';
import { GatewayMetrics } from './metrics.js';
import { throttledWarn } from './throttled-log.js';
import { messageOf } from '../core/errors.js';
import { explorerRoutes, loadExplorerFiles } from '../server/explorer-files.js';
import { REQUEST_ID_HEADER } from '../observe/log.js';
import { gatewayDocument } from './openapi.js';
import { notFound } from '../server/routes.js';
import { clip } from '../core/clip.js';

export interface RunningGateway {
  readonly port: number;
  close(): Promise<void>;
}

/** How long start-up waits for Redis before serving anyway (failing closed until it is there). */
const REDIS_WAIT_MS = 2000;

export async function startGateway(config: GatewayConfig, logger: Logger): Promise<RunningGateway> {
  const metrics = config.metrics ? new GatewayMetrics() : undefined;
  const backends = new Map([...config.databases.values()].map((db) => [db.id, new DatabaseBackends(db)]));
  const forwarder = new Forwarder((report) => {
    metrics?.backendFailure(report);
    logger.warn(
      { db: report.backend.database, backend: report.backend.url, role: report.backend.role, reason: report.reason },
      'backend attempt failed',
    );
  });
  // While Redis is down, every reconnect fails: one line per 10 s, with the count left out.
  const redisTrouble = throttledWarn(logger);
  let limiter: RedisLimiter | undefined;
  if (config.rateLimit) {
    limiter = new RedisLimiter({
      url: config.redis.url,
      keyPrefix: config.redis.keyPrefix,
      deadlineMs: config.redis.deadlineMs,
      reserveMs: config.redis.reserveMs,
      onError: (err) => redisTrouble({ err: err.message }, 'redis error; admissions fail closed (503) until it answers'),
    });
    await limiter.ready(REDIS_WAIT_MS).catch((err: unknown) => {
      logger.warn({ err: messageOf(err) }, 'redis is not reachable yet; token-costing requests get 503 until it is');
    });
  }
  // Read-your-writes over replicas (docs/replication.md): the readers' readiness and LSN
  // are polled, and each key's last write LSN is kept in Redis, where gateways share it.
  for (const b of backends.values()) b.watch();
  const withReaders = [...config.databases.values()].some((db) => db.readers.length > 0);
  const lsnTokens = withReaders
    ? new LsnTokens(config.redis.url, config.redis.keyPrefix, config.redis.deadlineMs, (err) =>
        redisTrouble({ err: err.message }, 'redis error; reads with a read-your-writes token go to the writer until it answers'),
      )
    : undefined;
  const admission = new Admission(config.mode, new KeyRing(config.keys), config.databases);
  const pipeline = new Pipeline({
    admission,
    bucket: limiter,
    backends,
    forwarder,
    metrics,
    warnUnavailable: throttledWarn(logger),
    ...(lsnTokens === undefined ? {} : { lsnTokens, warnTokens: throttledWarn(logger) }),
  });

  const health = (strict: boolean): HttpResponse => {
    const ready = limiter === undefined || limiter.connected();
    const body = JSON.stringify({ index_runtime: ready ? 'ready' : 'rate_limit_unavailable', mode: 'gateway', ready });
    return { status: strict && !ready ? 503 : 200, body };
  };

  const metricsRoute = async (req: HttpRequest): Promise<HttpResponse> => {
    if (metrics === undefined)
      return errorResponse('not_found', 'metrics are turned off in this gateway\'s configuration ("metrics": false)');
    const key = admission.key(req);
    if ('status' in key) return key;
    if (!key.metrics) return errorResponse('forbidden', 'this API key may not read metrics ("metrics": true in its configuration)');
    const { contentType, body } = await metrics.registry.render();
    return { status: 200, headers: { 'content-type': contentType }, body };
  };

  /** The database server's OpenAPI document, restated for the gateway (openapi.ts): a key with any grant, no token. */
  const openApiRoute = async (req: HttpRequest): Promise<HttpResponse> => {
    const a = admission.check(req);
    if ('status' in a) return a;
    const request = { method: 'GET' as const, path: OPENAPI_PATH, headers: { [REQUEST_ID_HEADER]: a.requestId }, body: Buffer.alloc(0) };
    const outcome = await forwarder.read(backends.get(a.database.id)!, request, a.started + a.database.attemptBudgetMs);
    if (outcome.kind === 'answer' && outcome.answer.status === 200) {
      const doc = gatewayDocument(
        JSON.parse(outcome.answer.body.toString('utf8')) as Record<string, unknown>,
        config.mode,
        config.explorer,
      );
      return { status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'no-cache' }, body: JSON.stringify(doc) };
    }
    if (outcome.kind === 'answer')
      return {
        status: outcome.answer.status,
        headers: { 'content-type': outcome.answer.contentType ?? 'application/json' },
        body: outcome.answer.body,
      };
    if (outcome.kind === 'timeout')
      return errorResponse('query_timeout', `no answer from database "${clip(a.database.id)}" within its budget`);
    return errorResponse('backend_unavailable', outcome.msg);
  };

  // The explorer's page and files need no key: the page asks for one before it queries.
  const explorer = new Map(config.explorer ? explorerRoutes(loadExplorerFiles()).map((r) => [r.path, r.handler]) : []);

  const handler: Handler = (req) => {
    const refused = refuseRoute(req.method, req.path);
    if (refused !== undefined) return refused;
    if (req.method === 'POST') return pipeline.handle(req);
    if (req.path === '/healthz') return health(false);
    if (req.path === '/readyz') return health(true);
    if (req.path === OPENAPI_PATH) return openApiRoute(req);
    if (req.path === '/metrics') return metricsRoute(req);
    // The explorer's paths (refuseRoute let them through): its files, or 404 when it is off or has no such file.
    return explorer.get(req.path)?.(req) ?? notFound(req);
  };

  const server = await startHttpServer({
    host: config.host,
    port: config.port,
    maxBodyBytes: config.maxBodyBytes,
    handler,
    beforeBody: pipeline.beforeBody,
    requestId: requestIdOf,
    onAnswer: observeAnswers(logger, metrics),
    onError: (err, requestId) =>
      logger.error({ req_id: requestId, err: err instanceof Error ? (err.stack ?? err.message) : String(err) }, 'request handler failed'),
  });
  return {
    port: server.port,
    async close() {
      server.close();
      await Promise.all([...backends.values()].map((b) => b.close()));
      await limiter?.close();
      await lsnTokens?.close();
    },
  };
}
