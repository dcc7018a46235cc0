/**
 * The log levels a setting may name (`--log-level`), pino's own. They live here, not in
 * src/observe, because the configuration (src/config.ts) checks them and may not import
 * the layer that owns the logger.
 */
export const LOG_LEVELS = ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
