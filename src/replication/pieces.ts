/**
 * Files sent between a writer and its replicas by pieces (docs/replication.md): snapshots
 * and vector segment files. The writer answers the bytes of a file from an offset; the
 * replica asks for the next pieces while it writes the last one, and a download that broke
 * resumes where it stopped.
 */
import { write } from 'node:fs';
import { open as openFile, stat } from 'node:fs/promises';
import { request } from 'undici';

/** Largest piece served at once. */
export const PIECE_BYTES = 8 * 1024 * 1024;
/** Pieces asked for at once by a download, besides the one being written. */
const PIECES_IN_FLIGHT = 2;

/** Bytes of a file read for an answer, and what gives its buffer back once they are sent. */
export interface FilePiece {
  readonly bytes: Buffer;
  /** The bytes are sent (HttpResponse.sent): the buffer serves a later piece. */
  release(): void;
}

/**
 * Buffers of whole pieces, used again once sent: a new 8 MiB buffer per piece made the
 * writer collect garbage for 1.7 s while it served a 1.2 GB snapshot in 8 s (external
 * memory set off a full collection every few pieces).
 */
const spare: Buffer[] = [];
/** Spare buffers kept: the pieces a download has in flight, and one more download's. */
const MAX_SPARE = 4;

function pieceBuffer(n: number): Buffer {
  if (n < PIECE_BYTES / 2) return Buffer.allocUnsafe(n); // small pieces (tests, small files): not kept
  return spare.pop() ?? Buffer.allocUnsafe(PIECE_BYTES);
}

/** Bytes of a file from `offset` (at most PIECE_BYTES), or null when there is no such file or the offset is bad. */
export async function readFilePiece(path: string, offset: number, length: number): Promise<FilePiece | null> {
  if (!Number.isSafeInteger(offset) || offset < 0) return null;
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch {
    return null;
  }
  const n = Math.max(0, Math.min(length, PIECE_BYTES, size - offset));
  const buffer = pieceBuffer(n); // filled below; only what was read is answered
  let released = false; // twice would hand the buffer to two pieces at once
  const release = () => {
    if (!released && buffer.length === PIECE_BYTES && spare.length < MAX_SPARE) spare.push(buffer);
    released = true;
  };
  const file = await openFile(path, 'r');
  try {
    let at = 0;
    while (at < n) {
      const { bytesRead } = await file.read(buffer, at, n - at, offset + at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return { bytes: buffer.subarray(0, at), release };
  } catch (err) {
    release();
    throw err;
  } finally {
    await file.close();
  }
}

/** The writer refused a piece (`status`: 404 when it no longer has the file). */
export class PieceRefused extends Error {
  constructor(
    readonly status: number,
    message: string,
  ) {
    super(message);
    this.name = 'PieceRefused';
  }
}

/**
 * Where a download's pieces go, in order. `put` takes a piece (a view of a buffer of its
 * own) and resolves, once it is done with it, with a buffer to receive a later piece into
 * (the same one, or the one a thread gave back); the pieces after it travel meanwhile.
 */
export interface PieceSink {
  put(piece: Buffer, offset: number): Promise<Buffer>;
}

/** `fs.write` of a whole buffer at `position`, on the thread pool. */
function writeAt(fd: number, data: Uint8Array, position: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const from = (at: number) =>
      write(fd, data, at, data.length - at, position + at, (err, written) => {
        if (err) reject(err);
        else if (at + written < data.length) from(at + written);
        else resolve();
      });
    from(0);
  });
}

/** A sink writing each piece at its offset in `fd`. */
export function fileSink(fd: number): PieceSink {
  return { put: (piece, offset) => writeAt(fd, piece, offset).then(() => Buffer.from(piece.buffer, 0, piece.buffer.byteLength)) };
}

/**
 * Downloads `bytes` bytes by pieces into `sink` from byte `have` on: two pieces travel while
 * the one before them is put, in order (so a file grows in order, and its size is where a
 * cut download resumes). A piece shorter than asked, other than the last, is an error: the
 * pieces after it were asked for at offsets it did not reach.
 *
 * The body is streamed (undici's `request`) into a buffer kept for the next pieces: the
 * WHATWG `fetch` body moved about 120 MiB/s here against about 1 GiB/s streamed. Each
 * buffer is a whole ArrayBuffer, so a sink may move it to a thread of its own and back
 * (copying into shared memory instead was five times slower than a plain copy).
 */
export async function downloadPieces(
  url: string,
  /** The body asking for `length` bytes from `offset` (`length` is `pieceBytes`). */
  ask: (offset: number, length: number) => object,
  sink: PieceSink,
  have: number,
  bytes: number,
  what: string,
  pieceBytes = PIECE_BYTES,
): Promise<void> {
  const spare: Buffer[] = [];
  const bufferSize = Math.min(pieceBytes, bytes - have); // no later piece is larger
  const fetchPiece = async (offset: number): Promise<Buffer> => {
    const expected = Math.min(pieceBytes, bytes - offset);
    const res = await request(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(ask(offset, pieceBytes)),
    });
    if (res.statusCode < 200 || res.statusCode >= 300) {
      throw new PieceRefused(
        res.statusCode,
        `the writer answered ${res.statusCode} for ${what} at byte ${offset}: ${await res.body.text()}`,
      );
    }
    const buffer = spare.pop() ?? Buffer.from(new ArrayBuffer(bufferSize));
    let at = 0;
    for await (const chunk of res.body as AsyncIterable<Buffer>) {
      if (at + chunk.length > expected) throw new Error(`${what} came with more than ${expected} bytes at byte ${offset}`);
      chunk.copy(buffer, at);
      at += chunk.length;
    }
    return buffer.subarray(0, at);
  };
  const inFlight: { offset: number; piece: Promise<Buffer> }[] = [];
  let next = have;
  const fill = () => {
    while (inFlight.length < PIECES_IN_FLIGHT && next < bytes) {
      const piece = fetchPiece(next);
      // Awaited in its turn below; handled now, so a piece that fails while an earlier one
      // is awaited is not an unhandled rejection (which ends the process).
      piece.catch(() => undefined);
      inFlight.push({ offset: next, piece });
      next += Math.min(pieceBytes, bytes - next);
    }
  };
  while (have < bytes) {
    fill();
    const { offset, piece } = inFlight.shift()!;
    const got = await piece;
    if (got.length === 0) throw new Error(`${what} ended at byte ${offset} of ${bytes}`);
    if (got.length !== Math.min(pieceBytes, bytes - offset)) {
      throw new Error(`${what} came with ${got.length} bytes at byte ${offset}, not ${Math.min(pieceBytes, bytes - offset)}`);
    }
    fill(); // the next piece travels while this one is put
    const length = got.length;
    spare.push(await sink.put(got, offset));
    have = offset + length;
  }
}
