/**
 * Structured logs: one JSON object per line on stdout (pino), shared by the database server
 * and the gateway. Lines that belong to a request carry its id (`req_id`), the same id the
 * gateway passes to the backend and both return in `x-request-id`, so one request can be
 * followed from the gateway's line to the server's.
 */
import { randomUUID } from 'node:crypto';
import pino from 'pino';
import type { LogLevel } from '../core/log-levels.js';

export { LOG_LEVELS, type LogLevel } from '../core/log-levels.js';
export type Logger = pino.Logger;

export interface LoggerOptions {
  /** `trellis` or `trellis-gateway`: the `name` field of every line. */
  name: string;
  level: LogLevel;
  /** A file descriptor or path; default 1 (stdout). Tests point it at a file. */
  destination?: number | string;
  /** Write each line before the call returns (tests that read the file right after); default false. */
  sync?: boolean;
}

export function createLogger(opts: LoggerOptions): Logger {
  // Asynchronous writes keep logging off the request's path; pino flushes what is
  // buffered when the process exits. No minimum length: a line is written at once unless
  // a write is already in flight, and lines that arrive meanwhile leave together with the
  // next one, which is all the batching a busy server needs. With a minimum (4 KiB), a
  // quiet server kept its error lines, and its "ready" line, in memory until more came.
  const destination = pino.destination({ dest: opts.destination ?? 1, sync: opts.sync ?? false, minLength: 0 });
  return pino({ name: opts.name, level: opts.level, base: { pid: process.pid }, timestamp: pino.stdTimeFunctions.isoTime }, destination);
}

export const REQUEST_ID_HEADER = 'x-request-id';

/** What an incoming id may look like to be kept: short, printable, no spaces or quotes. */
const ACCEPTED_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/**
 * The id of a request: the caller's `x-request-id` when it is a plausible id (a gateway's,
 * a load balancer's, a client's own), otherwise a new random one.
 */
export function requestIdOf(incoming: string | undefined): string {
  return incoming !== undefined && ACCEPTED_ID.test(incoming) ? incoming : randomUUID();
}
