/**
 * Writes a downloaded file's pieces around the page cache where the filesystem allows it.
 * On this machine's disk (ext4 on a virtual disk) buffered writes of a 1.2 GB snapshot were
 * throttled by the kernel's dirty-page accounting to 150-350 MB/s, whatever the early
 * syncs, while the same writes with O_DIRECT ran at 0.9-1.7 GB/s and needed no sync of
 * their data (docs/benchmarks.md, "A replica's snapshot written around the page cache").
 *
 * O_DIRECT asks for a buffer address, a file offset and a length that are multiples of the
 * device's block: each piece's whole 4 KiB blocks are copied into a buffer of this writer
 * at an aligned address and written through a descriptor opened with O_DIRECT; the head
 * and tail of a piece that do not fill a block go through the caller's buffered descriptor
 * (no block is written both ways). JavaScript cannot ask a buffer's address, so the first
 * direct write tries the first block at offsets of the buffer in 16-byte steps until the
 * kernel takes one (it refuses a misaligned one with EINVAL, writing nothing); a filesystem
 * without O_DIRECT (tmpfs) refuses the open, and every byte then goes through the buffered
 * descriptor.
 */
import { closeSync, constants, fdatasyncSync, fsyncSync, openSync, readSync, writeSync } from 'node:fs';

/** Offsets and lengths of direct writes are multiples of this (a page: every block size divides it). */
const BLOCK = 4096;

const alignUp = (n: number) => Math.ceil(n / BLOCK) * BLOCK;
const alignDown = (n: number) => Math.floor(n / BLOCK) * BLOCK;

function writeAll(fd: number, bytes: Buffer, from: number, to: number, position: number): void {
  for (let at = from; at < to;) at += writeSync(fd, bytes, at, to - at, position + (at - from));
}

/** A descriptor of `path` for direct writes, or null where the filesystem has none (tmpfs, some network filesystems). */
export function openDirect(path: string): number | null {
  if (constants.O_DIRECT === undefined) return null;
  try {
    return openSync(path, constants.O_WRONLY | constants.O_DIRECT);
  } catch {
    return null;
  }
}

export class DirectWriter {
  /** The O_DIRECT descriptor while direct writes are on. */
  private direct: number | null;
  private scratch: Buffer | null = null;
  /** Where in `scratch` an aligned address starts (null: not found yet). */
  private aligned: number | null = null;

  /**
   * `fd`: a buffered descriptor of the file; `direct`: one from openDirect, or null. Both
   * stay the caller's to close.
   */
  constructor(
    private readonly fd: number,
    direct: number | null,
  ) {
    this.direct = direct;
  }

  /** Whether pieces are written around the page cache (false until a first direct write worked, or for good after a refusal). */
  get isDirect(): boolean {
    return this.direct !== null && this.aligned !== null;
  }

  /** Writes `piece` at `offset`; returns how many of its bytes went through the page cache. */
  write(piece: Buffer, offset: number): number {
    const end = offset + piece.length;
    const a = alignUp(offset);
    const b = alignDown(end);
    if (this.direct === null || b <= a || !this.writeDirect(piece, a - offset, b - offset, a)) {
      writeAll(this.fd, piece, 0, piece.length, offset);
      return piece.length;
    }
    writeAll(this.fd, piece, 0, a - offset, offset);
    writeAll(this.fd, piece, b - offset, piece.length, b);
    return piece.length - (b - a);
  }

  /** Flushes the direct writes' data to the device (the caller syncs its own descriptor after). */
  sync(): void {
    if (this.direct !== null) fdatasyncSync(this.direct);
  }

  /** Bytes [from, to) of `piece`, whole blocks, at file offset `position`; false when direct writes are off. */
  private writeDirect(piece: Buffer, from: number, to: number, position: number): boolean {
    const length = to - from;
    if (this.scratch === null || this.scratch.length < length + BLOCK) {
      this.scratch = Buffer.allocUnsafeSlow(length + BLOCK);
      this.aligned = null;
    }
    const scratch = this.scratch;
    if (this.aligned === null) {
      // The first block alone, at each candidate address: a taken probe wrote the right
      // bytes at the right place, and the whole range follows.
      for (let at = 0; at < BLOCK && this.aligned === null; at += 16) {
        piece.copy(scratch, at, from, from + BLOCK);
        try {
          if (writeSync(this.direct!, scratch, at, BLOCK, position) < BLOCK) writeAll(this.fd, scratch, at, at + BLOCK, position);
          this.aligned = at;
        } catch (err) {
          if ((err as NodeJS.ErrnoException).code !== 'EINVAL') throw err;
        }
      }
      if (this.aligned === null) {
        // No address was taken: this filesystem's O_DIRECT wants more.
        this.direct = null;
        return false;
      }
    }
    piece.copy(scratch, this.aligned, from, to);
    const n = writeSync(this.direct!, scratch, this.aligned, length, position);
    // A short write (a full disk) leaves an unaligned rest: through the page cache, whose
    // write then reports the error itself (ENOSPC, not O_DIRECT's EINVAL).
    if (n < length) writeAll(this.fd, scratch, this.aligned + n, this.aligned + length, position + n);
    return true;
  }
}

/** Bytes read at once by copyFileToDisk. */
const COPY_CHUNK = 8 << 20;

/**
 * Copies the file `from` to a new file `to` and syncs it: its whole blocks around the page
 * cache where the filesystem allows it (a restore of a 1.2 GB backup: see the module's
 * comment for why). The copy is on disk when this returns.
 */
export function copyFileToDisk(from: string, to: string): void {
  const source = openSync(from, 'r');
  const fd = openSync(to, 'wx');
  const direct = openDirect(to);
  try {
    const writer = new DirectWriter(fd, direct);
    const chunk = Buffer.allocUnsafeSlow(COPY_CHUNK);
    for (let at = 0; ;) {
      const n = readSync(source, chunk, 0, COPY_CHUNK, at);
      if (n === 0) break;
      writer.write(chunk.subarray(0, n), at);
      at += n;
    }
    writer.sync();
    fsyncSync(fd);
  } finally {
    if (direct !== null) closeSync(direct);
    closeSync(fd);
    closeSync(source);
  }
}
