/**
 * The gateway's distributed rate limiter and credit state (docs/gateway.md, "Rate limit and credit").
 *
 * One token bucket per database lives in Redis, shared by every gateway replica and every
 * API key. An admission is one round trip: one Lua script (limiter-script.ts) checks the
 * database's credit, then takes a token. The limiter fails closed: when Redis is down,
 * errs or is slower than the deadline, the answer is 'unavailable' (503), never a wait.
 *
 * A busy replica of a fast bucket reserves tokens ahead of demand (LimiterOptions.reserveMs):
 * at most what the bucket refills in reserveMs, only from above half the burst, sized by
 * the demand it has seen, and dropped when not used within reserveMs. Its admissions then
 * take a reserved token without a round trip, and one script call serves many requests.
 * Each admitted request still costs exactly one token; a dropped reserve costs the bucket
 * at most reserveMs of refill, and a held one may let the replicas admit as much above the
 * exact bucket, as it escapes the burst cap (docs/gateway.md, "Token reserves").
 *
 * Redis keys (the database id sits in a hash tag, so both keys of one database share a
 * Redis Cluster slot):
 *   `${prefix}bucket:{<db>}`  hash {tokens, ts_us}, expiring once idle long enough to refill
 *   `${prefix}credit:{<db>}`  string 'exhausted' when the credit is exhausted; absent = has credit
 */
import { Redis } from 'ioredis';
import { ADMIT_LUA, PEEK_LUA } from './limiter-script.js';
import {
  type Admission,
  type BucketLimits,
  decodeAdmissions,
  liveReserve,
  newLane,
  reserveWanted,
  settle,
  type Lane,
} from './limiter-lane.js';
import { messageOf } from '../core/errors.js';

export { type Admission, type BucketLimits, retryAfterSeconds } from './limiter-lane.js';

export interface LimiterOptions {
  /**
   * redis://[[user]:password@]host[:port][/db], rediss:// for TLS, or
   * unix:///path/to/redis.sock[?db=N&password=P] for a Redis on the same host.
   */
  url: string;
  /** Prefix of every key; default 'trellis:'. Must not contain '{' or '}' (hash tags). */
  keyPrefix?: string;
  /** The most an admission waits for Redis before answering 'unavailable'; default 50 ms. */
  deadlineMs?: number;
  /** Connection errors, many while Redis is down (one per reconnect attempt); default: ignored. */
  onError?: (err: Error) => void;
  /**
   * How long a reserved token stays usable, and so how much a replica may reserve: at
   * most rate x reserveMs tokens (none for a bucket slower than 1000 / reserveMs per
   * second). Default 10 ms; 0 sends every admission to Redis.
   */
  reserveMs?: number;
}

export const CREDIT_EXHAUSTED = 'exhausted';
const DEFAULT_PREFIX = 'trellis:';
export const DEFAULT_DEADLINE_MS = 50;
export const DEFAULT_RESERVE_MS = 10;
const DEFAULT_READY_TIMEOUT_MS = 5000;
/** Operator calls (setDisabled, isDisabled, peek) are not on the request path: a longer deadline. */
const OPS_DEADLINE_MS = 2000;
/** Idle buckets live twice their full refill time plus this, then vanish (a missing bucket is full). */
const TTL_MARGIN_MS = 1000;
/** PEXPIRE must stay in range for absurd limits (rate 1e-12): about 35 years is forever enough. */
const MAX_TTL_MS = 2 ** 40;

interface LimiterCommands {
  trellisAdmit(
    creditKey: string,
    bucketKey: string,
    rate: string,
    burst: string,
    ttlMs: string,
    n: string,
    reserve: string,
  ): Promise<unknown>;
  trellisPeek(bucketKey: string, rate: string, burst: string): Promise<unknown>;
}

export class RedisLimiter {
  private readonly redis: Redis;
  private readonly commands: LimiterCommands;
  private readonly prefix: string;
  private readonly deadlineMs: number;
  private readonly reserveMs: number;
  private readonly safeUrl: string;
  private lastError: Error | undefined;
  private readonly lanes = new Map<string, Lane>();
  private closed = false;

