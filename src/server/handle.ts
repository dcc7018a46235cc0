/**
 * Transport-free request handling: the route table, and /v2/query and the Cypher routes in
 * the reference's order of checks (server-gateway §2.3, reference/cypher.md): headers
 * here, the body size in the transport, then the service runs the rest of the pipeline
 * (database.ts answerQuery, answerCypher).
 */
import { GraphError, toErrorBody } from '../core/errors.js';
import { clip } from '../core/clip.js';
import { errorBodyResponse, errorResponse } from './http-errors.js';
import { parseRequestOptions, type RequestOptions } from './headers.js';
import type { Handler, HttpRequest, HttpResponse } from './http-types.js';
import { createRouter, type Route } from './routes.js';
import type { QueryReply, QueryService } from './service.js';

const JSON_TYPE = { 'content-type': 'application/json' };
/** The change-log position an answer reflects (docs/replication.md, read-your-writes). */
export const LSN_HEADER = 'x-trellis-lsn';
/** A read's read-your-writes token: the LSN its answer must reflect. */
export const MIN_LSN_HEADER = 'x-trellis-min-lsn';

function parseMinLsn(raw: string | undefined): number {
  if (raw === undefined) return 0;
  const text = raw.trim();
  if (!/^\d{1,15}$/.test(text)) {
    throw new GraphError('invalid_request_option', `${MIN_LSN_HEADER} must be a non-negative integer LSN, got "${clip(text)}"`);
  }
  return Number(text);
}

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
    const minLsn = parseMinLsn(req.headers.get(MIN_LSN_HEADER));
    const replica = service.replica;
    if (replica !== undefined && minLsn > 0 && !(await replica.waitFor(minLsn))) {
      return errorResponse(
        'lsn_not_reached',
        `this replica had not applied LSN ${minLsn} (it is at ${replica.lsn()}) within its wait bound; retry, or read from the writer`,
      );
    }
    // Only start-up blocks every query; a writer thread being replaced fails writes alone
    // (the service answers not_ready for them) while reads carry on.
    if (service.health().index_runtime !== 'ready') return errorResponse('not_ready', 'the database is still opening; retry shortly');
    // A replica's read answers carry the LSN of the snapshot they read (reply.lsn); an
    // answer that read nothing (an error before the read) the LSN applied when it started.
    const seen = replica?.lsn();
    const reply = await answer(options);
    const lsn = reply.lsn ?? seen;
    const headers = lsn === undefined ? JSON_TYPE : { ...JSON_TYPE, [LSN_HEADER]: String(lsn) };
    return { status: reply.status, headers, body: reply.body };
  } catch (err) {
    return errorBodyResponse(toErrorBody(err));
  }
}

function healthResponse(service: QueryService, strict: boolean): HttpResponse {
  const health = service.health();
  const lsn = service.replica?.lsn();
  const headers = lsn === undefined ? JSON_TYPE : { ...JSON_TYPE, [LSN_HEADER]: String(lsn) };
  return { status: strict && !health.ready ? 503 : 200, headers, body: JSON.stringify(health) };
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
  const bulkImport = service.bulkImport?.bind(service);
  if (bulkImport !== undefined) {
    routes.push({ method: 'POST', path: '/v2/import', handler: (req) => handleQuery(service, req, (o) => bulkImport(req.body, o)) });
  }
  if (options.metrics !== undefined) routes.push({ method: 'GET', path: '/metrics', handler: options.metrics });
  return routes;
}

export function createHandler(service: QueryService): Handler {
  return createRouter(serverRoutes(service));
}
