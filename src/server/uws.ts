/**
 * The HTTP transport on uWebSockets.js: the only file that knows uWS. It turns a uWS
 * request into an HttpRequest, refuses a body framing other parsers could read differently
 * (400 invalid_request_framing), enforces the body limit before buffering (DECISIONS D4),
 * and writes the handler's HttpResponse. What uWS drops before this code sees a request is
 * listed in the README ("Limits of the HTTP transport").
 *
 * uWS rules this code lives by: the request object is valid only during the callback,
 * body chunks are views of a buffer uWS reuses, an aborted response must never be written,
 * and an asynchronous answer needs onAborted registered before the callback returns.
 *
 * Observability hooks (both optional, both used by the server): `requestId` names each
 * request and the name goes back in `x-request-id` on every answer, this file's own
 * included; `onAnswer` hears of every answer written, for metrics and logs.
 */
import uws from 'uWebSockets.js';
import type { HttpRequest as UwsRequest, HttpResponse as UwsResponse, TemplatedApp } from 'uWebSockets.js';
import { REQUEST_ID_HEADER } from '../observe/log.js';
import { errorResponse } from './http-errors.js';
import { ambiguousLength, isValidResponse, methodName, unsafeTransferEncoding } from './http-framing.js';
import { statusLine } from './http-status.js';
import type { Handler, HttpRequest, HttpResponse } from './http-types.js';

/**
 * Hears of one answer written: the request's method and path (as sent), its id, the
 * status and body sent, and the seconds from the complete request (body read) to the
 * answer; for an answer this file gives before reading the body (413, 400 framing), from
 * the request's head; and what beforeBody left in HttpRequest.context, if the request got
 * that far (the gateway's key and database). Positional arguments, so that calling it
 * allocates nothing.
 */
export type AnswerListener = (
  method: string,
  path: string,
  requestId: string | undefined,
  status: number,
  body: string | Uint8Array,
  seconds: number,
  context?: unknown,
) => void;

export interface HttpServerOptions {
  host: string;
  /** 0 picks a free port; the chosen one is returned. */
  port: number;
  maxBodyBytes: number;
  handler: Handler;
  /**
   * Runs once the head of a request with a body is read, before any of the body is: an
   * answer here is sent without reading the body (what is sent is drained, up to a limit,
   * so the client can read the answer). The gateway authenticates here, so a client
   * without a valid key cannot make it buffer a body. What it sets on `context` reaches
   * the handler with the body.
   */
  beforeBody?: (req: HttpRequest) => HttpResponse | undefined;
  /** Called with whatever a handler threw, and the request's id; the client only sees a bare 500. Default: console.error. */
  onError?: (err: unknown, requestId: string | undefined) => void;
  /**
   * Gives each request its id, from the `x-request-id` it came with (undefined if none):
   * handlers see it as HttpRequest.id, and every answer carries it in `x-request-id`.
   * Without it, requests have no id and answers no such header.
   */
  requestId?: (incoming: string | undefined) => string;
  /** Called after every answer is written (not when the client left first). */
  onAnswer?: AnswerListener;
}

export interface HttpServer {
  readonly port: number;
  /** Stops listening and drops open connections. */
  close(): void;
}

const EMPTY = Buffer.alloc(0);
const INTERNAL_ERROR: HttpResponse = errorResponse('internal_error', 'internal error');

// req.forEach is synchronous, so module-level sinks avoid a closure per request.
let headerSink = new Map<string, string>();
/** The names seen more than once, with all their values; made only when a name repeats. */
let repeatSink: Map<string, string[]> | undefined;
function collectHeader(name: string, value: string): void {
  const first = headerSink.get(name);
  if (first === undefined) {
    headerSink.set(name, value);
    return;
  }
  repeatSink ??= new Map();
  const values = repeatSink.get(name);
  if (values === undefined) repeatSink.set(name, [first, value]);
  else values.push(value);
}
/** The first value of each header; the repeated ones are left in `repeatSink`. */
function readHeaders(req: UwsRequest): Map<string, string> {
  const headers = new Map<string, string>();
  headerSink = headers;
  repeatSink = undefined;
  req.forEach(collectHeader);
  return headers;
}

