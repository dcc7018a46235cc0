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
import { observeAnswers, Pipeline, refuseRoute } from './handler.js';
import { KeyRing } from './keys.js';
import { RedisLimiter } from './limiter.js';
import { GatewayMetrics } from './metrics.js';
import { throttledWarn } from './throttled-log.js';
import { messageOf } from '../core/errors.js';

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
  const admission = new Admission(config.mode, new KeyRing(config.keys), config.databases);
  const pipeline = new Pipeline({
    admission,
    bucket: limiter,
    backends,
    forwarder,
    metrics,
    warnUnavailable: throttledWarn(logger),
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

  const handler: Handler = (req) => {
    const refused = refuseRoute(req.method, req.path);
    if (refused !== undefined) return refused;
    if (req.method === 'POST') return pipeline.handle(req);
    if (req.path === '/healthz') return health(false);
    if (req.path === '/readyz') return health(true);
    return metricsRoute(req);
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
    },
  };
}