  constructor(opts: LimiterOptions) {
    this.prefix = opts.keyPrefix ?? DEFAULT_PREFIX;
    if (/[{}]/.test(this.prefix)) throw new TypeError(`keyPrefix must not contain '{' or '}' (Redis Cluster hash tags): ${this.prefix}`);
    this.deadlineMs = opts.deadlineMs ?? DEFAULT_DEADLINE_MS;
    if (!(Number.isFinite(this.deadlineMs) && this.deadlineMs > 0)) throw new TypeError(`deadlineMs must be a positive number`);
    this.reserveMs = opts.reserveMs ?? DEFAULT_RESERVE_MS;
    if (!(Number.isFinite(this.reserveMs) && this.reserveMs >= 0)) throw new TypeError(`reserveMs must be a number >= 0`);
    this.safeUrl = redactUrl(opts.url);
    this.redis = new Redis(connectionTarget(opts.url), {
      // A command while disconnected fails at once instead of waiting in a queue: the
      // limiter answers 'unavailable' and the client retries, rather than piling up here.
      enableOfflineQueue: false,
      // Commands in flight when the connection drops are rejected, not retried on the next
      // connection, and not resent after reconnecting: a resent admission would spend a
      // token for a request that was already answered 503.
      maxRetriesPerRequest: 0,
      autoResendUnfulfilledCommands: false,
      // Reconnect forever, quickly: admissions recover on their own once Redis is back.
      retryStrategy: (times) => Math.min(times * 50, 500),
      // A connection attempt that hangs (a host that drops packets) is abandoned and retried.
      connectTimeout: 2000,
      // A connection that stops answering (a failed-over host, a dropped route: TCP itself
      // would take minutes to notice) is destroyed and reconnected after this long
      // without a byte while commands wait. Admissions fail closed meanwhile.
      socketTimeout: Math.max(1000, this.deadlineMs * 20),
      // No auto-pipelining: admit() already sends one call per bucket at a time, holding the
      // others for the next call, so a pipeline would carry one command and only add its
      // own objects (measured: 18.7 against 10.1 µs of gateway CPU per admission at 32 in flight).
    });
    // Without a listener ioredis would raise 'error' as an uncaught exception.
    this.redis.on('error', (err: Error) => {
      this.lastError = err;
      opts.onError?.(err);
    });
    // EVALSHA, falling back to EVAL on NOSCRIPT (a restarted or flushed Redis); ioredis
    // also sends EVAL the first time on each new connection, so it is always one trip.
    this.redis.defineCommand('trellisAdmit', { numberOfKeys: 2, lua: ADMIT_LUA });
    this.redis.defineCommand('trellisPeek', { numberOfKeys: 1, lua: PEEK_LUA, readOnly: true });
    this.commands = this.redis as unknown as LimiterCommands;
  }

  /** Whether the connection to Redis is up now (the gateway's readiness). */
  connected(): boolean {
    return this.redis.status === 'ready';
  }

  /** Resolves once connected, or rejects after a timeout with a clear message naming the URL (used at gateway start-up). */
  ready(timeoutMs = DEFAULT_READY_TIMEOUT_MS): Promise<void> {
    if (this.redis.status === 'ready') return Promise.resolve();
    if (this.closed) return Promise.reject(new Error(`rate limiter for Redis at ${this.safeUrl} is closed`));
    return new Promise<void>((resolve, reject) => {
      const settle = (err?: Error) => {
        clearTimeout(timer);
        this.redis.off('ready', onReady);
        this.redis.off('end', onEnd);
        if (err) reject(err);
        else resolve();
      };
      const onReady = () => settle();
      const onEnd = () => settle(new Error(`rate limiter for Redis at ${this.safeUrl} was closed before it connected`));
      const timer = setTimeout(() => {
        const cause = this.lastError ? ` (last error: ${this.lastError.message})` : '';
        settle(new Error(`could not connect to Redis at ${this.safeUrl} within ${timeoutMs} ms${cause}`));
      }, timeoutMs);
      this.redis.on('ready', onReady);
      this.redis.on('end', onEnd);
    });
  }

  /**
   * Takes one token from the database's bucket. Never rejects for Redis' sake (a Redis
   * failure is { kind: 'unavailable' }); rejects with a TypeError for invalid arguments,
   * which the gateway's configuration check rules out at start-up.
   *
   * One script call at a time per bucket: admissions that arrive while a call is in flight
   * wait for it and then go together in the next call (ARGV n), which spends for them as
   * that many calls in a row would. An idle gateway sends each admission at the end of the
   * event-loop turn that asked for it; a busy one sends fewer, larger calls, which is what
   * keeps the limiter's cost down at load.
   * Every admission keeps its own deadline, counted from this call.
   *
   * An admission that finds a live reserved token takes it and is answered at once; when
   * the reserve falls to half of what the last call brought, the next call is sent ahead
   * of need (a top-up, which may carry no admission).
   */
  admit(database: string, limits: BucketLimits): Promise<Admission> {
    try {
      checkDatabase(database);
      checkLimits(limits);
    } catch (err) {
      return Promise.reject(err);
    }
    const laneKey = `${database}\u0000${limits.rate}\u0000${limits.burst}`;
    let lane = this.lanes.get(laneKey);
    if (lane === undefined) {
      lane = newLane(database, limits, this.reserveMs);
      this.lanes.set(laneKey, lane);
    }
    const target = lane;
    target.demand++;
    if (liveReserve(target, performance.now()) > 0) {
      target.reserve--;
      if (target.reserve <= target.topUpAt) this.scheduleFlush(target);
      return Promise.resolve({ kind: 'admitted', tokensLeft: target.tokensSeen + target.reserve });
    }
    return new Promise<Admission>((resolve) => {
      target.queue.push({ resolve, settled: false, deadline: performance.now() + this.deadlineMs });
      if (target.timer === undefined) this.armDeadline(target);
      this.scheduleFlush(target);
    });
  }

