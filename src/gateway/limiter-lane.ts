/**
 * The admissions of one token bucket inside one gateway (src/gateway/limiter.ts): the
 * requests waiting for a script call, the call in flight, the tokens reserved ahead of
 * demand, and the script's reply turned into one answer per waiting request; with the
 * limits and answers the limiter's callers see (re-exported by limiter.ts).
 */
export interface BucketLimits {
  /** Sustained refill rate in tokens per second (> 0, may be fractional). */
  rate: number;
  /** Capacity: how many requests a full bucket admits at once (>= 1). */
  burst: number;
}

export type Admission =
  | { kind: 'admitted'; tokensLeft: number }
  | { kind: 'rate_limited'; retryAfterS: number }
  | { kind: 'disabled' }
  | { kind: 'unavailable'; reason: string };

export interface Waiter {
  resolve: (admission: Admission) => void;
  settled: boolean;
  /** performance.now() past which the admission is answered 'unavailable'. */
  deadline: number;
}

/** The admissions of one bucket: at most one script call in flight, the others waiting for the next. */
export interface Lane {
  readonly database: string;
  readonly limits: BucketLimits;
  /** A script call is in flight (a top-up carries no admission, so inFlight may be empty). */
  calling: boolean;
  /** The admissions of the script call in flight. */
  inFlight: Waiter[];
  /** Admissions waiting for the next call. */
  queue: Waiter[];
  /** The deadline timer (armDeadline), while any admission of the lane waits. */
  timer: ReturnType<typeof setTimeout> | undefined;
  /** A flush is scheduled for the end of this event-loop turn (scheduleFlush). */
  flushing: boolean;
  /** The most tokens the lane may reserve: floor(rate x reserveMs); 0 = every admission goes to Redis. */
  readonly reserveCap: number;
  /** Tokens reserved and not yet used, usable until reserveUntil (performance.now() ms). */
  reserve: number;
  reserveUntil: number;
  /** The reserve at or below which the next call is sent ahead of need: half of what the last call left; -1 for none. */
  topUpAt: number;
  /** Admissions asked for since demandSince (performance.now() ms, at least reserveMs ago when a call resets it): the demand a reserve is sized by. */
  demand: number;
  demandSince: number;
  /** Whole tokens the bucket held after the last call (Admission.tokensLeft). */
  tokensSeen: number;
}

export function newLane(database: string, limits: BucketLimits, reserveMs: number): Lane {
  return {
    database,
    limits,
    calling: false,
    inFlight: [],
    queue: [],
    timer: undefined,
    flushing: false,
    reserveCap: Math.floor((limits.rate * reserveMs) / 1000),
    reserve: 0,
    reserveUntil: 0,
    topUpAt: -1,
    demand: 0,
    demandSince: Number.NEGATIVE_INFINITY, // no demand measured before the first call: it reserves nothing
    tokensSeen: 0,
  };
}

/** The reserved tokens still usable at `now`; a reserve unused for reserveMs is dropped here. */
export function liveReserve(lane: Lane, now: number): number {
  if (now >= lane.reserveUntil) lane.reserve = 0;
  return lane.reserve;
}

/**
 * The tokens the next call asks to reserve: what this replica's demand, measured over at
 * least reserveMs, would use in reserveMs, less what it still holds, at most reserveCap. A
 * replica asked fewer than one admission per reserveMs reserves nothing.
 */
export function reserveWanted(lane: Lane, now: number, reserveMs: number): number {
  if (lane.reserveCap === 0) return 0;
  const perMs = lane.demand / Math.max(now - lane.demandSince, reserveMs);
  return Math.max(0, Math.min(lane.reserveCap, Math.floor(perMs * reserveMs)) - lane.reserve);
}

export function settle(waiter: Waiter, admission: Admission): void {
  if (waiter.settled) return;
  waiter.settled = true;
  waiter.resolve(admission);
}

export interface CallAnswer {
  disabled: boolean;
  /** Tokens reserved for this replica by the call. */
  reserved: number;
  /** The bucket's tokens after the call, when the reply said. */
  tokens?: number;
}

/** The script's {0} or {1, admitted, tokens, reserved} as one answer per waiter, in the order sent. */
export function decodeAdmissions(reply: unknown, rate: number, batch: readonly Waiter[]): CallAnswer {
  if (Array.isArray(reply)) {
    const [status, admittedCount, tokensText, reserved] = reply as unknown[];
    if (status === 0) {
      for (const w of batch) settle(w, { kind: 'disabled' });
      return { disabled: true, reserved: 0 };
    }
    const tokens = Number(tokensText);
    if (
      status === 1 &&
      typeof admittedCount === 'number' &&
      typeof tokensText === 'string' &&
      Number.isFinite(tokens) &&
      typeof reserved === 'number'
    ) {
      const retryAfterS = retryAfterSeconds(tokens, rate);
      batch.forEach((w, i) => {
        // Whole tokens left after this waiter's own spend, as if the calls ran one by one (the reserve counted in).
        if (i < admittedCount) settle(w, { kind: 'admitted', tokensLeft: Math.floor(tokens) + reserved + (admittedCount - 1 - i) });
        else settle(w, { kind: 'rate_limited', retryAfterS });
      });
      return { disabled: false, reserved, tokens };
    }
  }
  for (const w of batch) settle(w, { kind: 'unavailable', reason: `unexpected reply from the admission script: ${JSON.stringify(reply)}` });
  return { disabled: false, reserved: 0 };
}

/** Whole seconds until the bucket holds one token again: max(1, ceil((1 - tokens) / rate)). */
export function retryAfterSeconds(tokens: number, rate: number): number {
  return Math.max(1, Math.ceil((1 - tokens) / rate));
}
