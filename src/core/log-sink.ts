/**
 * What the layers below src/observe need of a logger: pino's Logger is one, and no layer
 * but src/observe imports pino, so the read pool, the writer client and the store log
 * through this shape. `fields` become the line's JSON fields, `msg` its message.
 */
export interface LogSink {
  error(fields: object, msg: string): void;
  warn(fields: object, msg: string): void;
  info(fields: object, msg: string): void;
}

/** Lines on stderr, `trellis: <msg> <fields as JSON>`: for embedded use, where no logger was given. */
export const consoleLog: LogSink = {
  error: (fields, msg) => console.error(line(fields, msg)),
  warn: (fields, msg) => console.error(line(fields, msg)),
  info: (fields, msg) => console.error(line(fields, msg)),
};

function line(fields: object, msg: string): string {
  if (Object.keys(fields).length === 0) return `trellis: ${msg}`;
  // An Error has no enumerable fields: JSON would print it as {}.
  return `trellis: ${msg} ${JSON.stringify(fields, (_key, value: unknown) => (value instanceof Error ? value.message : value))}`;
}