function byteLength(body: string | Uint8Array): number {
  return typeof body === 'string' ? Buffer.byteLength(body) : body.byteLength;
}

/** Must run inside res.cork() (or the request callback, which uWS corks itself). */
function emit(res: UwsResponse, response: HttpResponse, head: boolean, id: string | undefined): void {
  const { status, headers, body } = response;
  res.writeStatus(statusLine(status));
  if (id !== undefined) res.writeHeader(REQUEST_ID_HEADER, id);
  let hasType = false;
  if (headers !== undefined) {
    for (const name in headers) {
      const lower = name.toLowerCase();
      // uWS writes content-length itself; a second one would make the response invalid.
      if (lower === 'content-length') continue;
      // The transport's id wins over one a handler copied from elsewhere (a backend's answer).
      if (id !== undefined && lower === REQUEST_ID_HEADER) continue;
      if (lower === 'content-type') hasType = true;
      res.writeHeader(name, headers[name]!);
    }
  }
  if (status === 204 || status === 304) {
    res.endWithoutBody();
    return;
  }
  if (!hasType) res.writeHeader('content-type', 'application/json');
  if (head) {
    // endWithoutBody(n) in this uWS build leaves the connection waiting for n body bytes;
    // writing the header ourselves keeps keep-alive working.
    res.writeHeader('content-length', String(byteLength(body)));
    res.endWithoutBody();
  } else {
    res.end(body);
  }
}

// res.cork runs its callback synchronously, so these stand in for closure captures.
let corkRes: UwsResponse | undefined;
let corkResponse: HttpResponse = INTERNAL_ERROR;
let corkHead = false;
let corkClose = false;
let corkId: string | undefined;
function corkedEmit(): void {
  const res = corkRes!;
  try {
    if (corkClose) {
      res.writeStatus(statusLine(corkResponse.status));
      if (corkId !== undefined) res.writeHeader(REQUEST_ID_HEADER, corkId);
      res.writeHeader('content-type', 'application/json').end(corkResponse.body, true);
    } else {
      emit(res, corkResponse, corkHead, corkId);
    }
  } catch {
    // A header value uWS refuses, half-way through the head: only dropping the connection is honest.
    res.close();
  }
}
function send(res: UwsResponse, response: HttpResponse, head: boolean, id: string | undefined, close: boolean): void {
  corkRes = res;
  corkResponse = response;
  corkHead = head;
  corkClose = close;
  corkId = id;
  res.cork(corkedEmit);
  corkRes = undefined;
}

/**
 * Bodies up to this size are still read (and discarded) after a 413, so the client can
 * finish sending and read the answer: most HTTP/1.1 clients read a response only after
 * they have written the request, and a connection closed under them loses it. Larger
 * ones are cut off at once.
 */
const DRAIN_LIMIT = 64 * 1024 * 1024;

function tooLarge(msg: string): HttpResponse {
  return errorResponse('payload_too_large', msg);
}

/** One request whose answer is not written from inside the uWS callback. */
class Exchange {
  aborted = false;
  /** Set once a response went out (or the body overflowed); later chunks are ignored. */
  done = false;
  received = 0;
  buffer: Buffer | undefined;
  chunks: Buffer[] | undefined;

  constructor(
    readonly server: Server,
    readonly res: UwsResponse,
    readonly method: string,
    readonly path: string,
    readonly headers: ReadonlyMap<string, string>,
    readonly repeated: ReadonlyMap<string, readonly string[]> | undefined,
    /** The declared content-length, or -1 for a chunked body. */
    readonly expected: number,
    readonly id: string | undefined,
    /** performance.now() when the request was complete (until then, when its head came). */
    public started: number,
    /** What beforeBody set, for the handler. */
    readonly context?: unknown,
  ) {}

