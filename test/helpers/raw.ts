/**
 * Raw HTTP over a plain TCP socket, for requests fetch would normalise or refuse to send
 * (repeated headers, odd framing, HTTP/1.0, pipelining, bare LF, slow senders). It reads
 * everything until the server closes; test/helpers/raw-http.ts parses one answer instead.
 */
import { connect } from 'node:net';

export interface RawOptions {
  /** Give up (and close our side) after this long; default 2000 ms. */
  waitMs?: number;
  /** Pause between chunks. */
  gapMs?: number;
  /** Close our side right after the last chunk. */
  destroyAfter?: boolean;
}

export interface RawResult {
  /** Everything the server wrote, as latin1 text. */
  out: string;
  /** True when the server closed (or reset) the connection, false when we gave up waiting. */
  closedByServer: boolean;
  /** Milliseconds from connecting until the server closed or we gave up. */
  ms: number;
  /** Milliseconds from connecting until the first byte from the server, if any came. */
  firstByteMs: number | undefined;
}

/** One chunk of a `Transfer-Encoding: chunked` body: its size in hex, the text, CRLFs. */
export function chunk(text: string): string {
  return `${text.length.toString(16)}\r\n${text}\r\n`;
}

/** Sends the chunks and collects the answer until the server closes or `waitMs` passes. */
export function rawExchange(port: number, chunks: (string | Buffer)[], opts: RawOptions = {}): Promise<RawResult> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const started = Date.now();
    let out = '';
    let firstByteMs: number | undefined;
    let settled = false;
    const finish = (closedByServer: boolean) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ out, closedByServer, ms: Date.now() - started, firstByteMs });
    };
    const timer = setTimeout(() => finish(false), opts.waitMs ?? 2000);
    socket.on('data', (d) => {
      firstByteMs ??= Date.now() - started;
      out += d.toString('latin1');
    });
    socket.on('close', () => finish(true));
    socket.on('error', (err: NodeJS.ErrnoException) => (err.code === 'ECONNRESET' || err.code === 'EPIPE' ? finish(true) : reject(err)));
    socket.on('connect', async () => {
      for (const chunk of chunks) {
        if (socket.destroyed) return;
        socket.write(chunk);
        if (opts.gapMs) await new Promise((r) => setTimeout(r, opts.gapMs));
      }
      if (opts.destroyAfter) finish(false);
    });
  });
}

/** Everything the server wrote until it closed (or `waitMs` passed). */
export async function raw(port: number, chunks: (string | Buffer)[], opts: RawOptions = {}): Promise<string> {
  return (await rawExchange(port, chunks, opts)).out;
}

export function bodyOf(response: string): string {
  return response.slice(response.indexOf('\r\n\r\n') + 4);
}

export function headerOf(response: string, name: string): string | undefined {
  const head = response.slice(0, response.indexOf('\r\n\r\n'));
  const line = head.split('\r\n').find((l) => l.toLowerCase().startsWith(`${name.toLowerCase()}:`));
  return line?.slice(line.indexOf(':') + 1).trim();
}

export function statusOf(response: string): number | undefined {
  const m = /^HTTP\/1\.1 (\d{3}) /.exec(response);
  return m ? Number(m[1]) : undefined;
}
