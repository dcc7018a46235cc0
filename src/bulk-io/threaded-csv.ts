/**
 * An import's CSV groups read and converted in a thread of their own (csv-thread.ts), as
 * sources.ts readCsv would here: the same batches, errors, rejects and progress. Parsing
 * and converting is about a third of an import's time; in the thread it overlaps the key
 * look-ups and the bulk build of the batch before (docs/architecture.md, "Bulk import
 * and export"). One thread reads every group, in the import's order, so it starts once
 * and parses the first edges while the last nodes load. It reads at most AHEAD batches
 * ahead, so memory stays flat; `close` ends it, whether the import ended, failed or was
 * interrupted.
 */
import { Worker } from 'node:worker_threads';
import { fromMessage } from './batch-message.js';
import type { ParsedBatch } from './convert.js';
import { errorFrom, type FromReader, type ReaderSettings, type ToReader } from './csv-thread-messages.js';
import type { FileGroup, ReadOptions } from './sources.js';

/** Batches read ahead: one waiting while the next is parsed keeps both threads busy. */
const AHEAD = 2;
/**
 * CSV bytes per batch in the thread: a quarter of sources.ts's, so the load waits for
 * one small first batch rather than, for a small file, all of it (the batch size makes
 * no difference to what is written: the build fills its chunks across batches).
 */
const THREAD_CHUNK = 1024 * 1024;

/**
 * What every group is read with; `skipping`: rows that fail are rejected (--skip-bad-rows),
 * not thrown; `chunkBytes` (tests): CSV bytes per batch, THREAD_CHUNK when undefined.
 */
export type ThreadSettings = Omit<ReaderSettings, 'groups' | 'ahead' | 'chunkBytes'> & { readonly chunkBytes?: number };

/** The thread's messages, taken one at a time; a thread that died fails the take that finds none. */
class Inbox {
  private readonly queue: FromReader[] = [];
  private waiting: { resolve(m: FromReader): void; reject(err: Error): void } | null = null;
  private failure: Error | null = null;

  constructor(worker: Worker) {
    worker.on('message', (m: FromReader) => {
      if (this.waiting === null) this.queue.push(m);
      else this.waiting.resolve(m);
      this.waiting = null;
    });
    worker.on('error', (err) => this.fail(err));
    // Its messages all arrive before 'exit': a take that finds none after it gets this.
    worker.on('exit', (code) => this.fail(new Error(`the CSV reading thread stopped (exit code ${code}) before the end of the files`)));
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

export class CsvThread {
  private readonly worker: Worker | null;
  private readonly inbox: Inbox | null;
  /** The next group to read (the thread reads them in order). */
  private next = 0;

  /** Starts reading `groups` (CSV ones, in the order they will be read); no thread when there is none. */
  constructor(
    private readonly groups: readonly FileGroup[],
    private readonly settings: ThreadSettings,
  ) {
    if (groups.length === 0) {
      this.worker = this.inbox = null;
      return;
    }
    const { delimiter, quote, arrayDelimiter, idType, skipping, chunkBytes } = settings;
    const workerData: ReaderSettings = {
      groups,
      delimiter,
      quote,
      arrayDelimiter,
      idType,
      skipping,
      chunkBytes: chunkBytes ?? THREAD_CHUNK,
      ahead: AHEAD,
    };
    this.worker = new Worker(new URL('./csv-thread.js', import.meta.url), { workerData });
    this.inbox = new Inbox(this.worker);
  }

  /**
   * The next group's batches; reports bytes and rejects through `options` as readCsv does.
   * A read left part-way (the import failed) leaves the thread good only for `close`.
   */
  async *read(group: FileGroup, options: Pick<ReadOptions, 'reject' | 'onBytes'>): AsyncGenerator<ParsedBatch> {
    if (this.worker === null || this.inbox === null || this.groups[this.next] !== group) {
      throw new Error(`CSV groups read out of the order given, or after a read left part-way: ${group.files.join(', ')}`);
    }
    this.next++;
    // The thread checked both: each is one byte.
    const delimiter = this.settings.delimiter.charCodeAt(0);
    const quote = this.settings.quote.charCodeAt(0);
    let ended = false;
    try {
      for (;;) {
        const m = await this.inbox.take();
        // Rows rejected in the thread are counted here, in order: one too many stops the import.
        for (const r of m.rejects) options.reject!(r);
        options.onBytes(m.bytes);
        if (m.type === 'end') {
          ended = true;
          return;
        }
        if (m.type === 'error') throw errorFrom(m.error);
        this.worker.postMessage({ type: 'more' } satisfies ToReader);
        yield fromMessage(m.batch, delimiter, quote);
      }
    } finally {
      // The rest of this group's messages would come to the next read.
      if (!ended) this.next = this.groups.length;
    }
  }

  /** Ends the thread (what it read ahead is dropped). */
  async close(): Promise<void> {
    await this.worker?.terminate();
  }
}