  onData(chunk: ArrayBuffer, isLast: boolean): void {
    if (this.aborted) return;
    if (this.done) {
      // Draining an oversized chunked body after its 413; past the drain limit, hang up.
      this.received += chunk.byteLength;
      if (this.received > DRAIN_LIMIT) {
        this.aborted = true;
        this.res.close();
      }
      return;
    }
    const n = chunk.byteLength;
    const total = this.received + n;
    const limit = this.server.maxBodyBytes;
    if (total > limit) {
      this.done = true;
      const response = tooLarge(`request body is at least ${total} bytes, the limit is ${limit} bytes`);
      this.server.reply(this.res, this.method, this.path, this.id, this.started, response, false, false, this.context);
      return;
    }
    if (n > 0) {
      if (this.buffer !== undefined) {
        this.buffer.set(new Uint8Array(chunk), this.received);
      } else if (isLast && this.chunks === undefined) {
        this.received = total;
        this.server.dispatch(this, Buffer.copyBytesFrom(new Uint8Array(chunk)));
        return;
      } else if (this.expected > 0 && this.received === 0) {
        this.buffer = Buffer.allocUnsafe(this.expected);
        this.buffer.set(new Uint8Array(chunk), 0);
      } else {
        (this.chunks ??= []).push(Buffer.copyBytesFrom(new Uint8Array(chunk)));
      }
    }
    this.received = total;
    if (!isLast) return;
    let body: Buffer;
    if (this.buffer !== undefined) body = total === this.buffer.length ? this.buffer : this.buffer.subarray(0, total);
    else if (this.chunks === undefined) body = EMPTY;
    else body = this.chunks.length === 1 ? this.chunks[0]! : Buffer.concat(this.chunks, total);
    this.server.dispatch(this, body);
  }

  respond(response: unknown): void {
    if (this.aborted || this.done) return;
    this.done = true;
    const valid = isValidResponse(response) ? response : this.server.invalid(response, this.id);
    this.server.reply(this.res, this.method, this.path, this.id, this.started, valid, this.method === 'HEAD', false, this.context);
  }

  fail(err: unknown): void {
    this.server.onError(err, this.id);
    this.respond(INTERNAL_ERROR);
  }
}

function isThenable(value: unknown): value is PromiseLike<unknown> {
  return typeof value === 'object' && value !== null && typeof (value as PromiseLike<unknown>).then === 'function';
}

class Server {
  constructor(
    readonly handler: Handler,
    readonly maxBodyBytes: number,
    readonly onError: (err: unknown, requestId: string | undefined) => void,
    readonly requestId: ((incoming: string | undefined) => string) | undefined,
    readonly onAnswer: AnswerListener | undefined,
    readonly beforeBody: ((req: HttpRequest) => HttpResponse | undefined) | undefined,
  ) {}

  /** beforeBody's answer, if any; a throw is a 500. */
  early(request: HttpRequest): HttpResponse | undefined {
    try {
      const answer = this.beforeBody!(request);
      return answer === undefined || isValidResponse(answer) ? answer : this.invalid(answer, request.id);
    } catch (err) {
      this.onError(err, request.id);
      return INTERNAL_ERROR;
    }
  }

  /**
   * Answers before the body is read: the body the client goes on sending is read and
   * dropped, up to the drain limit, then the connection is closed.
   */
  answerBeforeBody(res: UwsResponse, request: HttpRequest, started: number, response: HttpResponse): void {
    let received = 0;
    let aborted = false;
    res.onAborted(() => {
      aborted = true;
    });
    res.onData((chunk) => {
      if (aborted) return;
      received += chunk.byteLength;
      if (received > DRAIN_LIMIT) {
        aborted = true;
        res.close();
      }
    });
    this.reply(res, request.method, request.path, request.id, started, response, false, false);
  }

