/**
 * The gateway's request pipeline after the head (admission.ts): the body's size (the
 * transport answers 413 past 2 MiB), the outer JSON decode and the request type's
 * permission, the token, then forwarding (backends.ts). Every answer carries the
 * request's id in `x-request-id`, which the backend received too.
 *
 * Routes: /v2/query, /v2/cypher and /v2/cypher/explain, the named queries /<QueryName>,
 * the MCP calls /mcp/<QueryName>Mcp and the standard MCP endpoint /mcp each cost one
 * token; /mcp/init costs none (it runs no query). The health routes need no key; /metrics
 * needs a key allowed to read metrics.
 */
import { clip } from '../core/clip.js';
import { checkOptionsForRequestType, type RequestType } from '../core/request-options.js';
import { GraphError, messageOf } from '../core/errors.js';
import { REQUEST_ID_HEADER, type Logger } from '../observe/log.js';
import { codeOf } from '../observe/metrics.js';
import type { HttpRequest, HttpResponse } from '../server/http-types.js';
import type { AnswerListener } from '../server/uws.js';
import type { Admission, Admitted } from './admission.js';
import { errorResponse } from '../server/http-errors.js';
import { methodNotAllowed, notFound } from '../server/routes.js';
import {
  LSN_HEADER,
  MIN_LSN_HEADER,
  type DatabaseBackends,
  type ForwardOutcome,
  type Forwarder,
  type OutgoingRequest,
} from './backends.js';
import { cypherMayWrite } from './cypher-kind.js';
import type { GatewayMetrics } from './metrics.js';
import type { Warn } from './throttled-log.js';
import type { RedisLimiter } from './limiter.js';
import type { LsnTokens } from './lsn-tokens.js';

type RouteKind = 'query' | 'cypher' | 'explain' | 'import' | 'named' | 'mcp_init' | 'mcp_call' | 'mcp_endpoint';

interface Route {
  kind: RouteKind;
  /** The metrics label: a fixed path, never a raw one. */
  label: string;
}

/** The standard MCP endpoint: forwarded with the transport's own headers (outgoingRequest). */
const MCP_ENDPOINT = '/mcp';
const QUERY_NAME = /^\/[A-Za-z_][A-Za-z0-9_]*$/;
const MCP_CALL = /^\/mcp\/[A-Za-z_][A-Za-z0-9_]*$/;

const ROUTES: ReadonlyMap<string, Route> = new Map([
  ['/v2/query', { kind: 'query', label: '/v2/query' }],
  ['/v2/cypher', { kind: 'cypher', label: '/v2/cypher' }],
  ['/v2/cypher/explain', { kind: 'explain', label: '/v2/cypher/explain' }],
  ['/v2/import', { kind: 'import', label: '/v2/import' }],
  ['/mcp/init', { kind: 'mcp_init', label: '/mcp/init' }],
  [MCP_ENDPOINT, { kind: 'mcp_endpoint', label: MCP_ENDPOINT }],
]);
const MCP_CALL_ROUTE: Route = { kind: 'mcp_call', label: '/mcp/<QueryName>Mcp' };
const NAMED_ROUTE: Route = { kind: 'named', label: '/<QueryName>' };

export function routeOf(path: string): Route | undefined {
  const fixed = ROUTES.get(path);
  if (fixed !== undefined) return fixed;
  if (MCP_CALL.test(path)) return MCP_CALL_ROUTE;
  if (QUERY_NAME.test(path)) return NAMED_ROUTE;
  return undefined;
}

export interface PipelineParts {
  admission: Admission;
  /** Undefined when rate limiting is off (`"rate_limit": false`). */
  bucket: RedisLimiter | undefined;
  backends: ReadonlyMap<string, DatabaseBackends>;
  forwarder: Forwarder;
  metrics: GatewayMetrics | undefined;
  /** Failed-closed admissions, throttled (throttled-log.ts). */
  warnUnavailable: Warn;
  /** Read-your-writes tokens (lsn-tokens.ts); undefined: reads carry only the client's own X-Trellis-Min-Lsn. */
  lsnTokens?: LsnTokens;
  /** A token that could not be read or kept, throttled. */
  warnTokens?: Warn;
}

