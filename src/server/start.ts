/**
 * Starts the HTTP server: listen first (so /healthz answers while the database opens and
 * /readyz says 503), then start the writer thread and the read pool.
 */
import { mkdirSync } from 'node:fs';
import { createHandler } from './handle.js';
import { ThreadedService } from './threaded-service.js';
import { startHttpServer } from './uws.js';
import type { Mode } from './service.js';

export interface ServerOptions {
  readonly host: string;
  readonly port: number;
  readonly dataDir: string;
  readonly mode: Mode;
  readonly workers: number;
  /** Read worker threads for long queries (default 1). */
  readonly longWorkers?: number;
  /** Reads running longer move to the long queries' threads (ms, default 2; 0: never). */
  readonly querySliceMs?: number;
  /** Heap limit of each read worker, MiB (default 0: Node's default). */
  readonly workerHeapMb?: number;
  readonly maxBodyBytes: number;
  readonly queryTimeoutMs: number;
}

export interface RunningServer {
  readonly port: number;
  /** Resolves when the database and workers are ready (rejects if they fail to start). */
  readonly ready: Promise<void>;
  close(): Promise<void>;
}

export async function startServer(options: ServerOptions): Promise<RunningServer> {
  if (options.mode === 'writer') mkdirSync(options.dataDir, { recursive: true });
  const service = new ThreadedService(
    { dataDir: options.dataDir, mode: options.mode, queryTimeoutMs: options.queryTimeoutMs },
    {
      workers: options.workers,
      longWorkers: options.longWorkers ?? 1,
      sliceMs: options.querySliceMs ?? 2,
      workerHeapMb: options.workerHeapMb ?? 0,
    },
  );
  const http = await startHttpServer({
    host: options.host,
    port: options.port,
    maxBodyBytes: options.maxBodyBytes,
    handler: createHandler(service),
  });
  const ready = service.start();
  ready.catch(() => undefined);
  return {
    port: http.port,
    ready,
    async close() {
      http.close();
      await service.close();
    },
  };
}