  /**
   * One timer per lane, not per admission: it fires at the oldest waiting admission's
   * deadline, answers every admission past its deadline 'unavailable', and is set again for
   * the oldest left. The verdict waits for the I/O of the turn the timer fires in: the
   * answer may sit unread in the socket because this process was busy (timers run before I/O).
   */
  private armDeadline(lane: Lane): void {
    const oldest = lane.inFlight.find((w) => !w.settled) ?? lane.queue.find((w) => !w.settled);
    if (oldest === undefined) return;
    lane.timer = setTimeout(
      () =>
        setImmediate(() => {
          lane.timer = undefined;
          const now = performance.now();
          const expired = { kind: 'unavailable', reason: `Redis did not answer within ${this.deadlineMs} ms` } as const;
          for (const w of lane.inFlight) if (w.deadline <= now) settle(w, expired);
          for (const w of lane.queue) if (w.deadline <= now) settle(w, expired);
          this.armDeadline(lane);
        }),
      Math.max(0, oldest.deadline - performance.now()),
    );
  }

  /**
   * Sends the lane's waiting admissions once no call is in flight, at the end of this
   * event-loop turn (setImmediate runs after the turn's I/O): every admission the turn's
   * requests ask for goes in one call, and the write to Redis, which wakes Redis and may
   * hand it this core, comes after the turn's other work instead of in its middle.
   */
  private scheduleFlush(lane: Lane): void {
    if (lane.flushing || lane.calling) return;
    if (lane.queue.length === 0 && lane.reserve > lane.topUpAt) return;
    lane.flushing = true;
    setImmediate(() => {
      lane.flushing = false;
      this.flush(lane);
    });
  }

  /** Sends the lane's waiting admissions as one script call, with the reserve it asks for. */
  private flush(lane: Lane): void {
    const batch = lane.queue.filter((w) => !w.settled);
    lane.queue = [];
    const now = performance.now();
    liveReserve(lane, now);
    const reserve = reserveWanted(lane, now, this.reserveMs);
    if (batch.length === 0 && reserve === 0) {
      lane.topUpAt = -1; // demand fell: no more top-ups until admissions wait again
      return;
    }
    lane.calling = true;
    lane.inFlight = batch;
    // Demand is measured over at least reserveMs, so a few requests close together on an
    // idle gateway do not look like a high rate.
    if (now - lane.demandSince >= this.reserveMs) {
      lane.demand = 0;
      lane.demandSince = now;
    }
    const { rate, burst } = lane.limits;
    const ttlMs = Math.min(MAX_TTL_MS, Math.ceil((burst / rate) * 1000 * 2) + TTL_MARGIN_MS);
    this.commands
      .trellisAdmit(
        this.creditKey(lane.database),
        this.bucketKey(lane.database),
        String(rate),
        String(burst),
        String(ttlMs),
        String(batch.length),
        String(reserve),
      )
      .then(
        (reply) => {
          const answer = decodeAdmissions(reply, rate, batch);
          if (answer.tokens !== undefined) lane.tokensSeen = Math.floor(answer.tokens);
          if (answer.disabled) lane.reserve = 0;
          if (answer.reserved > 0) {
            lane.reserve += answer.reserved;
            // Counted from the send, not the reply: a reply read late (a busy event loop)
            // does not stretch how long a reserve outlives the bucket's last word.
            lane.reserveUntil = now + this.reserveMs;
            lane.topUpAt = Math.floor(lane.reserve / 2);
            this.serveFromReserve(lane);
          } else lane.topUpAt = -1; // no more top-ups until a call that waits for admissions brings a reserve
        },
        (err: unknown) => {
          const reason = `Redis error: ${messageOf(err)}`;
          for (const w of batch) settle(w, { kind: 'unavailable', reason });
          lane.topUpAt = -1;
        },
      )
      .finally(() => {
        lane.calling = false;
        lane.inFlight = [];
        this.scheduleFlush(lane);
      });
  }

