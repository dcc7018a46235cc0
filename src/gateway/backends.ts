/**
 * The database servers behind the gateway, and forwarding to them (docs/gateway.md,
 * "Routing and retries"). Each server has one undici Pool of kept-alive connections.
 *
 * Writes, and reads with X-Svc-Require-Writer, go to the database's writer. Other reads go
 * to the reader or writer with the fewest requests in flight, skipping servers that failed
 * in the last second. A read that fails on one server (no connection, a connection lost
 * before the answer, the server not ready) is sent to the next one while the attempt
 * budget lasts; the client's token was spent once, at admission, and retries are free.
 * A write is only ever resent when the writer refused the connection, so the write cannot
 * have reached it; once sent, a lost answer means the outcome is unknown, and the client
 * is told so rather than the write being sent twice.
 *
 * Replicas (docs/replication.md): each answer's X-Trellis-Lsn, and a poll of every reader's
 * GET /readyz (REPLICA_POLL_MS), tell which LSN a server has applied and whether it is
 * within its lag bound. A replica that is not ready gets no reads; a read with a minimum LSN
 * (read-your-writes) goes to a server known to have applied it, the writer otherwise.
 */
import { Pool } from 'undici';
import type { DatabaseConfig } from './config.js';

export type Role = 'writer' | 'reader';

export interface BackendAnswer {
  status: number;
  contentType: string | undefined;
  retryAfter: string | undefined;
  /** X-Trellis-Lsn of the answer: the LSN it reflects (docs/replication.md). */
  lsn: string | undefined;
  body: Buffer;
}

export interface OutgoingRequest {
  /** POST unless said otherwise (GET /openapi.json sends no body). */
  method?: 'GET' | 'POST';
  path: string;
  /** Headers to send (lowercase names); the gateway has dropped `authorization` and hop-by-hop ones. */
  headers: Record<string, string>;
  body: Buffer;
}

export type ForwardOutcome = { kind: 'answer'; answer: BackendAnswer } | { kind: 'timeout' } | { kind: 'unavailable'; msg: string };

/** How long a server that failed is skipped, unless nothing else is left. */
const COOLDOWN_MS = 1000;
/** Below uWS's 10 s idle timeout, so the pool drops a connection before the server does. */
const KEEP_ALIVE_MS = 4000;
const CONNECT_TIMEOUT_MS = 2000;
/** Connections per server: enough for a gateway's concurrent requests on this hardware. */
const CONNECTIONS = 128;

/** Errors that mean the request never reached the server: safe to send again, even a write. */
const NOT_SENT = new Set(['ECONNREFUSED', 'UND_ERR_CONNECT_TIMEOUT', 'ENOTFOUND', 'EHOSTUNREACH', 'ENETUNREACH', 'EAI_AGAIN']);

