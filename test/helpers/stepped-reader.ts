/**
 * A reader thread driven in steps, as a pooled read worker is: it opens a read-only store
 * and runs a script synchronously, with `step(n)` to hand control to the test (which
 * waits with `reached` and answers with `resume`) while it blocks in Atomics.wait, so
 * the thread never returns to its event loop mid-script.
 */
import { Worker } from 'node:worker_threads';

const STORE_URL = new URL('../../src/store/index.js', import.meta.url).href;

export interface SteppedReader {
  /** The object the script answered. */
  readonly result: Promise<Record<string, any>>;
  /** Resolves once the thread has exited. */
  readonly exited: Promise<unknown>;
  /** Waits until the script called step(value). */
  reached(value: number, ms?: number): Promise<void>;
  /** Lets the script go on past its step (any value other than the step's). */
  resume(value: number): void;
}

/**
 * Starts a reader whose `body` (JavaScript, run with `store`, `step`, `out` and
 * `workerData.data` in scope) fills `out`, which the thread posts back.
 */
export function startSteppedReader(path: string, body: string, data: unknown = null): SteppedReader {
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const script = `
const { workerData, parentPort } = require('node:worker_threads');
(async () => {
  const { openStore } = await import(workerData.storeUrl);
  const store = await openStore({ path: workerData.path, readOnly: true });
  const flag = new Int32Array(workerData.flag);
  const step = (n) => {
    Atomics.store(flag, 0, n);
    Atomics.notify(flag, 0);
    Atomics.wait(flag, 0, n);
  };
  const out = {};
  ${body}
  parentPort.postMessage(out);
  await store.close();
})().catch((err) => parentPort.postMessage({ error: String((err && err.stack) || err) }));
`;
  const worker = new Worker(script, { eval: true, workerData: { storeUrl: STORE_URL, path, flag: flag.buffer, data } });
  // Listened for at once: the thread may be gone before the test looks.
  const exited = new Promise((resolve) => worker.once('exit', resolve));
  const result = new Promise<Record<string, any>>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
  });
  return {
    result,
    exited,
    async reached(value, ms = 30_000) {
      const deadline = Date.now() + ms;
      while (Atomics.load(flag, 0) !== value) {
        if (Date.now() > deadline) throw new Error(`the reader did not reach step ${value}`);
        await new Promise((resolve) => setTimeout(resolve, 1));
      }
    },
    resume(value) {
      Atomics.store(flag, 0, value);
      Atomics.notify(flag, 0);
    },
  };
}
