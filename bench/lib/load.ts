/**
 * HTTP load with autocannon's programmatic API, in the bench process. Every request takes
 * the next body from the scenario's ring (one counter shared by all connections), so ids
 * vary per request. Any error, timeout or non-2xx answer fails the run: a benchmark that
 * counts failures as throughput measures nothing.
 */
import autocannon from 'autocannon';
import type { Scenario } from './scenarios.js';

export interface LoadOptions {
  readonly connections: number;
  /** Seconds. */
  readonly duration: number;
}

export interface HttpFigures extends Record<string, number> {
  requests_per_s: number;
  p50_ms: number;
  p99_ms: number;
  errors: number;
  non2xx: number;
}

export class LoadFailure extends Error {}

export async function runLoad(url: string, scenario: Pick<Scenario, 'name' | 'requests'>, options: LoadOptions): Promise<HttpFigures> {
  const { requests } = scenario;
  let next = 0;
  const result = await autocannon({
    url,
    connections: options.connections,
    duration: options.duration,
    requests: [
      {
        method: 'POST',
        path: '/v2/query',
        headers: { 'content-type': 'application/json' },
        setupRequest: (request) => {
          request.body = requests[next++ % requests.length]!;
          return request;
        },
      },
    ],
  });
  const errors = result.errors + result.timeouts + result.resets + result.mismatches;
  if (errors > 0 || result.non2xx > 0) {
    throw new LoadFailure(
      `${scenario.name}: ${result.non2xx} non-2xx answers (${JSON.stringify(result.statusCodeStats)}), ${errors} errors/timeouts/resets`,
    );
  }
  return {
    requests_per_s: Math.round(result['2xx'] / result.duration),
    // autocannon records latencies in whole milliseconds.
    p50_ms: result.latency.p50,
    p99_ms: result.latency.p99,
    errors,
    non2xx: result.non2xx,
  };
}
