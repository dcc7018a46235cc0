/**
 * SHA-256 of files, computed in a thread of its own. A replica's snapshot download gives
 * each piece to the thread, which writes it and hashes it while the next pieces arrive: on
 * the event loop the hash took about half of its time (SHA-256 runs at about 1 GB/s a
 * core here), and the loop was not reading the socket meanwhile. The writer's digest of a
 * snapshot runs in such a thread too, beside the pieces it serves and every other request.
 */
import { closeSync, fstatSync, openSync } from 'node:fs';
import { Worker } from 'node:worker_threads';
import { openDirect } from './direct-writes.js';
import type { ToSink } from './hashing-sink-thread.js';
import type { PieceSink } from './pieces.js';

export class HashingSink implements PieceSink {
  private readonly worker: Worker;
  /** What waits for the thread's answers, in the order of the messages. */
  private readonly waiting: { resolve(answer: unknown): void; reject(err: Error): void }[] = [];
  private failed: Error | null = null;
  /** The O_DIRECT descriptor the thread writes through, this side's to close. */
  private direct: number | null;

  /**
   * Starts hashing the first `have` bytes of the file `fd` (open for writing when pieces
   * are to be put; the caller closes it after `close`). With the file's `path`, pieces are
   * written around the page cache where its filesystem allows it (direct-writes.ts). The
   * files `before` (the caller's descriptors) are hashed first, their first `bytes` each.
   */
  constructor(fd: number, have: number, path: string | null = null, before: readonly { fd: number; bytes: number }[] = []) {
    this.direct = path === null ? null : openDirect(path);
    this.worker = new Worker(new URL('./hashing-sink-thread.js', import.meta.url), {
      workerData: { fd, have, direct: this.direct, before },
    });
    this.worker.on('message', (answer: unknown) => this.waiting.shift()?.resolve(answer));
    this.worker.on('error', (err) => this.fail(err));
    this.worker.on('exit', (code) => this.fail(new Error(`the hashing thread exited (code ${code})`)));
  }

  /**
   * Writes the piece at `offset` and hashes it after the pieces before it. Its buffer (a
   * whole ArrayBuffer, from its first byte) is moved to the thread, not copied, and is
   * unusable here until the answer gives it back.
   */
  async put(piece: Buffer, offset: number): Promise<Buffer> {
    const buffer = piece.buffer as ArrayBuffer;
    if (piece.byteOffset !== 0) throw new Error('a piece for the hashing thread starts its buffer');
    return Buffer.from((await this.ask({ type: 'piece', buffer, length: piece.length, offset }, [buffer])) as ArrayBuffer);
  }

  /** The SHA-256 (hex) of everything hashed, once the file is synced to disk when `sync`. */
  async digest(sync: boolean): Promise<string> {
    return (await this.ask({ type: 'digest', sync })) as string;
  }

  /** Ends the thread (the file stays open: the caller's). */
  async close(): Promise<void> {
    this.failed ??= new Error('the hashing sink is closed');
    await this.worker.terminate();
    if (this.direct !== null) closeSync(this.direct);
    this.direct = null;
  }

  private ask(message: ToSink, transfer: ArrayBuffer[] = []): Promise<unknown> {
    if (this.failed !== null) return Promise.reject(this.failed);
    return new Promise((resolve, reject) => {
      this.waiting.push({ resolve, reject });
      this.worker.postMessage(message, transfer);
    });
  }

  private fail(err: Error): void {
    this.failed ??= err;
    for (const waiter of this.waiting.splice(0)) waiter.reject(this.failed);
  }
}

/** SHA-256 (hex) of a file, computed in a thread. */
export function fileSha256(path: string): Promise<string> {
  return filesSha256([path]);
}

/**
 * SHA-256 (hex) of files one after another (a vector segment's files, as the builder's
 * checksum covers them), computed in a thread: the event loop goes on serving meanwhile
 * (hundreds of megabytes at a million vectors).
 */
export async function filesSha256(paths: readonly string[]): Promise<string> {
  const fds: number[] = [];
  try {
    for (const path of paths) fds.push(openSync(path, 'r'));
    const files = fds.map((fd) => ({ fd, bytes: fstatSync(fd).size }));
    const last = files.pop()!;
    const sink = new HashingSink(last.fd, last.bytes, null, files);
    try {
      return await sink.digest(false);
    } finally {
      await sink.close();
    }
  } finally {
    for (const fd of fds) closeSync(fd);
  }
}
