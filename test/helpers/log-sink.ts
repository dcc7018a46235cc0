/** A LogSink that keeps what it is told, for tests that check what the pool or the writer client logged. */
import type { LogSink } from '../../src/core/log-sink.js';

export interface LoggedLine {
  readonly level: 'error' | 'warn' | 'info';
  readonly msg: string;
  readonly fields: object;
}

export function keepLog(lines: LoggedLine[]): LogSink {
  return {
    error: (fields, msg) => void lines.push({ level: 'error', msg, fields }),
    warn: (fields, msg) => void lines.push({ level: 'warn', msg, fields }),
    info: (fields, msg) => void lines.push({ level: 'info', msg, fields }),
  };
}
