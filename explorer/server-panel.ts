/**
 * The server panel: readiness and mode (GET /healthz), the version (the OpenAPI
 * document's info.version), and live figures from two scrapes of GET /metrics a few
 * seconds apart: requests per second, p50/p99 latency, the writer's queue, the read lanes.
 */
import { ApiError, get } from './api.js';
import { h } from './dom.js';
import { figures, parseMetrics, type Sample } from './metrics-text.js';

export interface Health {
  ready: boolean;
  mode: string;
  index_runtime: string;
}

const REFRESH_MS = 3000;

function ms(seconds: number | null): string {
  if (seconds === null) return '–';
  if (seconds === Infinity) return '> largest bucket';
  return seconds < 0.001 ? `≤ ${(seconds * 1e6).toFixed(0)} µs` : `≤ ${(seconds * 1000).toFixed(seconds < 0.01 ? 2 : 1)} ms`;
}

export class ServerPanel {
  health: Health | null = null;
  version = '';
  private previous: { at: number; samples: Sample[] } | null = null;
  private metricsText = 'reading…';
  private figuresRows: [string, string][] = [];
  private timer: ReturnType<typeof setInterval> | undefined;

  constructor(
    private readonly target: HTMLElement,
    private readonly chip: HTMLElement,
    private readonly onHealth: (health: Health | null) => void,
  ) {}

  start(): void {
    void this.refresh();
    this.timer = setInterval(() => void this.refresh(), REFRESH_MS);
  }

  stop(): void {
    clearInterval(this.timer);
  }

  async refresh(): Promise<void> {
    try {
      this.health = JSON.parse((await get('/healthz')).text) as Health;
    } catch {
      this.health = null;
    }
    this.onHealth(this.health);
    await this.scrape();
    this.render();
  }

  private async scrape(): Promise<void> {
    let text: string;
    try {
      text = (await get('/metrics')).text;
    } catch (err) {
      this.metricsText = err instanceof ApiError ? err.describe() : String(err);
      this.figuresRows = [];
      return;
    }
    const samples = parseMetrics(text);
    const now = performance.now();
    const prefix = samples.some((s) => s.name.startsWith('trellis_gateway_')) ? 'trellis_gateway' : 'trellis';
    if (this.previous !== null) {
      const f = figures(this.previous.samples, samples, (now - this.previous.at) / 1000, prefix);
      this.figuresRows = [
        ['requests/s', f.requestsPerSecond.toFixed(1)],
        ['latency p50', ms(f.p50)],
        ['latency p99', ms(f.p99)],
        ['writer queue', f.writerQueue === null ? '–' : String(f.writerQueue)],
        ...f.lanes.map((l): [string, string] => [`read lane ${l.lane}`, `${l.queued} queued, ${l.inFlight} running`]),
      ];
      this.metricsText = `over the last ${((now - this.previous.at) / 1000).toFixed(1)} s`;
    } else {
      this.metricsText = 'measuring…';
    }
    this.previous = { at: now, samples };
  }

  private render(): void {
    const hl = this.health;
    this.chip.textContent =
      hl === null ? 'unreachable' : `${hl.ready ? 'ready' : 'not ready'} · ${hl.mode}${this.version ? ` · v${this.version}` : ''}`;
    this.chip.className = `chip ${hl?.ready ? 'ok' : 'bad'}`;
    const rows: [string, string][] = [
      ['ready', hl === null ? 'unreachable' : String(hl.ready)],
      ['mode', hl?.mode ?? '–'],
      ['index runtime', hl?.index_runtime ?? '–'],
      ['version', this.version || '–'],
      ...this.figuresRows,
    ];
    this.target.replaceChildren(
      h('dl', { class: 'figures', 'data-testid': 'server-figures' }, ...rows.flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)])),
      h('p', { class: 'muted' }, `metrics: ${this.metricsText}; refreshed every ${REFRESH_MS / 1000} s`),
    );
  }
}
