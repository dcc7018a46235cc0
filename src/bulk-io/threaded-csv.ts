/**
 * A group's CSV files read and converted in a thread of their own (csv-thread.ts), as
 * sources.ts readCsv would here: the same batches, errors, rejects and progress. Parsing
 * and converting is about a third of an import's time; in the thread it overlaps the key
 * look-ups and the bulk build of the batch before (docs/architecture.md, "Bulk import
 * and export"). The thread reads at most AHEAD batches ahead, so memory stays flat, and it
 * is ended when the reading ends, fails or is abandoned (Ctrl+C, an error in the load).
 */
import { Worker } from 'node:worker_threads';
import { fromMessage } from './batch-message.js';
import type { ParsedBatch } from './convert.js';
import { errorFrom, type FromReader, type ReaderSettings, type ToReader } from './csv-thread-messages.js';
import type { FileGroup, ReadOptions } from './sources.js';

/** Batches read ahead: one waiting while the next is parsed keeps both threads busy. */
const AHEAD = 2;

/** The thread's messages, taken one at a time; a thread that dies fails the next take. */
class Inbox {
  private readonly queue: FromReader[] = [];
  private waiting: { resolve(m: FromReader): void; reject(err: Error): void } | null = null;
  private failure: Error | null = null;

  constructor(worker: Worker, what: string) {
    worker.on('message', (m: FromReader) => {
      if (this.waiting === null) this.queue.push(m);
      else this.waiting.resolve(m);
      this.waiting = null;
    });
    worker.on('error', (err) => this.fail(err));
    worker.on('exit', (code) => this.fail(new Error(`the thread reading ${what} stopped (exit code ${code}) before the end`)));
  }

  take(): Promise<FromReader> {
    const m = this.queue.shift();
    if (m !== undefined) return Promise.resolve(m);
    if (this.failure !== null) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => (this.waiting = { resolve, reject }));
  }

  private fail(err: Error): void {
    this.failure ??= err;
    this.waiting?.reject(this.failure);
    this.waiting = null;
  }
}

export async function* readCsvInThread(group: FileGroup, options: ReadOptions): AsyncGenerator<ParsedBatch> {
  const { delimiter, quote, arrayDelimiter, idType, chunkBytes } = options;
  const settings: ReaderSettings = {
    group,
    delimiter,
    quote,
    arrayDelimiter,
    idType,
    chunkBytes,
    skipping: options.reject !== undefined,
    ahead: AHEAD,
  };
  const worker = new Worker(new URL('./csv-thread.js', import.meta.url), { workerData: settings });
  const inbox = new Inbox(worker, group.files.join(', '));
  try {
    for (;;) {
      const m = await inbox.take();
      // Rows rejected in the thread are counted here, in order: one too many stops the import.
      for (const r of m.rejects) options.reject!(r);
      options.onBytes(m.bytes);
      if (m.type === 'end') return;
      if (m.type === 'error') throw errorFrom(m.error);
      worker.postMessage({ type: 'more' } satisfies ToReader);
      // The thread checked both: each is one byte.
      yield fromMessage(m.batch, delimiter.charCodeAt(0), quote.charCodeAt(0));
    }
  } finally {
    await worker.terminate();
  }
}
