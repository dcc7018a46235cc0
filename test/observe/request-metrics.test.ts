/**
 * RequestMetrics counts answers as plain numbers and renders them at scrape time
 * (src/observe/request-counts.ts); what it renders must be what prom-client's own Counter
 * and Histogram would have rendered for the same answers.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import client from 'prom-client';
import { LATENCY_BUCKETS, MetricsRegistry, RequestMetrics } from '../../src/observe/metrics.js';

const ANSWERS: [route: string, status: number, code: string, seconds: number][] = [
  ['/v2/query', 200, 'ok', 0.00005],
  ['/v2/query', 200, 'ok', 0.0001],
  ['/v2/query', 200, 'ok', 0.00012],
  ['/v2/query', 400, 'invalid_query_json', 0.003],
  ['/healthz', 200, 'ok', 0.0004],
  ['other', 404, 'not_found', 0.00001],
  ['/v2/query', 500, 'internal_error', 29],
  ['/v2/query', 408, 'query_timeout', 31],
  ['/metrics', 200, 'ok', 1],
];

/** The lines of two metric families, sorted (the order of label sets is free). */
function families(text: string): string[] {
  return text
    .split('\n')
    .filter((l) => /^(# (HELP|TYPE) )?trellis_http_request(s_total|_duration_seconds)/.test(l))
    .sort();
}

test('RequestMetrics renders what prom-client Counter and Histogram render for the same answers', async () => {
  const ours = new MetricsRegistry('trellis');
  const metrics = new RequestMetrics(ours);

  const registry = new client.Registry();
  const requests = new client.Counter({
    name: 'trellis_http_requests_total',
    help: 'HTTP requests answered, by route, status and error code',
    labelNames: ['route', 'status', 'code'],
    registers: [registry],
  });
  const latency = new client.Histogram({
    name: 'trellis_http_request_duration_seconds',
    help: 'Time from a complete request to its answer, by route',
    labelNames: ['route'],
    buckets: LATENCY_BUCKETS,
    registers: [registry],
  });

  for (const [route, status, code, seconds] of ANSWERS) {
    metrics.observe(route, status, code, seconds);
    requests.inc({ route, status: String(status), code });
    latency.observe({ route }, seconds);
  }
  const expected = families(await registry.metrics());
  assert.ok(expected.length > 80, 'both families rendered');
  assert.deepEqual(families((await ours.render()).body), expected);
  // Counted again after a scrape: totals, not deltas.
  metrics.observe('/v2/query', 200, 'ok', 0.1);
  assert.match((await ours.render()).body, /^trellis_http_requests_total\{route="\/v2\/query",status="200",code="ok"\} 4$/m);
});
