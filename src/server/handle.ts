/**
 * Transport-free request handling: the route table, and /v2/query and the Cypher routes in
 * the reference's order of checks (server-gateway §2.3, reference/cypher.md): headers
 * here, the body size in the transport, then the service runs the rest of the pipeline
 * (database.ts answerQuery, answerCypher).
 */
import { toErrorBody } from '../core/errors.js';
import { errorBodyResponse, errorResponse } from './http-errors.js';
import { parseRequestOptions, type RequestOptions } from './headers.js';
import type { Handler, HttpRequest, HttpResponse } from './http-types.js';
import { createRouter, type Route } from './routes.js';
import type { QueryReply, QueryService } from './service.js';

const JSON_TYPE = { 'content-type': 'application/json' };

/**
 * /v2/query or a Cypher route: the headers here (the body size was checked by the
 * transport), then `answer` runs the rest of the pipeline in the service.
 */
async function handleQuery(
  service: QueryService,
  req: HttpRequest,
  answer: (options: RequestOptions) => Promise<QueryReply>,
): Promise<HttpResponse> {
  try {
    const options = parseRequestOptions(req.headers, req.repeated);
    // Only start-up blocks every query; a writer thread being replaced fails writes alone
    // (the service answers not_ready for them) while reads carry on.
    if (service.health().index_runtime !== 'ready') return errorResponse('not_ready', 'the database is still opening; retry shortly');
    const reply = await answer(options);
    return { status: reply.status, headers: JSON_TYPE, body: reply.body };
  } catch (err) {
    return errorBodyResponse(toErrorBody(err));
  }
}

function healthResponse(service: QueryService, strict: boolean): HttpResponse {
  const health = service.health();
  return { status: strict && !health.ready ? 503 : 200, headers: JSON_TYPE, body: JSON.stringify(health) };
}

export interface RouteOptions {
  /** Serves `GET /metrics` (src/server/server-metrics.ts); without it the path is 404. */
  readonly metrics?: Handler;
  /**
   * Serves `POST /v2/cypher` and `POST /v2/cypher/explain` (default true, when the service
   * can answer them; DECISIONS D21); false: both paths are 404.
   */
  readonly cypher?: boolean;
}

/** The server's routes; like the health routes, /metrics asks for no credentials (the server has none). */
export function serverRoutes(service: QueryService, options: RouteOptions = {}): Route[] {
  const routes: Route[] = [
    { method: 'POST', path: '/v2/query', handler: (req) => handleQuery(service, req, (o) => service.query(req.body, o)) },
    { method: 'GET', path: '/healthz', handler: () => healthResponse(service, false) },
    { method: 'GET', path: '/readyz', handler: () => healthResponse(service, true) },
  ];
  const cypher = service.cypher?.bind(service);
  if ((options.cypher ?? true) && cypher !== undefined) {
    routes.push(
      { method: 'POST', path: '/v2/cypher', handler: (req) => handleQuery(service, req, (o) => cypher(req.body, o, false)) },
      { method: 'POST', path: '/v2/cypher/explain', handler: (req) => handleQuery(service, req, (o) => cypher(req.body, o, true)) },
    );
  }
  if (options.metrics !== undefined) routes.push({ method: 'GET', path: '/metrics', handler: options.metrics });
  return routes;
}

export function createHandler(service: QueryService): Handler {
  return createRouter(serverRoutes(service));
}
