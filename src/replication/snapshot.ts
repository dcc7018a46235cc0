/**
 * Snapshots between a writer and its replicas (docs/replication.md). The writer makes a
 * copy of its database in a read transaction (lmdb-js `backup`), returned once
 * every commit it holds is flushed, and serves it by pieces: a replica asks for the bytes
 * from an offset, so a download that broke resumes where it stopped. The replica checks
 * the whole file's SHA-256 and the LSN and hash the copy itself holds against what the
 * writer announced before it uses it.
 */
import { createHash, randomUUID } from 'node:crypto';
import {
  closeSync,
  createReadStream,
  existsSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from 'node:fs';
import { open as openFile, stat } from 'node:fs/promises';
import { join } from 'node:path';

/** What the writer announces of a snapshot. */
export interface SnapshotInfo {
  readonly id: string;
  readonly bytes: number;
  readonly sha256: string;
  readonly lsn: number;
  readonly hash: string;
  readonly epoch: number;
}

/** Largest piece served at once. */
export const PIECE_BYTES = 8 * 1024 * 1024;
/** Pieces asked for at once by a download. */
const PIECES_IN_FLIGHT = 2;
/** Snapshots older than this are removed when a new one is made. */
const KEEP_MS = 15 * 60 * 1000;
const ID = /^[0-9a-f-]{36}$/;

export function snapshotFolder(dataDir: string): string {
  return join(dataDir, 'snapshots');
}

/**
 * A fresh snapshot's folder (lmdb-js writes a copy as `data.mdb` in a folder) and the file
 * it will hold; stale snapshots are removed.
 */
export function newSnapshotPath(dataDir: string): { id: string; folder: string; file: string } {
  const root = snapshotFolder(dataDir);
  mkdirSync(root, { recursive: true });
  for (const name of readdirSync(root)) {
    const path = join(root, name);
    if (name.startsWith('incoming-')) continue;
    if (Date.now() - statSync(path).mtimeMs > KEEP_MS) rmSync(path, { recursive: true, force: true });
  }
  const id = randomUUID();
  const folder = join(root, id);
  mkdirSync(folder);
  return { id, folder, file: join(folder, 'data.mdb') };
}

export async function fileSha256(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** Bytes of snapshot `id` from `offset` (at most PIECE_BYTES), or null when there is no such snapshot. */
export async function readPiece(dataDir: string, id: string, offset: number, length: number): Promise<Buffer | null> {
  if (!ID.test(id)) return null;
  return readFilePiece(join(snapshotFolder(dataDir), id, 'data.mdb'), offset, length);
}

/** Bytes of a file from `offset` (at most PIECE_BYTES), or null when there is no such file or the offset is bad. */
export async function readFilePiece(path: string, offset: number, length: number): Promise<Buffer | null> {
  if (!Number.isSafeInteger(offset) || offset < 0) return null;
  let size: number;
  try {
    size = (await stat(path)).size;
  } catch {
    return null;
  }
  const n = Math.max(0, Math.min(length, PIECE_BYTES, size - offset));
  const out = Buffer.allocUnsafe(n); // filled below; only what was read is answered
  const file = await openFile(path, 'r');
  try {
    let at = 0;
    while (at < n) {
      const { bytesRead } = await file.read(out, at, n - at, offset + at);
      if (bytesRead === 0) break;
      at += bytesRead;
    }
    return out.subarray(0, at);
  } finally {
    await file.close();
  }
}

/**
 * Downloads `bytes` bytes by pieces into `fd` from byte `have` on, two pieces in flight
 * (the next one travels while the last is written), each handed to `onPiece` in order
 * once written (a running checksum). A piece shorter than asked, other than the last, is
 * an error: the pieces after it were asked for at offsets it did not reach.
 */
export async function downloadPieces(
  url: string,
  /** The body asking for `length` bytes from `offset` (`length` is `pieceBytes`). */
  ask: (offset: number, length: number) => object,
  fd: number,
  have: number,
  bytes: number,
  what: string,
  onPiece: (piece: Buffer) => void = () => undefined,
  pieceBytes = PIECE_BYTES,
): Promise<void> {
  const fetchPiece = async (offset: number): Promise<Buffer> => {
    const piece = await fetch(url, { method: 'POST', body: JSON.stringify(ask(offset, pieceBytes)) });
    if (!piece.ok)
      throw new PieceRefused(piece.status, `the writer answered ${piece.status} for ${what} at byte ${offset}: ${await piece.text()}`);
    return Buffer.from(await piece.arrayBuffer());
  };
  const inFlight: { offset: number; piece: Promise<Buffer> }[] = [];
  let next = have;
  while (have < bytes) {
    while (inFlight.length < PIECES_IN_FLIGHT && next < bytes) {
      const piece = fetchPiece(next);
      // Awaited in its turn below; handled now, so a piece that fails while an earlier one
      // is awaited is not an unhandled rejection (which ends the process).
      piece.catch(() => undefined);
      inFlight.push({ offset: next, piece });
      next += Math.min(pieceBytes, bytes - next);
    }
    const { offset, piece } = inFlight.shift()!;
    const got = await piece;
    if (got.length === 0) throw new Error(`${what} ended at byte ${offset} of ${bytes}`);
    if (got.length !== Math.min(pieceBytes, bytes - offset)) {
      throw new Error(`${what} came with ${got.length} bytes at byte ${offset}, not ${Math.min(pieceBytes, bytes - offset)}`);
    }
    writeSync(fd, got, 0, got.length, offset);
    onPiece(got);
    have = offset + got.length;
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
 * Downloads a fresh snapshot of the writer at `writerUrl` into the file `fileFor(id)` (a
 * partial file of the same snapshot is resumed), by pieces, and checks its SHA-256 against
 * the announced one (a mismatch removes the file and throws). The LSN and hash the copy
 * holds are the loader's to check (Store.loadSnapshot, or the restore).
 */
/** Where a snapshot's time went (seconds): the writer making it, the pieces, the replica's checksum. */
export interface SnapshotTimes {
  readonly make: number;
  readonly transfer: number;
  readonly check: number;
}

/** A snapshot downloaded and checked: its announcement, its file, where the time went, where a resumed download started. */
export interface DownloadedSnapshot {
  readonly info: SnapshotInfo;
  readonly file: string;
  readonly times: SnapshotTimes;
  readonly resumedFrom: number;
}

/**
 * Downloads a snapshot of the writer into `folder` as `incoming-<id>.mdb` and checks its
 * SHA-256. A download that was cut (a crash, a lost connection) resumes where it stopped:
 * the announcement is kept beside the file (`incoming-<id>.json`) until the file is whole,
 * and the next call continues that snapshot while the writer still holds it (15 minutes),
 * else asks for a new one. `pieceBytes`: the size asked per piece (tests ask smaller).
 */
export async function downloadSnapshot(writerUrl: string, folder: string, pieceBytes = PIECE_BYTES): Promise<DownloadedSnapshot> {
  const base = writerUrl.replace(/\/+$/, '');
  const started = performance.now();
  const pending = pendingDownload(folder);
  if (pending !== null) {
    try {
      return await fetchSnapshot(base, folder, pending, started, pieceBytes);
    } catch (err) {
      if (!(err instanceof PieceRefused && err.status === 404)) throw err;
      clearDownloads(folder); // the writer no longer holds it: a new one
    }
  }
  const res = await fetch(`${base}/v2/replication/snapshot`, { method: 'POST' });
  if (!res.ok) throw new Error(`the writer at ${base} answered ${res.status} to a snapshot request: ${await res.text()}`);
  const info = (await res.json()) as SnapshotInfo;
  clearDownloads(folder);
  writeFileSync(join(folder, `incoming-${info.id}.json`), JSON.stringify(info));
  return fetchSnapshot(base, folder, info, started, pieceBytes);
}

/** The announcement of a download that was cut, when its file is still there. */
function pendingDownload(folder: string): SnapshotInfo | null {
  for (const name of existsSync(folder) ? readdirSync(folder) : []) {
    const m = /^incoming-([0-9a-f-]{36})\.json$/.exec(name);
    if (m === null || !existsSync(join(folder, `incoming-${m[1]}.mdb`))) continue;
    try {
      const info = JSON.parse(readFileSync(join(folder, name), 'utf8')) as SnapshotInfo;
      if (info.id === m[1] && Number.isSafeInteger(info.bytes)) return info;
    } catch {
      // unreadable: started over below
    }
  }
  return null;
}

function clearDownloads(folder: string): void {
  for (const name of existsSync(folder) ? readdirSync(folder) : []) {
    if (name.startsWith('incoming-')) rmSync(join(folder, name), { force: true });
  }
}

async function fetchSnapshot(
  base: string,
  folder: string,
  info: SnapshotInfo,
  started: number,
  pieceBytes: number,
): Promise<DownloadedSnapshot> {
  const file = join(folder, `incoming-${info.id}.mdb`);
  const have = existsSync(file) ? Math.min(statSync(file).size, info.bytes) : 0;
  const made = performance.now();
  // The checksum runs over the pieces as they arrive (over what a resumed download
  // already has first), not over the whole file once more at the end.
  const hash = createHash('sha256');
  if (have > 0) for await (const chunk of createReadStream(file, { end: have - 1 })) hash.update(chunk as Buffer);
  const fd = openSync(file, have > 0 ? 'r+' : 'w');
  try {
    const ask = (offset: number, length: number) => ({ id: info.id, offset, length });
    const onPiece = (piece: Buffer) => hash.update(piece);
    await downloadPieces(`${base}/v2/replication/snapshot/piece`, ask, fd, have, info.bytes, `snapshot ${info.id}`, onPiece, pieceBytes);
  } finally {
    closeSync(fd);
  }
  const transferred = performance.now();
  const sha = hash.digest('hex');
  rmSync(join(folder, `incoming-${info.id}.json`), { force: true });
  if (sha !== info.sha256) {
    rmSync(file, { force: true });
    throw new Error(`snapshot ${info.id} arrived with SHA-256 ${sha}, the writer announced ${info.sha256}`);
  }
  const times = { make: (made - started) / 1000, transfer: (transferred - made) / 1000, check: (performance.now() - transferred) / 1000 };
  return { info, file, times, resumedFrom: have };
}