/** The request type and where it must go, from the decoded body; or the 400 answer. */
interface Decoded {
  type: RequestType;
  /** Must reach the writer (writes, named queries, MCP). */
  writer: boolean;
}

function decodeError(msg: string): HttpResponse {
  return errorResponse('invalid_query_json', `invalid query JSON: ${msg}`);
}

/** The outer JSON decode: just enough to know the request type. The server checks the rest. */
function decode(route: Route, body: Buffer): Decoded | HttpResponse {
  // A /v2/import body is msgpack, and always a write (src/wire/import-request.ts).
  if (route.kind === 'import') return { type: 'write', writer: true };
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
  } catch (err) {
    return decodeError(messageOf(err));
  }
  // A JSON-RPC message or a batch of them; a tool call may run a writing query.
  if (route.kind === 'mcp_endpoint') return { type: 'write', writer: true };
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) return decodeError('the body must be a JSON object');
  const fields = parsed as Record<string, unknown>;
  switch (route.kind) {
    case 'query': {
      const type = fields.request_type;
      if (type !== 'read' && type !== 'write')
        return decodeError(`request_type must be "read" or "write", got ${clip(JSON.stringify(type) ?? 'nothing')}`);
      return { type, writer: type === 'write' };
    }
    case 'cypher':
    case 'explain': {
      if (typeof fields.query !== 'string') return decodeError('"query" must be a string holding one Cypher statement');
      const write = route.kind === 'cypher' && cypherMayWrite(fields.query);
      return { type: write ? 'write' : 'read', writer: write };
    }
    default:
      // A named query may write and the gateway cannot tell: it goes to the writer, and
      // needs the write permission (docs/gateway.md, "Permissions").
      return { type: route.kind === 'mcp_init' ? 'read' : 'write', writer: true };
  }
}

export class Pipeline {
  constructor(private readonly parts: PipelineParts) {}

  /**
   * The transport's beforeBody hook: the route (docs/gateway.md "Order of checks", step 1:
   * 404 or 405 without a key too), then the head's checks; on success the request's context.
   */
  readonly beforeBody = (req: HttpRequest): HttpResponse | undefined => {
    const refused = refuseRoute(req.method, req.path);
    if (refused !== undefined) return refused;
    const checked = this.parts.admission.check(req);
    if ('status' in checked) return checked;
    req.context = checked;
    return undefined;
  };

  handle(req: HttpRequest): Promise<HttpResponse> {
    return this.run(req, req.context as Admitted);
  }

  private async run(req: HttpRequest, a: Admitted): Promise<HttpResponse> {
    const route = routeOf(req.path);
    if (route === undefined) return notFound(req);
    const decoded = decode(route, req.body);
    if ('status' in decoded) return decoded;
    const needed = decoded.type === 'write' ? 'write' : 'read';
    if (!a.grants.has(needed)) {
      return errorResponse(
        'forbidden',
        `this API key may not ${needed === 'write' ? 'write to' : 'read'} database "${clip(a.database.id)}"`,
      );
    }
    try {
      checkOptionsForRequestType(a.options, decoded.type);
    } catch (err) {
      if (err instanceof GraphError) return errorResponse(err.code, err.msg);
      throw err;
    }

    if (route.kind !== 'mcp_init') {
      const refused = await this.spendToken(a);
      if (refused !== undefined) return refused;
    }
    return this.forward(req, a, decoded);
  }