  /** Admissions that queued while the call was in flight take the tokens it reserved, in order. */
  private serveFromReserve(lane: Lane): void {
    if (lane.queue.length === 0 || liveReserve(lane, performance.now()) === 0) return;
    let served = 0;
    for (const w of lane.queue) {
      if (lane.reserve === 0) break;
      served++;
      if (w.settled) continue;
      lane.reserve--;
      settle(w, { kind: 'admitted', tokensLeft: lane.tokensSeen + lane.reserve });
    }
    lane.queue = lane.queue.slice(served);
  }

  /** Credit state, for operators, tests and the `gateway credit` command: disabled=true means credit exhausted. */
  async setDisabled(database: string, disabled: boolean): Promise<void> {
    checkDatabase(database);
    const key = this.creditKey(database);
    await withDeadline<unknown>(disabled ? this.redis.set(key, CREDIT_EXHAUSTED) : this.redis.del(key), OPS_DEADLINE_MS);
  }

  async isDisabled(database: string): Promise<boolean> {
    checkDatabase(database);
    return (await withDeadline(this.redis.get(this.creditKey(database)), OPS_DEADLINE_MS)) === CREDIT_EXHAUSTED;
  }

  /** The bucket's current tokens after refill (for tests/ops), or undefined when the bucket does not exist. */
  async peek(database: string, limits: BucketLimits): Promise<number | undefined> {
    checkDatabase(database);
    checkLimits(limits);
    const reply = await withDeadline(
      this.commands.trellisPeek(this.bucketKey(database), String(limits.rate), String(limits.burst)),
      OPS_DEADLINE_MS,
    );
    if (reply === null) return undefined;
    const tokens = Number(reply);
    if (typeof reply !== 'string' || !Number.isFinite(tokens)) throw new Error(`unexpected reply from the peek script: ${String(reply)}`);
    return tokens;
  }

  /** Closes the connection; pending calls settle (admissions as 'unavailable'). */
  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    if (this.redis.status === 'ready') {
      // QUIT lets replies already on their way arrive; a Redis that does not answer gets cut off.
      await withDeadline(this.redis.quit(), OPS_DEADLINE_MS).catch(() => undefined);
    }
    this.redis.disconnect();
  }

  private bucketKey(database: string): string {
    return `${this.prefix}bucket:{${database}}`;
  }

  private creditKey(database: string): string {
    return `${this.prefix}credit:{${database}}`;
  }
}

function checkLimits(limits: BucketLimits): void {
  const rate = limits?.rate;
  const burst = limits?.burst;
  if (typeof rate !== 'number' || !Number.isFinite(rate) || rate <= 0) throw new TypeError(`rate must be a finite number > 0, got ${rate}`);
  if (typeof burst !== 'number' || !Number.isFinite(burst) || burst < 1)
    throw new TypeError(`burst must be a finite number >= 1, got ${burst}`);
}

function checkDatabase(database: string): void {
  if (typeof database !== 'string' || database.length === 0) throw new TypeError('the database id must be a non-empty string');
}

/**
 * Races a Redis call with a timer, so the deadline bounds every call whatever ioredis is
 * doing: the promise, or an Error once `ms` passed. When the timer fires, the answer may
 * already sit in the socket, unread because this process was busy (timers run before I/O
 * in an event-loop turn): the verdict waits for the I/O of that turn (setImmediate), so a
 * gateway under load does not fail closed for its own lateness.
 */
export function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => setImmediate(() => reject(new Error(`Redis did not answer within ${ms} ms`))), ms);
    promise.then(
      (value) => {
        clearTimeout(timer);
        resolve(value);
      },
      (err: unknown) => {
        clearTimeout(timer);
        reject(err);
      },
    );
  });
}

/**
 * What ioredis connects to: a redis:// or rediss:// URL as it is; for unix:///path?query,
 * the path with its query, which ioredis reads as a socket path with options (db, password).
 */
export function connectionTarget(url: string): string {
  return url.startsWith('unix://') ? url.slice('unix://'.length) : url;
}

/** The URL for messages, without its password. */
function redactUrl(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    if (parsed.searchParams.has('password')) parsed.searchParams.set('password', '***');
    return parsed.toString();
  } catch {
    return url.replace(/\/\/[^@/]*@/, '//***@');
  }
}