  invalid(response: unknown, id: string | undefined): HttpResponse {
    this.onError(new TypeError(`handler returned an invalid response: ${String(response)}`), id);
    return INTERNAL_ERROR;
  }

  /**
   * A request whose framing other HTTP parsers could read differently from uWS (request
   * smuggling): Content-Length headers that disagree (uWS frames the body by the first one,
   * a proxy in front may have used another), or a Transfer-Encoding other than a single
   * `chunked` (uWS reads any Transfer-Encoding as chunked). The handler never sees the
   * request; the answer is 400 and the connection is closed after it.
   *
   * The answer waits for the end of the current read (setImmediate): uWS goes on parsing the
   * bytes it already has after this callback returns, and a response written here would not
   * stop it from handing the next request of the same read to the handler. With this
   * response still pending, uWS closes the connection itself when it meets a next request
   * (what it does to every pipelined request): then the client gets no answer at all, but no
   * smuggled request runs.
   */
  badFraming(res: UwsResponse, method: string, path: string, id: string | undefined, started: number, msg: string): void {
    let aborted = false;
    res.onAborted(() => {
      aborted = true;
    });
    // uWS reads the body by its own framing; it is dropped.
    res.onData(() => undefined);
    setImmediate(() => {
      if (aborted) return;
      const response = errorResponse('invalid_request_framing', msg);
      this.reply(res, method, path, id, started, response, false, true);
    });
  }

  /** Writes an answer and tells onAnswer. */
  reply(
    res: UwsResponse,
    method: string,
    path: string,
    id: string | undefined,
    started: number,
    response: HttpResponse,
    head: boolean,
    close: boolean,
    context?: unknown,
  ): void {
    send(res, response, head, id, close);
    if (this.onAnswer !== undefined) {
      this.onAnswer(method, path, id, response.status, response.body, (performance.now() - started) / 1000, context);
    }
    response.sent?.();
  }

  readonly onRequest = (res: UwsResponse, req: UwsRequest): void => {
    const started = performance.now();
    const raw = req.getMethod();
    const method = methodName(raw);
    const path = req.getUrl();
    const headers = readHeaders(req);
    const repeated = repeatSink;
    const id = this.requestId === undefined ? undefined : this.requestId(headers.get(REQUEST_ID_HEADER));
    if (repeated !== undefined) {
      repeatSink = undefined;
      const ambiguous = ambiguousLength(repeated);
      if (ambiguous !== null) {
        this.badFraming(res, method, path, id, started, ambiguous);
        return;
      }
    }
    if (method === 'GET' || method === 'HEAD') {
      this.answerNow(res, { method, path, headers, repeated, body: EMPTY, id }, started);
      return;
    }
    let context: unknown;
    if (this.beforeBody !== undefined) {
      const head: HttpRequest = { method, path, headers, repeated, body: EMPTY, id };
      const answer = this.early(head);
      if (answer !== undefined) {
        this.answerBeforeBody(res, head, started, answer);
        return;
      }
      context = head.context;
    }
    let expected = -1;
    const length = headers.get('content-length');
    if (length !== undefined) {
      expected = Number(length);
      if (expected > this.maxBodyBytes) {
        const drain = expected <= DRAIN_LIMIT;
        if (drain) {
          // Handlers must be in place before the response ends the uWS request object.
          res.onAborted(() => undefined);
          res.onData(() => undefined);
        }
        const response = tooLarge(`request body is ${expected} bytes, the limit is ${this.maxBodyBytes} bytes`);
        this.reply(res, method, path, id, started, response, false, !drain, context);
        return;
      }
      if (!Number.isSafeInteger(expected)) expected = -1;
    } else {
      const unsafe = unsafeTransferEncoding(headers, repeated);
      if (unsafe !== null) {
        this.badFraming(res, method, path, id, started, unsafe);
        return;
      }
    }
    const exchange = new Exchange(this, res, method, path, headers, repeated, expected, id, started, context);
    res.onAborted(() => {
      exchange.aborted = true;
    });
    res.onData((chunk, isLast) => exchange.onData(chunk, isLast));
  };