  /** One token from the database's bucket; the refusal answer if there is none. */
  private async spendToken(a: Admitted): Promise<HttpResponse | undefined> {
    const bucket = this.parts.bucket;
    if (bucket === undefined) return undefined;
    const result = await bucket.admit(a.database.id, a.database.limits);
    this.parts.metrics?.token(a.database.id, result.kind);
    switch (result.kind) {
      case 'admitted':
        return undefined;
      case 'rate_limited':
        return errorResponse(
          'rate_limited',
          `rate limit exceeded for database "${clip(a.database.id)}"; retry after ${result.retryAfterS} s`,
          {
            'retry-after': String(result.retryAfterS),
          },
        );
      case 'disabled':
        return errorResponse(
          'tenant_disabled',
          `queries of database "${clip(a.database.id)}" are disabled because its credit is exhausted`,
        );
      case 'unavailable':
        this.parts.warnUnavailable(
          { req_id: a.requestId, db: a.database.id, reason: result.reason },
          'rate limiter unavailable; failing closed',
        );
        return errorResponse(
          'rate_limit_unavailable',
          'the rate limiter is unavailable, so the request was not admitted; retry with backoff',
        );
    }
  }

  private async forward(req: HttpRequest, a: Admitted, decoded: Decoded): Promise<HttpResponse> {
    const backends = this.parts.backends.get(a.database.id)!;
    const outgoing = outgoingRequest(req, a);
    const deadline = a.started + a.database.attemptBudgetMs;
    const { forwarder } = this.parts;
    if (a.options.warm) {
      const warmed = await forwarder.warm(backends, a.options.requireWriter, outgoing, deadline);
      if (warmed.kind === 'warmed') return { status: 204, body: '' };
      return this.answerOf(warmed, a);
    }
    if (decoded.writer || a.options.requireWriter) {
      const outcome = await forwarder.toWriter(backends, outgoing, deadline);
      if (outcome.kind === 'answer' && outcome.answer.status === 200 && outcome.answer.lsn !== undefined && backends.hasReplicas) {
        await this.keepToken(a, Number(outcome.answer.lsn));
      }
      return this.answerOf(outcome, a);
    }
    const minLsn = await this.readToken(req, a, backends);
    if (minLsn === null) return this.answerOf(await forwarder.toWriter(backends, outgoing, deadline), a);
    if (minLsn > 0) outgoing.headers[MIN_LSN_HEADER] = String(minLsn);
    return this.answerOf(await forwarder.read(backends, outgoing, deadline, minLsn), a);
  }

  /** Keeps the LSN a write of this key was answered at (read-your-writes); a failure is logged, the answer stands. */
  private async keepToken(a: Admitted, lsn: number): Promise<void> {
    const tokens = this.parts.lsnTokens;
    if (tokens === undefined || !Number.isSafeInteger(lsn)) return;
    try {
      await tokens.note(a.database.id, a.key.name, lsn);
    } catch (err) {
      this.parts.warnTokens?.({ req_id: a.requestId, db: a.database.id, err: messageOf(err) }, 'could not keep a read-your-writes LSN');
    }
  }

  /**
   * The LSN a read must see: the client's X-Trellis-Min-Lsn and its key's last write on
   * this database, whichever is higher (0: none; the Redis lookup runs only when the
   * database has replicas). Null when the key's token cannot be read: the writer answers.
   */
  private async readToken(req: HttpRequest, a: Admitted, backends: DatabaseBackends): Promise<number | null> {
    const asked = Number(req.headers.get(MIN_LSN_HEADER) ?? 0);
    const own = Number.isSafeInteger(asked) && asked > 0 ? asked : 0;
    const tokens = this.parts.lsnTokens;
    if (tokens === undefined || !backends.hasReplicas) return own;
    try {
      return Math.max(own, await tokens.highest(a.database.id, a.key.name));
    } catch (err) {
      this.parts.warnTokens?.(
        { req_id: a.requestId, db: a.database.id, err: messageOf(err) },
        'could not read a read-your-writes LSN; reading from the writer',
      );
      return null;
    }
  }

  private answerOf(outcome: ForwardOutcome, a: Admitted): HttpResponse {
    switch (outcome.kind) {
      case 'answer': {
        const { answer } = outcome;
        const headers: Record<string, string> = {};
        if (answer.contentType !== undefined) headers['content-type'] = answer.contentType;
        if (answer.retryAfter !== undefined) headers['retry-after'] = answer.retryAfter;
        if (answer.lsn !== undefined) headers[LSN_HEADER] = answer.lsn;
        return { status: answer.status, headers, body: answer.body };
      }
      case 'timeout':
        return errorResponse(
          'query_timeout',
          `no answer from database "${clip(a.database.id)}" within its budget of ${a.database.attemptBudgetMs} ms; a write's outcome is unknown (it may still commit)`,
        );
      case 'unavailable':
        return errorResponse('backend_unavailable', outcome.msg);
    }
  }
}

