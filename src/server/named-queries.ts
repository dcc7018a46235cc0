/**
 * `POST /<QueryName>` (contract; DECISIONS D15, D16): a named query of the project, called
 * with a JSON object of its parameters. The query was compiled at start-up into a
 * /v2/query batch (src/hql); a call checks the parameters, fills them into that batch and
 * runs it through the same service as /v2/query (read workers, the writer, the same
 * headers), then shows the result as the query's RETURN says (src/hql/response.ts).
 */
import { GraphError, toErrorBody, type ErrorBody } from '../core/errors.js';
import { JsonSyntaxError, parseJsonBytes } from '../core/json.js';
import { stringifyJson } from '../core/json-stringify.js';
import type { CompiledQuery } from '../hql/compile.js';
import { checkParameters } from '../hql/params.js';
import type { Project } from '../hql/project.js';
import { shapeResponse } from '../hql/response.js';
import { errorBodyResponse, errorResponse } from './http-errors.js';
import { parseRequestOptions } from './headers.js';
import type { HttpRequest, HttpResponse } from './http-types.js';
import type { NamedRouteFallback } from './routes.js';
import { utf8Text, type QueryService } from './service.js';
import { clip } from '../core/clip.js';

const JSON_TYPE = { 'content-type': 'application/json' };

/** A compiled query ready to call: its /v2/query request, printed once, around the parameters. */
export interface CallableQuery {
  readonly query: CompiledQuery;
  /** The /v2/query request for the parameters (JSON text from checkParameters). */
  request(parameters: string): PreparedRequest;
}

/**
 * A /v2/query body whose parameters object is last and starts at byte `paramsAt` (0: no
 * parameters), so the read threads can keep its plan and parse only the parameters
 * (src/prepared-plans.ts).
 */
interface PreparedRequest {
  readonly body: Buffer;
  readonly paramsAt: number;
}

export function callable(query: CompiledQuery): CallableQuery {
  const type = query.write ? 'write' : 'read';
  const batch = `{"entries":${stringifyJson(query.entries)},"returns":${JSON.stringify(query.returnNames)}}`;
  const envelope = `{"request_type":"${type}","query_name":${JSON.stringify(query.name)},"query":{"${type}":${batch}}`;
  if (query.params.length === 0) {
    const whole = Buffer.from(`${envelope}}`);
    return { query, request: () => ({ body: whole, paramsAt: 0 }) };
  }
  const head = `${envelope},"parameter_types":${stringifyJson(query.parameterTypes)},"parameters":`;
  const paramsAt = Buffer.byteLength(head);
  return { query, request: (parameters) => ({ body: Buffer.from(`${head}${parameters}}`), paramsAt }) };
}

/** An error of a call, with its status on this route (D16: an element addressed by id that does not exist is 404). */
function namedError(body: ErrorBody): HttpResponse {
  return errorBodyResponse(body, undefined, 'named_query');
}

export function parseBody(body: Buffer): unknown {
  if (body.length === 0) return {};
  try {
    return parseJsonBytes(body);
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw new GraphError('invalid_query_json', `the body is not valid JSON: ${err.message}`);
    throw err;
  }
}

/** Runs one call of `q`; errors are answered, never thrown. */
function callNamedQuery(service: QueryService, q: CallableQuery, req: HttpRequest): Promise<HttpResponse> {
  return runNamedQuery(service, q, req, () => parseBody(req.body));
}

/** Runs `q` with the parameters `body()` gives (the request body, or an MCP call's `data`). */
export async function runNamedQuery(service: QueryService, q: CallableQuery, req: HttpRequest, body: () => unknown): Promise<HttpResponse> {
  try {
    const options = parseRequestOptions(req.headers, req.repeated);
    const params = checkParameters(q.query.params, body());
    // A query with no statements (`RETURN "ok"`) is answered without the database.
    if (q.query.entries.length === 0) return { status: 200, headers: JSON_TYPE, body: shapeResponse(q.query.returns, '{}') };
    if (service.health().index_runtime !== 'ready') return errorResponse('not_ready', 'the database is still opening; retry shortly');
    const request = q.request(params);
    const reply = await service.query(request.body, options, request.paramsAt);
    const text = utf8Text(reply.body);
    if (reply.status !== 200) return namedError(JSON.parse(text) as ErrorBody);
    return { status: 200, headers: JSON_TYPE, body: shapeResponse(q.query.returns, text) };
  } catch (err) {
    return namedError(toErrorBody(err));
  }
}

/** Every query of the project, ready to call, by name (none without a project). */
export function callableQueries(project: Project | undefined): ReadonlyMap<string, CallableQuery> {
  return new Map([...(project?.queries ?? [])].map(([name, q]) => [name, callable(q)]));
}

/** The router's fallback serving the project's queries (`queries`: callableQueries of it). */
export function namedQueryRoutes(
  service: QueryService,
  project: Project | undefined,
  queries: ReadonlyMap<string, CallableQuery>,
): NamedRouteFallback {
  return {
    method: 'POST',
    has: (name) => queries.has(name),
    handler: (req, name) => {
      const q = queries.get(name);
      if (q === undefined) {
        const known =
          project === undefined
            ? 'the server has no project (start it with --project DIR)'
            : queries.size === 0
              ? 'the project has no queries'
              : `the project's queries: ${[...queries.keys()].sort().slice(0, 20).join(', ')}`;
        return errorResponse('query_not_found', `no query named "${clip(name)}"; ${known}`);
      }
      return callNamedQuery(service, q, req);
    },
  };
}
