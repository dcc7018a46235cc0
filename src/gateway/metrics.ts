/**
 * The gateway's Prometheus metrics (prefix `trellis_gateway`): requests by route, status
 * and code with latency, token decisions by database, and backend failures. Token
 * decisions come with every request, so they are plain numbers read at scrape time, as the
 * requests' counts are (request-counts.ts); backend failures are rare and use prom-client.
 */
import { MetricsRegistry, RequestMetrics, type Counter } from '../observe/metrics.js';
import type { FailureReport } from './backends.js';

export class GatewayMetrics {
  readonly registry = new MetricsRegistry('trellis_gateway');
  readonly requests = new RequestMetrics(this.registry);
  /** database -> result -> decisions. */
  private readonly tokens = new Map<string, Map<string, number>>();
  private readonly failures: Counter = this.registry.counter(
    'backend_failures_total',
    'Attempts on a database server that failed (no connection, connection lost, server not ready)',
    ['database', 'role', 'reason'],
  );

  constructor() {
    this.registry.counterFrom(
      'tokens_total',
      'Rate-limit decisions by database: admitted (a token spent) or rate_limited, disabled, unavailable (denied)',
      ['database', 'result'],
      () => [...this.tokens].flatMap(([database, byResult]) => [...byResult].map(([result, n]) => [{ database, result }, n] as const)),
    );
  }

  token(database: string, result: string): void {
    let byResult = this.tokens.get(database);
    if (byResult === undefined) {
      byResult = new Map();
      this.tokens.set(database, byResult);
    }
    byResult.set(result, (byResult.get(result) ?? 0) + 1);
  }

  backendFailure(report: FailureReport): void {
    this.failures.inc({ database: report.backend.database, role: report.backend.role, reason: report.reason });
  }
}
