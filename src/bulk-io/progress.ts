/**
 * Progress of an import or export: on a terminal a bar per phase (cli-progress: bytes
 * read, rows, rows/s, ETA); otherwise a plain line every few seconds; nothing with
 * `--progress none`. The summary at the end is printed by the caller.
 */
import type cliProgressTypes from 'cli-progress';
import { createRequire } from 'node:module';

export interface Progress {
  /** A new phase; `total` in bytes (0: unknown, the bar counts rows only). */
  phase(name: string, total: number): void;
  /** `bytes` more read and `rows` more done in the current phase. */
  advance(bytes: number, rows: number): void;
  /** Ends the current phase (the bar stays on screen). */
  done(): void;
}

export type Mode = 'auto' | 'bars' | 'lines' | 'none';

/** Seconds between plain lines. */
const LINE_EVERY_MS = 2000;

/** A count with thousands separators (toLocaleString loads ICU's data: 0.2 s on its first call). */
export const count = (n: number): string => String(Math.round(n)).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
const mib = (n: number) => `${(n / 2 ** 20).toFixed(1)} MiB`;

export function seconds(ms: number): string {
  return ms < 10_000 ? `${(ms / 1000).toFixed(2)} s` : `${(ms / 1000).toFixed(1)} s`;
}

/** A progress report on `out` (stdout) in the given mode; `auto` picks bars on a terminal. */
export function progressReport(mode: Mode, out: NodeJS.WriteStream = process.stdout, lineEveryMs = LINE_EVERY_MS): Progress {
  const chosen = mode === 'auto' ? (out.isTTY ? 'bars' : 'lines') : mode;
  if (chosen === 'none') return { phase() {}, advance() {}, done() {} };
  return chosen === 'bars' ? new Bars(out) : new Lines(out, lineEveryMs);
}

/** cli-progress, loaded when bars are drawn (a script's import pays nothing for it). */
let cliProgress: typeof cliProgressTypes | null = null;
const load = () => (cliProgress ??= createRequire(import.meta.url)('cli-progress') as typeof cliProgressTypes);

class Bars implements Progress {
  private bar: cliProgressTypes.SingleBar | null = null;
  private rows = 0;
  private bytes = 0;
  private started = 0;

  constructor(private readonly out: NodeJS.WriteStream) {}

  phase(name: string, total: number): void {
    this.done();
    this.rows = 0;
    this.bytes = 0;
    this.started = performance.now();
    const lib = load();
    this.bar = new lib.SingleBar(
      {
        stream: this.out,
        format: `${name.padEnd(16)} {bar} {percentage}% | {read} | {rows} rows | {rate} rows/s | ETA {eta_formatted}`,
        hideCursor: true,
        barsize: 24,
        fps: 5,
        etaBuffer: 20,
        // A bar even when the stream does not say it is a terminal (--progress bars).
        noTTYOutput: true,
        notTTYSchedule: 1000,
      },
      lib.Presets.shades_classic,
    );
    this.bar.start(Math.max(total, 1), 0, this.payload());
  }

  private payload(): Record<string, string> {
    const elapsed = (performance.now() - this.started) / 1000;
    return { read: mib(this.bytes), rows: count(this.rows), rate: count(elapsed > 0 ? this.rows / elapsed : 0) };
  }

  advance(bytes: number, rows: number): void {
    this.rows += rows;
    this.bytes += bytes;
    this.bar?.update(this.bytes, this.payload());
  }

  done(): void {
    if (this.bar === null) return;
    this.bar.update(this.bar.getTotal(), this.payload());
    this.bar.stop();
    this.bar = null;
  }
}

class Lines implements Progress {
  private name = '';
  private total = 0;
  private rows = 0;
  private bytes = 0;
  private started = 0;
  private lastLine = 0;

  constructor(
    private readonly out: NodeJS.WriteStream,
    private readonly every: number,
  ) {}

  phase(name: string, total: number): void {
    this.done();
    this.name = name;
    this.total = total;
    this.rows = 0;
    this.bytes = 0;
    this.started = this.lastLine = performance.now();
  }

  advance(bytes: number, rows: number): void {
    this.rows += rows;
    this.bytes += bytes;
    const now = performance.now();
    if (now - this.lastLine >= this.every) {
      this.lastLine = now;
      this.line(now);
    }
  }

  private line(now: number): void {
    const elapsed = (now - this.started) / 1000;
    const rate = elapsed > 0 ? this.rows / elapsed : 0;
    const share = this.total > 0 ? Math.min(1, this.bytes / this.total) : 0;
    const eta = share > 0 && share < 1 ? `, ETA ${Math.ceil((elapsed * (1 - share)) / share)} s` : '';
    const of = this.total > 0 ? ` of ${mib(this.total)} (${Math.floor(share * 100)}%)` : '';
    this.out.write(`${this.name}: ${count(this.rows)} rows, ${mib(this.bytes)}${of}, ${count(rate)} rows/s${eta}\n`);
  }

  done(): void {
    if (this.name === '') return;
    const ms = performance.now() - this.started;
    this.out.write(`${this.name}: ${count(this.rows)} rows in ${seconds(ms)}\n`);
    this.name = '';
  }
}
