/**
 * What the server does with each answer (src/server/answers.ts), with a real pino logger
 * writing to a file and a real registry: counted by route, status and code; logged at
 * `debug` always, at `info` only when it is a 5xx (error) or slower than a second (warn).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createLogger, type LogLevel } from '../../src/observe/log.js';
import { MetricsRegistry, RequestMetrics } from '../../src/observe/metrics.js';
import { observeAnswers } from '../../src/server/answers.js';
import { parseMetrics } from '../helpers/metrics.js';
import { tempDir } from '../helpers/server.js';

const route = (path: string) => (['/v2/query', '/healthz', '/readyz'].includes(path) ? path : 'other');
const ERROR_BODY = '{"error":"internal_error","msg":"x"}';

/** Calls the listener as the transport would, then returns the log lines written. */
function run(level: LogLevel, metrics: RequestMetrics | null): Record<string, unknown>[] {
  const dir = tempDir('trellis-answers-');
  try {
    const file = join(dir.path, 'log');
    const logger = createLogger({ name: 'trellis', level, destination: file, sync: true });
    const answered = observeAnswers(logger, metrics, route);
    answered('POST', '/v2/query', 'fast-ok', 200, new TextEncoder().encode('{"r":[]}'), 0.0002);
    answered('GET', '/nope/x', 'not-found', 404, '{"error":"not_found","msg":"no route"}', 0.0001);
    answered('POST', '/v2/query', 'server-error', 500, ERROR_BODY, 0.001);
    answered('POST', '/v2/query', 'slow', 200, '{}', 1.25);
    answered('GET', '/readyz', 'not-ready', 503, '{"ready":false,"mode":"writer","index_runtime":"starting"}', 0.0001);
    return readFileSync(file, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  } finally {
    dir.remove();
  }
}

const summary = (lines: Record<string, unknown>[]) => lines.map((l) => [l.level, l.req_id, l.msg]);

test('at debug every answer is a line; 5xx at error, slow ones at warn', () => {
  const lines = run('debug', null);
  assert.deepEqual(summary(lines), [
    [20, 'fast-ok', 'request'],
    [20, 'not-found', 'request'],
    [50, 'server-error', 'request answered with a server error'],
    [40, 'slow', 'slow request'],
    [20, 'not-ready', 'request'],
  ]);
  const [ok, notFound, failed, slow] = lines;
  assert.deepEqual(
    [ok!.method, ok!.route, ok!.path, ok!.status, ok!.code, ok!.ms],
    ['POST', '/v2/query', undefined, 200, 'ok', 0.2],
    'fields of a line; no path when it is the route',
  );
  assert.deepEqual([notFound!.route, notFound!.path, notFound!.code], ['other', '/nope/x', 'not_found']);
  assert.deepEqual([failed!.status, failed!.code, failed!.ms], [500, 'internal_error', 1]);
  assert.equal(slow!.ms, 1250);
});

test("at info only the 5xx and the slow answer are logged (a health check's 503 is its answer, not one)", () => {
  assert.deepEqual(summary(run('info', null)), [
    [50, 'server-error', 'request answered with a server error'],
    [40, 'slow', 'slow request'],
  ]);
});

test('at error the slow answer is not logged either; silent logs nothing', () => {
  assert.deepEqual(summary(run('error', null)), [[50, 'server-error', 'request answered with a server error']]);
  assert.deepEqual(run('silent', null), []);
});

test('every answer is counted by route, status and code, with its latency by route', async () => {
  const registry = new MetricsRegistry('trellis');
  run('silent', new RequestMetrics(registry));
  const samples = parseMetrics((await registry.render()).body);
  const requests = samples
    .filter((s) => s.name === 'trellis_http_requests_total')
    .map((s) => `${s.labels.route} ${s.labels.status} ${s.labels.code} ${s.value}`)
    .sort();
  assert.deepEqual(requests, ['/readyz 503 not_ready 1', '/v2/query 200 ok 2', '/v2/query 500 internal_error 1', 'other 404 not_found 1']);
  const count = (route: string) =>
    samples.find((s) => s.name === 'trellis_http_request_duration_seconds_count' && s.labels.route === route);
  assert.deepEqual([count('/v2/query')?.value, count('other')?.value], [3, 1]);
  // Buckets are cumulative: the 1.25 s answer is only in the buckets from 2.5 s up.
  const bucket = (le: string) =>
    samples.find((s) => s.name === 'trellis_http_request_duration_seconds_bucket' && s.labels.route === '/v2/query' && s.labels.le === le)
      ?.value;
  assert.deepEqual(['0.0001', '0.00025', '0.001', '1', '2.5', '30', '+Inf'].map(bucket), [0, 1, 2, 2, 3, 3, 3]);
  const sum = samples.find((s) => s.name === 'trellis_http_request_duration_seconds_sum' && s.labels.route === '/v2/query');
  assert.ok(Math.abs(sum!.value - 1.2512) < 1e-9, String(sum?.value));
});
