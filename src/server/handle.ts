/**
 * Transport-free request handling: the route table and /v2/query in the reference's order
 * of checks (server-gateway §2.3): headers here, the body size in the transport, then the
 * service runs the rest of the pipeline (database.ts answerQuery).
 */
import { errorReply, toErrorBody, type ErrorBody } from '../core/errors.js';
import { parseRequestOptions } from './headers.js';
import type { Handler, HttpRequest, HttpResponse } from './http-types.js';
import { createRouter, type Route } from './routes.js';
import type { QueryService } from './service.js';

const JSON_TYPE = { 'content-type': 'application/json' };

export function errorResponse(body: ErrorBody): HttpResponse {
  return { ...errorReply(body), headers: JSON_TYPE };
}

async function handleQuery(service: QueryService, req: HttpRequest): Promise<HttpResponse> {
  try {
    const options = parseRequestOptions(req.headers, req.repeated);
    // Only start-up blocks every query; a writer thread being replaced fails writes alone
    // (the service answers not_ready for them) while reads carry on.
    if (service.health().index_runtime !== 'ready')
      return errorResponse({ error: 'not_ready', msg: 'the database is still opening; retry shortly' });
    const reply = await service.query(req.body, options);
    return { status: reply.status, headers: JSON_TYPE, body: reply.body };
  } catch (err) {
    return errorResponse(toErrorBody(err));
  }
}

function healthResponse(service: QueryService, strict: boolean): HttpResponse {
  const health = service.health();
  return { status: strict && !health.ready ? 503 : 200, headers: JSON_TYPE, body: JSON.stringify(health) };
}

export interface RouteOptions {
  /** Serves `GET /metrics` (src/server/server-metrics.ts); without it the path is 404. */
  readonly metrics?: Handler;
}

/** The server's routes; like the health routes, /metrics asks for no credentials (the server has none). */
export function serverRoutes(service: QueryService, options: RouteOptions = {}): Route[] {
  const routes: Route[] = [
    { method: 'POST', path: '/v2/query', handler: (req) => handleQuery(service, req) },
    { method: 'GET', path: '/healthz', handler: () => healthResponse(service, false) },
    { method: 'GET', path: '/readyz', handler: () => healthResponse(service, true) },
  ];
  if (options.metrics !== undefined) routes.push({ method: 'GET', path: '/metrics', handler: options.metrics });
  return routes;
}

export function createHandler(service: QueryService): Handler {
  return createRouter(serverRoutes(service));
}
