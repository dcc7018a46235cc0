/**
 * A warning that can repeat on every request (Redis down: every admission fails; a
 * reconnect fails every 500 ms) is logged at most once per interval, with how many were
 * left out since the last line, so an outage is visible without flooding the log.
 */
import type { LogSink } from '../core/log-sink.js';

export type Warn = (fields: Record<string, unknown>, msg: string) => void;

export function throttledWarn(logger: LogSink, intervalMs = 10_000): Warn {
  let last = -Infinity;
  let suppressed = 0;
  return (fields, msg) => {
    const now = performance.now();
    if (now - last < intervalMs) {
      suppressed++;
      return;
    }
    last = now;
    logger.warn({ ...fields, suppressed }, msg);
    suppressed = 0;
  };
}
