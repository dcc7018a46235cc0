/**
 * HTTP/1.1 over a bare TCP socket, for tests that must send exactly the bytes they mean:
 * header values fetch and node:http refuse, repeated headers, chunked bodies, broken UTF-8.
 * One request per connection: the connection is closed once the answer is read, so a
 * malformed request never affects the next one.
 */
import { connect } from 'node:net';

export interface RawResponse {
  readonly status: number;
  /** Lower-case names; a repeated header keeps its values joined with ", ". */
  readonly headers: ReadonlyMap<string, string>;
  readonly body: Buffer;
}

export type RawOutcome =
  | { readonly kind: 'response'; readonly response: RawResponse; readonly ms: number }
  /** No complete answer: the time limit passed, the server closed the connection, or a socket error. */
  | { readonly kind: 'timeout' | 'closed' | 'error'; readonly detail: string; readonly received: Buffer; readonly ms: number };

export interface RawRequest {
  readonly method?: string;
  readonly path?: string;
  /** Header lines in order, names and values as latin1 (one byte per char). */
  readonly headers: readonly (readonly [string, string])[];
  readonly body?: Buffer;
  /**
   * How the body is framed: `content-length` (added from the body's size), `chunked`
   * (Transfer-Encoding: chunked, split at `chunks` sizes), or `none` (no framing header at
   * all: an HTTP/1.1 request without one has an empty body).
   */
  readonly framing?: 'content-length' | 'chunked' | 'none';
  readonly chunks?: readonly number[];
}

/** The bytes of a request. */
export function encodeRequest(req: RawRequest): Buffer {
  const body = req.body ?? Buffer.alloc(0);
  const framing = req.framing ?? 'content-length';
  let head = `${req.method ?? 'POST'} ${req.path ?? '/v2/query'} HTTP/1.1\r\n`;
  for (const [name, value] of req.headers) head += `${name}: ${value}\r\n`;
  if (framing === 'content-length') head += `Content-Length: ${body.length}\r\n`;
  if (framing === 'chunked') head += 'Transfer-Encoding: chunked\r\n';
  head += '\r\n';
  const parts: Uint8Array[] = [Buffer.from(head, 'latin1')];
  if (framing === 'content-length') parts.push(body);
  if (framing === 'chunked') {
    let at = 0;
    for (const size of req.chunks ?? []) {
      if (at >= body.length) break;
      const piece = body.subarray(at, Math.min(body.length, at + Math.max(1, size)));
      parts.push(Buffer.from(`${piece.length.toString(16)}\r\n`, 'latin1'), piece, Buffer.from('\r\n'));
      at += piece.length;
    }
    if (at < body.length)
      parts.push(Buffer.from(`${(body.length - at).toString(16)}\r\n`, 'latin1'), body.subarray(at), Buffer.from('\r\n'));
    parts.push(Buffer.from('0\r\n\r\n'));
  }
  return Buffer.concat(parts);
}

const HEAD_END = Buffer.from('\r\n\r\n');

/** Parses a complete response out of `data`, or returns undefined when more bytes are needed. */
function parseResponse(data: Buffer, ended: boolean): RawResponse | undefined {
  const end = data.indexOf(HEAD_END);
  if (end < 0) return undefined;
  const lines = data.subarray(0, end).toString('latin1').split('\r\n');
  const status = /^HTTP\/1\.[01] (\d{3})/.exec(lines[0]!);
  if (status === null) throw new Error(`not an HTTP status line: ${JSON.stringify(lines[0])}`);
  const headers = new Map<string, string>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    const name = line.slice(0, colon).trim().toLowerCase();
    const value = line.slice(colon + 1).trim();
    headers.set(name, headers.has(name) ? `${headers.get(name)}, ${value}` : value);
  }
  const rest = data.subarray(end + 4);
  const length = headers.get('content-length');
  if (length !== undefined) {
    const n = Number(length);
    if (rest.length < n) return undefined;
    return { status: Number(status[1]), headers, body: rest.subarray(0, n) };
  }
  if (/chunked/i.test(headers.get('transfer-encoding') ?? '')) {
    const parts: Buffer[] = [];
    let at = 0;
    for (;;) {
      const lineEnd = rest.indexOf('\r\n', at);
      if (lineEnd < 0) return undefined;
      const size = parseInt(rest.subarray(at, lineEnd).toString('latin1'), 16);
      if (size === 0) return { status: Number(status[1]), headers, body: Buffer.concat(parts) };
      if (rest.length < lineEnd + 2 + size + 2) return undefined;
      parts.push(rest.subarray(lineEnd + 2, lineEnd + 2 + size));
      at = lineEnd + 2 + size + 2;
    }
  }
  // No framing: the body runs to the end of the connection.
  return ended ? { status: Number(status[1]), headers, body: rest } : undefined;
}

