/**
 * A keep-alive HTTP/1.1 client on raw sockets that times every request in microseconds
 * (autocannon rounds latencies to whole milliseconds, too coarse for a point read that
 * takes 50 µs). Each connection sends one request, waits for the whole answer, then sends
 * the next: latency is what one client waiting for its answers sees. Answers are framed by
 * their content-length, which every Trellis and bare-uWS answer carries.
 */
import net from 'node:net';

export interface Exchange {
  readonly status: number;
  readonly body: string;
}

export class RawConnection {
  private buffer: Buffer = Buffer.alloc(0);
  private waiting: ((exchange: Exchange) => void) | null = null;
  private failed: ((err: Error) => void) | null = null;

  private constructor(private readonly socket: net.Socket) {
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    socket.on('error', (err) => this.failed?.(err));
    socket.on('close', () => this.failed?.(new Error('connection closed by the server')));
  }

  static open(port: number): Promise<RawConnection> {
    return new Promise((resolve, reject) => {
      const socket = net.connect(port, '127.0.0.1', () => resolve(new RawConnection(socket)));
      socket.once('error', reject);
    });
  }

  /** Sends one POST (to /v2/query unless `path` says otherwise) and resolves with its answer. */
  post(body: string | Buffer, headers = '', path = '/v2/query'): Promise<Exchange> {
    const payload = typeof body === 'string' ? Buffer.from(body) : body;
    const head = `POST ${path} HTTP/1.1\r\nHost: bench\r\nContent-Type: application/json\r\n${headers}Content-Length: ${payload.length}\r\n\r\n`;
    return new Promise((resolve, reject) => {
      this.waiting = resolve;
      this.failed = reject;
      this.socket.write(Buffer.concat([Buffer.from(head), payload]));
    });
  }

  close(): void {
    this.failed = null;
    this.socket.destroy();
  }

  private onData(chunk: Buffer): void {
    this.buffer = this.buffer.length === 0 ? chunk : Buffer.concat([this.buffer, chunk]);
    const end = this.buffer.indexOf('\r\n\r\n');
    if (end < 0) return;
    const head = this.buffer.subarray(0, end).toString('latin1');
    const length = Number(/content-length:\s*(\d+)/i.exec(head)?.[1] ?? 0);
    if (this.buffer.length < end + 4 + length) return;
    const status = Number(head.slice(9, 12));
    const body = this.buffer.subarray(end + 4, end + 4 + length).toString();
    this.buffer = this.buffer.subarray(end + 4 + length);
    const resolve = this.waiting;
    this.waiting = null;
    resolve?.({ status, body });
  }
}

export interface TimedRun {
  /** Latency of every request, µs, sorted. */
  readonly latenciesUs: number[];
  readonly requests: number;
  readonly seconds: number;
  /** Answers other than 200. */
  readonly failures: number;
  /** How many answers of each status other than 200. */
  readonly statuses: Readonly<Record<number, number>>;
}

/** A request body, or a body with extra header lines (each ending in CRLF) and, optionally, another path. */
export type Outgoing = string | { readonly body: string; readonly headers: string; readonly path?: string };

/** `connections` clients, each sending `next()` requests back to back for `seconds`. */
export async function timedLoad(port: number, connections: number, seconds: number, next: () => Outgoing): Promise<TimedRun> {
  const latencies: number[] = [];
  let failures = 0;
  const statuses: Record<number, number> = {};
  const started = performance.now();
  const until = started + seconds * 1000;
  const clients = await Promise.all(Array.from({ length: connections }, () => RawConnection.open(port)));
  await Promise.all(
    clients.map(async (c) => {
      while (performance.now() < until) {
        const t = performance.now();
        const out = next();
        const answer = typeof out === 'string' ? await c.post(out) : await c.post(out.body, out.headers, out.path);
        latencies.push((performance.now() - t) * 1000);
        if (answer.status !== 200) {
          failures++;
          statuses[answer.status] = (statuses[answer.status] ?? 0) + 1;
        }
      }
      c.close();
    }),
  );
  latencies.sort((a, b) => a - b);
  return { latenciesUs: latencies, requests: latencies.length, seconds: (performance.now() - started) / 1000, failures, statuses };
}
