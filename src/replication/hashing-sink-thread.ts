/**
 * The thread of a HashingSink (hashing-sink.ts): hashes the first `have` bytes of the file
 * `fd` (a resumed download's, or a whole file's; after the files `before` it, for one
 * checksum over several), then writes each piece it is given at
 * its offset and hashes it, in order, answering each message once it is done (a piece's
 * buffer, moved here, is moved back). An error ends the thread (the sink rejects what it
 * waits for).
 */
import { createHash } from 'node:crypto';
import { fdatasync, fsyncSync, readSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { DirectWriter } from './direct-writes.js';

export type ToSink =
  | { readonly type: 'piece'; readonly buffer: ArrayBuffer; readonly length: number; readonly offset: number }
  | { readonly type: 'digest'; readonly sync: boolean };

/**
 * Bytes written through the page cache between two early syncs (direct writes need none).
 * The kernel starts writing dirty pages back only past a tenth of memory (or after 30 s),
 * so without them the whole file waited for the last fsync (0.7 s for 1.2 GB here); an
 * early sync runs on the thread pool while the pieces go on arriving, so the disk writes
 * during the transfer.
 */
const SYNC_EVERY = 64 << 20;

const { fd, have, direct, before } = workerData as {
  fd: number;
  have: number;
  direct: number | null;
  /** Files hashed first, in order, each its first `bytes` (the files of one checksum before `fd`). */
  before: readonly { fd: number; bytes: number }[];
};
/** Pieces' whole blocks go around the page cache through `direct` when there is one (direct-writes.ts). */
const writer = new DirectWriter(fd, direct);
const hash = createHash('sha256');
const files = [...before, { fd, bytes: have }];
const chunk = Buffer.allocUnsafe(Math.min(4 << 20, Math.max(1, ...files.map((f) => f.bytes))));
for (const file of files) {
  for (let at = 0; at < file.bytes;) {
    const n = readSync(file.fd, chunk, 0, Math.min(chunk.length, file.bytes - at), at);
    if (n === 0) throw new Error(`the file ends at byte ${at}, not ${file.bytes}`);
    hash.update(chunk.subarray(0, n));
    at += n;
  }
}

let unsynced = 0;
/** The early sync running, if any, and the first error one reported. */
let syncing: Promise<void> | null = null;
let syncError: Error | null = null;

function syncEarly(): void {
  unsynced = 0;
  syncing = new Promise((resolve) =>
    fdatasync(fd, (err) => {
      // Kept for the last sync to throw: the kernel reports a failed write-back once, to
      // the first sync that asks, so the last one would not see it again.
      syncError ??= err;
      syncing = null;
      resolve();
    }),
  );
}

parentPort!.on('message', (message: ToSink) => {
  if (message.type === 'piece') {
    const piece = Buffer.from(message.buffer, 0, message.length);
    unsynced += writer.write(piece, message.offset);
    hash.update(piece);
    if (unsynced >= SYNC_EVERY && syncing === null) syncEarly();
    // The buffer goes back for a later piece.
    parentPort!.postMessage(message.buffer, [message.buffer]);
  } else {
    // Thrown out of the thread: the sink's `error` event rejects the digest with it.
    finish(message.sync).catch((err: unknown) =>
      setImmediate(() => {
        throw err;
      }),
    );
  }
});

/** The digest, once the file is on disk when `sync` (a failure ends the thread with it). */
async function finish(sync: boolean): Promise<void> {
  if (sync) {
    await syncing;
    if (syncError !== null) throw syncError;
    writer.sync();
    fsyncSync(fd);
  }
  parentPort!.postMessage(hash.digest('hex'));
}
