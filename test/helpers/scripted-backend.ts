/**
 * A database server stand-in for the gateway's forwarding tests: a real HTTP server on a
 * loopback port that records every request it gets and answers as told, including the
 * failures a real server does not produce on demand (a connection dropped after the
 * request arrived, a 503 not_ready, an answer with Retry-After). The gateway's polls of a
 * reader's GET /readyz (docs/replication.md) are answered as a ready reader answers them
 * and counted apart, in `polls`.
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

export type Behaviour =
  | { kind: 'answer'; status: number; body: string; headers?: Record<string, string> }
  /** Reads the request, then destroys the connection without answering. */
  | { kind: 'drop' };

export interface Recorded {
  readonly path: string;
  readonly headers: IncomingHttpHeaders;
  readonly body: string;
}

export interface ScriptedBackend {
  readonly url: string;
  /** Every request, in arrival order (the /readyz polls apart). */
  readonly requests: Recorded[];
  /** GET /readyz polls received. */
  readonly polls: () => number;
  /** What the next requests get (default: 200 `{"r":[]}`). */
  behave(behaviour: Behaviour): void;
  close(): Promise<void>;
}

export const OK: Behaviour = { kind: 'answer', status: 200, body: '{"r":[]}' };

export async function startScriptedBackend(): Promise<ScriptedBackend> {
  const requests: Recorded[] = [];
  let behaviour: Behaviour = OK;
  let polls = 0;
  const server: Server = createServer((req, res) => {
    if (req.method === 'GET' && req.url === '/readyz') {
      polls++;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"ready":true,"mode":"reader","index_runtime":"ready"}');
      return;
    }
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      requests.push({ path: req.url ?? '', headers: req.headers, body: Buffer.concat(chunks).toString() });
      if (behaviour.kind === 'drop') {
        req.socket.destroy();
        return;
      }
      res.writeHead(behaviour.status, { 'content-type': 'application/json', ...behaviour.headers });
      res.end(behaviour.body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    polls: () => polls,
    behave: (b) => {
      behaviour = b;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
