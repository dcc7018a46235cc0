/**
 * The file Piscina loads for a read worker. Piscina first tries `require()` on it, and on
 * Node 20 requiring an ES module (read-worker.js has top-level await) goes through a
 * synchronous ESM path that can crash the process (a V8 fatal error) when the thread is
 * terminated while loading, as happens when a start fails. This CommonJS file loads the
 * worker with `import()` instead, once, and hands every task to it.
 *
 * Before that import, the worker checks the data folder (store/folder.ts, plain node:fs):
 * a folder that fails its checks fails every worker before it loads lmdb's native addon.
 * A worker terminated inside that addon's initialisation, as a failed start terminates
 * the workers Piscina is still replacing, aborts the whole process (`FATAL ERROR:
 * Error::ThrowAsJavaScriptException napi_throw`) instead of letting it exit 1 with its
 * one line.
 */
import type { ReadTask } from '../src/protocol/messages.js';

type Handler = (task: ReadTask) => unknown;

let handler: Promise<Handler> | undefined;

async function load(): Promise<Handler> {
  const { dataDir } = (await import('node:worker_threads')).workerData as { dataDir: string };
  const folder = (await import('../src/store/folder.js')) as typeof import('../src/store/folder.js');
  folder.checkDataFolder(dataDir, false);
  folder.checkDataFile(dataDir, false);
  const worker = (await import('./read-worker.js')) as { default: Handler };
  return worker.default;
}

module.exports = function runReadTask(task: ReadTask): Promise<unknown> {
  handler ??= load();
  return handler.then((run) => run(task));
};
