/**
 * The gateway's Prometheus metrics (prefix `trellis_gateway`): requests by route, status
 * and code with latency, token decisions by database, and backend failures.
 */
import { MetricsRegistry, RequestMetrics, type Counter } from '../observe/metrics.js';
import type { FailureReport } from './backends.js';

export class GatewayMetrics {
  readonly registry = new MetricsRegistry('trellis_gateway');
  readonly requests = new RequestMetrics(this.registry);
  private readonly tokens: Counter = this.registry.counter(
    'tokens_total',
    'Rate-limit decisions by database: admitted (a token spent) or rate_limited, disabled, unavailable (denied)',
    ['database', 'result'],
  );
  private readonly failures: Counter = this.registry.counter(
    'backend_failures_total',
    'Attempts on a database server that failed (no connection, connection lost, server not ready)',
    ['database', 'role', 'reason'],
  );

  token(database: string, result: string): void {
    this.tokens.inc({ database, result });
  }

  backendFailure(report: FailureReport): void {
    this.failures.inc({ database: report.backend.database, role: report.backend.role, reason: report.reason });
  }
}