/** Backend answers that say "not me, try another" for a read. */
const TRY_ANOTHER = /^\s*\{\s*"error"\s*:\s*"(not_ready|writer_mode_required|lsn_not_reached)"/;
/** How often every reader's GET /readyz is polled (its applied LSN and readiness), and how long a poll may take. */
export const REPLICA_POLL_MS = 200;
const POLL_TIMEOUT_MS = 1000;
export const LSN_HEADER = 'x-trellis-lsn';
export const MIN_LSN_HEADER = 'x-trellis-min-lsn';

export class Backend {
  readonly pool: Pool;
  inFlight = 0;
  private downUntil = 0;
  /**
   * A replica: it holds a copy that may lag, where a `--mode reader` server reads the
   * writer's own folder. Until its first /readyz poll says which, a reader counts as one.
   */
  replica: boolean;
  /** The highest LSN this server is known to have applied (replicas). */
  lsn = 0;
  /** False while its last /readyz poll failed or answered 503 (a replica past its lag bound). */
  ready = true;

  constructor(
    readonly database: string,
    readonly url: string,
    readonly role: Role,
  ) {
    this.replica = role === 'reader';
    this.pool = new Pool(url, {
      connections: CONNECTIONS,
      pipelining: 1,
      keepAliveTimeout: KEEP_ALIVE_MS,
      keepAliveMaxTimeout: KEEP_ALIVE_MS,
      connect: { timeout: CONNECT_TIMEOUT_MS },
    });
  }

  get up(): boolean {
    return performance.now() >= this.downUntil;
  }

  markDown(): void {
    this.downUntil = performance.now() + COOLDOWN_MS;
  }

  markUp(): void {
    this.downUntil = 0;
  }

  /** An answer's X-Trellis-Lsn: this server is a replica that has applied at least that. */
  noteLsn(text: string | undefined): void {
    if (text === undefined) return;
    const lsn = Number(text);
    if (Number.isSafeInteger(lsn) && lsn > this.lsn) this.lsn = lsn;
  }

  /** Whether a read that needs LSN `minLsn` may go here: the writer always; a replica that is ready and has applied it. */
  serves(minLsn: number): boolean {
    if (this.role === 'writer') return true;
    return this.ready && (!this.replica || this.lsn >= minLsn);
  }
}

export interface FailureReport {
  backend: Backend;
  reason: string;
}

/** An abort signal that fires at `deadline` (a performance.now() time). */
function untilDeadline(deadline: number): AbortSignal {
  return AbortSignal.timeout(Math.max(1, Math.ceil(deadline - performance.now())));
}

function errorCode(err: unknown): string {
  const e = err as { code?: unknown; cause?: { code?: unknown } };
  if (typeof e?.code === 'string') return e.code;
  if (typeof e?.cause?.code === 'string') return e.cause.code;
  return err instanceof Error ? err.name : 'unknown';
}

function headerText(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

export class DatabaseBackends {
  readonly writer: Backend;
  /** The readers and the writer: every server that can answer a read. */
  readonly all: readonly Backend[];
  private turn = 0;

  private poller: NodeJS.Timeout | null = null;

  constructor(config: DatabaseConfig) {
    this.writer = new Backend(config.id, config.writer, 'writer');
    this.all = [...config.readers.map((url) => new Backend(config.id, url, 'reader')), this.writer];
  }

  /** Whether a read needs the LSN token (some reader turned out to be a replica). */
  get hasReplicas(): boolean {
    return this.all.some((b) => b.replica);
  }

  /** Starts polling the readers' GET /readyz (their readiness and applied LSN). */
  watch(): void {
    if (this.poller !== null || this.all.length === 1) return;
    const readers = this.all.filter((b) => b.role === 'reader');
    let busy = false;
    this.poller = setInterval(() => {
      if (busy) return;
      busy = true;
      void Promise.all(readers.map((b) => pollReady(b))).finally(() => (busy = false));
    }, REPLICA_POLL_MS);
    this.poller.unref();
  }

  /**
   * The next server for a read: up ones first, fewest in flight, ties taken in turn; only
   * servers that serve `minLsn` (Backend.serves: never a replica past its lag bound).
   */
  pickRead(tried: ReadonlySet<Backend>, minLsn = 0): Backend | undefined {
    const n = this.all.length;
    let best: Backend | undefined;
    const start = this.turn++ % n;
    for (let i = 0; i < n; i++) {
      const b = this.all[(start + i) % n]!;
      if (tried.has(b) || !b.serves(minLsn)) continue;
      if (best === undefined || (b.up && !best.up) || (b.up === best.up && b.inFlight < best.inFlight)) best = b;
    }
    return best;
  }

  async close(): Promise<void> {
    if (this.poller !== null) clearInterval(this.poller);
    await Promise.all(this.all.map((b) => b.pool.close()));
  }
}

/** One poll of a reader's GET /readyz: 200 ready, anything else (503, no answer in time) not. */
async function pollReady(b: Backend): Promise<void> {
  try {
    const res = await b.pool.request({ path: '/readyz', method: 'GET', signal: AbortSignal.timeout(POLL_TIMEOUT_MS) });
    const health = (await res.body.json().catch(() => ({}))) as { mode?: unknown };
    b.replica = health.mode === 'replica';
    b.noteLsn(headerText(res.headers[LSN_HEADER]));
    b.ready = res.statusCode === 200;
  } catch {
    b.ready = false;
  }
}

export class Forwarder {
  constructor(private readonly onFailure: (report: FailureReport) => void = () => undefined) {}

  /** A failed attempt: the server is skipped for a while, and the failure reported; returns its reason. */
  private failed(backend: Backend, reason: string): string {
    backend.markDown();
    this.onFailure({ backend, reason });
    return reason;
  }

  /** One attempt on one server; throws what undici threw. */
  private async attempt(backend: Backend, req: OutgoingRequest, signal: AbortSignal): Promise<BackendAnswer> {
    backend.inFlight++;
    try {
      const method = req.method ?? 'POST';
      const res = await backend.pool.request({
        path: req.path,
        method,
        headers: req.headers,
        body: method === 'GET' ? undefined : req.body,
        signal,
      });
      const body = Buffer.from(await res.body.arrayBuffer());
      backend.noteLsn(headerText(res.headers[LSN_HEADER]));
      return {
        status: res.statusCode,
        contentType: headerText(res.headers['content-type']),
        retryAfter: headerText(res.headers['retry-after']),
        lsn: headerText(res.headers[LSN_HEADER]),
        body,
      };
    } finally {
      backend.inFlight--;
    }
  }

  /**
   * Sends a request that must reach the writer (a write, or X-Svc-Require-Writer). It is
   * sent again once, 100 ms later, only when the writer refused the connection (it may be
   * restarting): a refused request cannot have run.
   */
  async toWriter(backends: DatabaseBackends, req: OutgoingRequest, deadline: number): Promise<ForwardOutcome> {
    const writer = backends.writer;
    const signal = untilDeadline(deadline);
    for (let attempt = 1; ; attempt++) {
      try {
        const answer = await this.attempt(writer, req, signal);
        writer.markUp();
        return { kind: 'answer', answer };
      } catch (err) {
        if (signal.aborted) return { kind: 'timeout' };
        const code = this.failed(writer, errorCode(err));
        if (!NOT_SENT.has(code)) {
          return {
            kind: 'unavailable',
            msg: `the writer of database "${writer.database}" lost the connection before answering (${code}); the request's outcome is unknown`,
          };
        }
        if (attempt === 2 || performance.now() + 100 >= deadline) {
          return {
            kind: 'unavailable',
            msg: `the writer of database "${writer.database}" is not reachable (${code}); nothing was sent to it`,
          };
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    }
  }

  /**
   * Sends a read to one server after another until one answers or the deadline passes;
   * `minLsn` > 0 (read-your-writes): only to servers that have applied it.
   */
  async read(backends: DatabaseBackends, req: OutgoingRequest, deadline: number, minLsn = 0): Promise<ForwardOutcome> {
    const tried = new Set<Backend>();
    const signal = untilDeadline(deadline);
    let last: ForwardOutcome = { kind: 'unavailable', msg: `no server of database "${backends.writer.database}" could take the request` };
    for (let backend = backends.pickRead(tried, minLsn); backend !== undefined; backend = backends.pickRead(tried, minLsn)) {
      tried.add(backend);
      try {
        const answer = await this.attempt(backend, req, signal);
        if (answer.status === 503 && TRY_ANOTHER.test(answer.body.toString('latin1', 0, 64))) {
          this.failed(backend, 'not_ready');
          last = { kind: 'answer', answer };
          continue;
        }
        backend.markUp();
        return { kind: 'answer', answer };
      } catch (err) {
        if (signal.aborted) return { kind: 'timeout' };
        const reason = this.failed(backend, errorCode(err));
        last = {
          kind: 'unavailable',
          msg: `no server of database "${backend.database}" could take the request (last: ${backend.role} ${backend.url}, ${reason})`,
        };
      }
    }
    return last;
  }

  /**
   * A warming read on every server that can take it (the writer alone with
   * X-Svc-Require-Writer), in parallel. 204 when at least one succeeded.
   */
  async warm(
    backends: DatabaseBackends,
    writerOnly: boolean,
    req: OutgoingRequest,
    deadline: number,
  ): Promise<ForwardOutcome | { kind: 'warmed' }> {
    const targets = (writerOnly ? [backends.writer] : backends.all).filter((b) => b.up);
    if (targets.length === 0) return { kind: 'unavailable', msg: `no server of database "${backends.writer.database}" is up to warm` };
    const signal = untilDeadline(deadline);
    const results = await Promise.all(
      targets.map(async (backend): Promise<ForwardOutcome> => {
        try {
          const answer = await this.attempt(backend, req, signal);
          return { kind: 'answer', answer };
        } catch (err) {
          if (signal.aborted) return { kind: 'timeout' };
          const reason = this.failed(backend, errorCode(err));
          return { kind: 'unavailable', msg: `warming failed on ${backend.role} ${backend.url} (${reason})` };
        }
      }),
    );
    if (results.some((r) => r.kind === 'answer' && r.answer.status === 200)) return { kind: 'warmed' };
    // Every target failed: the first deterministic answer (an error body from a server) wins.
    return results.find((r) => r.kind === 'answer') ?? results.find((r) => r.kind === 'timeout') ?? results[0]!;
  }
}