  /** Bodiless requests: a synchronous handler is answered without any per-request state. */
  answerNow(res: UwsResponse, request: HttpRequest, started: number): void {
    const { method, path, id } = request;
    let result: ReturnType<Handler>;
    try {
      result = this.handler(request);
    } catch (err) {
      this.onError(err, id);
      this.reply(res, method, path, id, started, INTERNAL_ERROR, method === 'HEAD', false);
      return;
    }
    if (isThenable(result)) {
      const exchange = new Exchange(this, res, method, path, request.headers, request.repeated, 0, id, started);
      res.onAborted(() => {
        exchange.aborted = true;
      });
      result.then(
        (response) => exchange.respond(response),
        (err: unknown) => exchange.fail(err),
      );
      return;
    }
    this.reply(res, method, path, id, started, isValidResponse(result) ? result : this.invalid(result, id), method === 'HEAD', false);
  }

  dispatch(exchange: Exchange, body: Buffer): void {
    exchange.started = performance.now();
    const { method, path, headers, repeated, id, context } = exchange;
    const request: HttpRequest = { method, path, headers, repeated, body, id, context };
    let result: ReturnType<Handler>;
    try {
      result = this.handler(request);
    } catch (err) {
      exchange.fail(err);
      return;
    }
    if (isThenable(result)) {
      result.then(
        (response) => exchange.respond(response),
        (err: unknown) => exchange.fail(err),
      );
    } else {
      exchange.respond(result);
    }
  }
}

function defaultOnError(err: unknown): void {
  console.error('trellis: request handler failed:', err);
}

/**
 * uSockets' LIBUS_LISTEN_EXCLUSIVE_PORT. By default uSockets sets SO_REUSEPORT, and then a
 * second server of the same user on a taken port starts too and the kernel splits the
 * connections between the two (two databases answering at one address, seen with two
 * Trellis servers). Exclusive, a taken port is refused; SO_REUSEADDR is set either way, so
 * a server restarted on its port binds at once despite its closed connections' TIME_WAIT.
 */
const LISTEN_EXCLUSIVE_PORT = 1;

type ListenCallback = (listenSocket: uws.us_listen_socket | false) => void;

/** `app.listen(host, port, options, cb)`: the build has it; its .d.ts lacks this overload. */
function listenExclusive(app: TemplatedApp, host: string, port: number, cb: ListenCallback): void {
  const listen = app.listen as unknown as (host: string, port: number, options: number, cb: ListenCallback) => TemplatedApp;
  listen.call(app, host, port, LISTEN_EXCLUSIVE_PORT, cb);
}

export function startHttpServer(opts: HttpServerOptions): Promise<HttpServer> {
  const server = new Server(
    opts.handler,
    opts.maxBodyBytes,
    opts.onError ?? defaultOnError,
    opts.requestId,
    opts.onAnswer,
    opts.beforeBody,
  );
  const app: TemplatedApp = uws.App();
  app.any('/*', server.onRequest);
  return new Promise((resolve, reject) => {
    listenExclusive(app, opts.host, opts.port, (listenSocket) => {
      if (listenSocket === false) {
        reject(
          new Error(
            `cannot listen on ${opts.host}:${opts.port}: the address is in use or not available; stop the process using it, or choose another port or host`,
          ),
        );
        return;
      }
      let open = true;
      resolve({
        port: uws.us_socket_local_port(listenSocket),
        close() {
          if (!open) return;
          open = false;
          uws.us_listen_socket_close(listenSocket);
          // App.close (present in this build, missing from its .d.ts) also drops keep-alive
          // connections, which would otherwise keep the process alive.
          (app as TemplatedApp & { close?: () => void }).close?.();
        },
      });
    });
  });
}
