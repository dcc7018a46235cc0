/**
 * Structured logs of the real server: JSON lines on stdout (pino). At `debug` every
 * request is a line with its id, route, status, code and time; at `info` only what needs
 * a look is: a 5xx at `error`. The start-up lines keep the text the waiters look for.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { jsonLines, waitForLogLine, type LogLine } from '../helpers/log-lines.js';
import { countAllRequest, post, startTestServer, tempDir, writeRequest } from '../helpers/server.js';

const DEBUG = 20;
const INFO = 30;
const ERROR = 50;

/** The output's JSON lines; anything else on stdout or stderr fails the test. */
const lines = (output: string): LogLine[] => jsonLines(output, { strict: true });

const addNode = writeRequest([{ query: { name: 'n', root: { add_n: { label: 'L', properties: [] } } } }], ['n']);

test('--log-level debug: every request is a JSON line with its req_id, method, route, status, code and ms', async () => {
  const dir = tempDir();
  const server = await startTestServer(['--data', dir.path, '--log-level', 'debug']);
  try {
    assert.equal((await post(`${server.url}/v2/query`, countAllRequest, { 'x-request-id': 'log-test-read-1' })).status, 200);
    const line = await waitForLogLine(server.output, (l) => l.req_id === 'log-test-read-1');
    assert.deepEqual(
      { ...line, ms: typeof line.ms },
      { ...line, level: DEBUG, name: 'trellis', msg: 'request', method: 'POST', route: '/v2/query', status: 200, code: 'ok', ms: 'number' },
    );
    assert.equal(line.path, undefined, 'the path is only added when it is not the route');

    // The README shows such a line: same fields, in the same order.
    const readme = readFileSync(fileURLToPath(new URL('../../../README.md', import.meta.url)), 'utf8');
    const shown = /^(\{"level":20,.*"msg":"request"\})$/m.exec(readme)?.[1];
    assert.ok(shown, 'README.md shows a debug request line');
    assert.deepEqual(Object.keys(JSON.parse(shown) as object), Object.keys(line));

    const missing = await fetch(`${server.url}/some/secret/path`, { headers: { 'x-request-id': 'log-test-404' } });
    assert.equal(missing.status, 404);
    const notFound = await waitForLogLine(server.output, (l) => l.req_id === 'log-test-404');
    assert.deepEqual(
      [notFound.level, notFound.route, notFound.path, notFound.status, notFound.code],
      [DEBUG, 'other', '/some/secret/path', 404, 'not_found'],
    );

    // A generated id is logged as the one the client got back.
    const res = await fetch(`${server.url}/healthz`);
    const id = res.headers.get('x-request-id')!;
    assert.equal((await waitForLogLine(server.output, (l) => l.req_id === id)).route, '/healthz');
  } finally {
    await server.stop();
    dir.remove();
  }
});

test('at info (the default) no request is logged unless it is a 5xx, which is an error line with its req_id and code', async () => {
  const dir = tempDir();
  const writer = await startTestServer(['--data', dir.path]);
  try {
    assert.equal((await post(`${writer.url}/v2/query`, countAllRequest, { 'x-request-id': 'info-read' })).status, 200);
    assert.equal((await post(`${writer.url}/v2/query`, addNode)).status, 200);
    assert.equal((await post(`${writer.url}/v2/query`, '{')).status, 400);
    assert.equal((await fetch(`${writer.url}/nope`)).status, 404);
  } finally {
    // Stopping flushes every log line the server had (pino flushes at exit).
    await writer.stop();
  }
  assert.deepEqual(
    lines(writer.output()).map((l) => [l.level, l.msg.replace(/ on http.*/, '')]),
    [
      [INFO, 'trellis listening'],
      [INFO, 'trellis ready'],
      [INFO, 'trellis shutting down'],
    ],
    'only the start-up and shut-down lines',
  );

  // A reader answers a write 503 writer_mode_required: a server error, logged.
  const reader = await startTestServer(['--data', dir.path, '--mode', 'reader']);
  try {
    const refused = await post(`${reader.url}/v2/query`, addNode, { 'x-request-id': 'info-5xx' });
    assert.equal(refused.status, 503);
    assert.equal((await post(`${reader.url}/v2/query`, countAllRequest)).status, 200);
  } finally {
    await reader.stop();
    dir.remove();
  }
  const logged = lines(reader.output()).filter((l) => l.req_id !== undefined);
  assert.equal(logged.length, 1, reader.output());
  assert.deepEqual(
    { ...logged[0]!, ms: typeof logged[0]!.ms },
    {
      ...logged[0]!,
      level: ERROR,
      msg: 'request answered with a server error',
      req_id: 'info-5xx',
      method: 'POST',
      route: '/v2/query',
      status: 503,
      code: 'writer_mode_required',
      ms: 'number',
    },
  );
});