/** The gateway's GET (and HEAD) routes, served by start.ts. */
export const OPENAPI_PATH = '/openapi.json';
export const GET_ROUTES: ReadonlySet<string> = new Set(['/healthz', '/readyz', '/metrics', OPENAPI_PATH]);
/** The explorer's page and files (docs/explorer.md), served when the configuration's `explorer` is on. */
const EXPLORER_PATH = /^\/(?:assets\/[^/]+)?$/;

/** The methods a path is served with (the `Allow` header's list), or undefined when no route serves it. */
function allowedMethods(path: string): string | undefined {
  // Before routeOf: `/healthz` would also pass for a query name.
  if (GET_ROUTES.has(path) || EXPLORER_PATH.test(path)) return 'GET, HEAD';
  return routeOf(path) === undefined ? undefined : 'POST';
}

/**
 * Step 1 of the order of checks: 404 for a path no route serves and 405 (naming the
 * path's methods) for another method on one; undefined when the route serves the request.
 */
export function refuseRoute(method: string, path: string): HttpResponse | undefined {
  const allow = allowedMethods(path);
  if (allow === undefined) return notFound({ method, path });
  const served = allow === 'POST' ? method === 'POST' : method === 'GET' || method === 'HEAD';
  return served ? undefined : methodNotAllowed({ method, path }, allow);
}

/**
 * The metrics and log label of a path: a fixed route, never the raw path. The GET routes
 * come first, as in the server's routeLabels: `/healthz` would also pass for a query name.
 */
export function routeLabel(path: string): string {
  if (GET_ROUTES.has(path)) return path;
  if (EXPLORER_PATH.test(path)) return path === '/' ? '/' : '/assets/{file}';
  return routeOf(path)?.label ?? 'other';
}

/**
 * The transport's onAnswer: every answer, the transport's own (413, framing 400) and the
 * head checks' refusals included, is counted for /metrics and written to the access log
 * at `info`, with the database and key name once the head checks passed.
 */
export function observeAnswers(logger: Logger, metrics: GatewayMetrics | undefined): AnswerListener {
  // Read once: the level is fixed for the gateway's life; below `info` an answer builds no log object.
  const accessLog = logger.isLevelEnabled('info');
  return (_method, path, requestId, status, body, seconds, context) => {
    if (metrics === undefined && !accessLog) return;
    const route = routeLabel(path);
    const code = codeOf(status, body);
    metrics?.requests.observe(route, status, code, seconds);
    if (!accessLog) return;
    const a = context as Admitted | undefined;
    const ms = Math.round(seconds * 1e6) / 1000;
    logger.info({ req_id: requestId, db: a?.database.id, key: a?.key.name, route, status, code, ms }, 'request');
  };
}

/** Headers of the MCP transport that the server's endpoint reads (Streamable HTTP). */
const MCP_HEADERS = ['accept', 'mcp-protocol-version'] as const;

/** Option headers in their canonical spelling, the request id, the body; never the key. */
function outgoingRequest(req: HttpRequest, a: Admitted): OutgoingRequest {
  const type = routeOf(req.path)?.kind === 'import' ? 'application/msgpack' : 'application/json';
  const headers: Record<string, string> = { 'content-type': type, [REQUEST_ID_HEADER]: a.requestId };
  const { options } = a;
  if (options.warm) headers['x-svc-warm'] = 'true';
  if (options.requireWriter) headers['x-svc-require-writer'] = 'true';
  if (options.awaitDurable !== undefined) headers['x-svc-await-durable'] = String(options.awaitDurable);
  if (req.path === MCP_ENDPOINT) {
    for (const name of MCP_HEADERS) {
      const value = req.headers.get(name);
      if (value !== undefined) headers[name] = value;
    }
  }
  return { path: req.path, headers, body: req.body };
}
