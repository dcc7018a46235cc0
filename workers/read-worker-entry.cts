/**
 * The file Piscina loads for a read worker. Piscina first tries `require()` on it, and on
 * Node 20 requiring an ES module (read-worker.js has top-level await) goes through a
 * synchronous ESM path that can crash the process (a V8 fatal error) when the thread is
 * terminated while loading, as happens when a start fails. This CommonJS file loads the
 * worker with `import()` instead, once, and hands every task to it.
 */
type Handler = (task: Uint8Array | 'stats') => unknown;

let handler: Promise<Handler> | undefined;

module.exports = function runReadTask(task: Uint8Array | 'stats'): Promise<unknown> {
  handler ??= import('./read-worker.js').then((m: { default: Handler }) => m.default);
  return handler.then((run) => run(task));
};
