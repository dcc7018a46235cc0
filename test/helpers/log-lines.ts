/** The JSON log lines (pino) a server or gateway wrote, for tests that look for one. */
import assert from 'node:assert/strict';

export interface LogLine {
  level: number;
  name: string;
  msg: string;
  req_id?: string;
  [field: string]: unknown;
}

/**
 * The output's JSON lines. Other lines (the gateway's plain "listening" line) are skipped,
 * or with `strict` fail the test: the server writes nothing but JSON lines.
 */
export function jsonLines(output: string, { strict = false } = {}): LogLine[] {
  const found: LogLine[] = [];
  for (const l of output.split('\n')) {
    if (l === '') continue;
    if (!l.startsWith('{')) {
      if (strict) assert.fail(`not a JSON log line: ${l}`);
      continue;
    }
    found.push(JSON.parse(l) as LogLine);
  }
  return found;
}

/** Waits (up to 5 s: logs are written asynchronously) for a line that matches. */
export async function waitForLogLine(output: () => string, match: (line: LogLine) => boolean): Promise<LogLine> {
  for (let i = 0; i < 200; i++) {
    const found = jsonLines(output()).find(match);
    if (found !== undefined) return found;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  assert.fail(`no such log line in:\n${output()}`);
}