/** The length of the whole answer once its head says (Content-Length), else 0. */
function expectedLength(data: Buffer): number {
  const end = data.indexOf(HEAD_END);
  if (end < 0) return 0;
  const length = /\r\ncontent-length:[ \t]*(\d+)/i.exec(data.subarray(0, end + 2).toString('latin1'));
  return length === null ? 0 : end + 4 + Number(length[1]);
}

/**
 * Sends `bytes` on a fresh connection and reads one answer. A list of buffers is written
 * as separate writes `gapMs` apart (with Nagle off), so they reach the server as separate
 * TCP segments.
 */
export function rawExchange(port: number, bytes: Buffer | readonly Buffer[], timeoutMs: number, gapMs = 0): Promise<RawOutcome> {
  const started = Date.now();
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    // Chunks are joined only when a complete answer may be there: joining on every chunk
    // costs quadratic time on a large answer.
    let chunks: Buffer[] = [];
    let total = 0;
    let need = 0;
    const received = () => {
      if (chunks.length !== 1) chunks = [Buffer.concat(chunks, total)];
      return chunks[0]!;
    };
    let done = false;
    const finish = (outcome: RawOutcome) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      socket.destroy();
      resolve(outcome);
    };
    const fail = (kind: 'timeout' | 'closed' | 'error', detail: string) =>
      finish({ kind, detail, received: received(), ms: Date.now() - started });
    const tryParse = (ended: boolean) => {
      try {
        const data = received();
        const response = parseResponse(data, ended);
        if (response !== undefined) finish({ kind: 'response', response, ms: Date.now() - started });
        else if (ended) fail('closed', 'the server closed the connection before a complete answer');
        else need = expectedLength(data);
      } catch (err) {
        fail('error', String(err));
      }
    };
    const timer = setTimeout(() => fail('timeout', `no complete answer within ${timeoutMs} ms`), timeoutMs);
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      total += chunk.length;
      if (total >= need) tryParse(false);
    });
    socket.on('end', () => tryParse(true));
    socket.on('close', () => tryParse(true));
    socket.on('error', (err: NodeJS.ErrnoException) => {
      // An answer may be complete even though our write failed (the server answered 413 and closed).
      try {
        const response = parseResponse(received(), true);
        if (response !== undefined) {
          finish({ kind: 'response', response, ms: Date.now() - started });
          return;
        }
      } catch {
        // fall through to the error
      }
      fail('error', err.code ?? err.message);
    });
    // write, not end: a half-closed connection may be dropped before the answer is written.
    if (Buffer.isBuffer(bytes)) {
      socket.write(bytes, () => undefined);
    } else {
      socket.setNoDelay(true);
      const parts = bytes as readonly Buffer[];
      const writeFrom = (i: number) => {
        if (done || i >= parts.length) return;
        socket.write(parts[i]!, () => undefined);
        setTimeout(() => writeFrom(i + 1), gapMs);
      };
      writeFrom(0);
    }
  });
}

/** A compact, replayable rendering of request bytes: a JS string literal of the latin1 text, cut at `max` chars. */
export function showBytes(bytes: Buffer, max = 2000): string {
  const text = bytes.subarray(0, max).toString('latin1');
  const literal = JSON.stringify(text).replace(/[\u007f-\u00ff]/g, (c) => `\\x${c.charCodeAt(0).toString(16).padStart(2, '0')}`);
  return bytes.length > max ? `${literal} ... (${bytes.length} bytes in all)` : literal;
}
