import assert from 'node:assert/strict';
import { test } from 'node:test';
import { throttledWarn } from '../../src/gateway/throttled-log.js';
import { keepLog, type LoggedLine } from '../helpers/log-sink.js';

test('a repeating warning is logged once per interval, with how many were left out', async () => {
  const lines: LoggedLine[] = [];
  const warn = throttledWarn(keepLog(lines), 200);
  for (let i = 0; i < 5; i++) warn({ i }, 'redis down');
  assert.deepEqual(lines, [{ level: 'warn', msg: 'redis down', fields: { i: 0, suppressed: 0 } }]);
  await new Promise((r) => setTimeout(r, 250));
  warn({ i: 5 }, 'redis down');
  assert.equal(lines.length, 2);
  assert.deepEqual(lines[1]!.fields, { i: 5, suppressed: 4 });
});
