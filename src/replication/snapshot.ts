/**
 * Snapshots between a writer and its replicas (docs/replication.md). The writer makes a
 * copy of its database in a read transaction (lmdb-js `backup`), announced once every
 * commit it holds is flushed, and serves it by pieces (pieces.ts): a replica asks for the
 * bytes from an offset, so a download that broke resumes where it stopped. The writer
 * computes the file's SHA-256 after the announcement, while the replica downloads and
 * hashes the pieces; the replica asks for it at the end and checks the whole file against
 * it, and the LSN and hash the copy itself holds against the announced ones, before it
 * uses it.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, existsSync, mkdirSync, openSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileSha256, HashingSink } from './hashing-sink.js';
import { downloadPieces, PIECE_BYTES, PieceRefused, readFilePiece, type FilePiece } from './pieces.js';

/** What the writer announces of a snapshot (its SHA-256 is asked for once it is downloaded). */
export interface SnapshotInfo {
  readonly id: string;
  readonly bytes: number;
  readonly lsn: number;
  readonly hash: string;
  readonly epoch: number;
}

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

/** The file of snapshot `id` in the writer's folder, or null when `id` cannot name one. */
function snapshotFile(dataDir: string, id: string): string | null {
  return ID.test(id) ? join(snapshotFolder(dataDir), id, 'data.mdb') : null;
}

/** Bytes of snapshot `id` from `offset` (at most PIECE_BYTES), or null when there is no such snapshot. */
export async function readPiece(dataDir: string, id: string, offset: number, length: number): Promise<FilePiece | null> {
  const file = snapshotFile(dataDir, id);
  return file === null ? null : readFilePiece(file, offset, length);
}

/**
 * A writer's snapshot digests. Each is computed once, from when the snapshot is announced,
 * while the replica downloads the pieces and hashes them itself: before, the writer read
 * and hashed the whole copy before announcing it, and the replica waited for that (a
 * second or two for a gigabyte). A writer that restarted since computes it when asked.
 */
export class SnapshotDigests {
  private readonly digests = new Map<string, Promise<string>>();

  constructor(private readonly dataDir: string) {}

  /** Starts the digest of a snapshot just made (and forgets those of removed snapshots). */
  start(id: string): void {
    for (const old of this.digests.keys()) if (!existsSync(snapshotFile(this.dataDir, old)!)) this.digests.delete(old);
    void this.of(id).catch(() => undefined); // a failure is answered to whoever asks
  }

  /** The SHA-256 of snapshot `id`, or null when there is no such snapshot. */
  async of(id: string): Promise<string | null> {
    const file = snapshotFile(this.dataDir, id);
    if (file === null || !existsSync(file)) return null;
    let digest = this.digests.get(id);
    if (digest === undefined) {
      digest = fileSha256(file);
      // A failed read is tried again at the next question.
      digest.catch(() => this.digests.delete(id));
      this.digests.set(id, digest);
    }
    return digest;
  }
}

/** Where a snapshot's time went (seconds): the writer making it, the pieces, the sync to disk, the wait for the writer's digest. */
export interface SnapshotTimes {
  readonly make: number;
  readonly transfer: number;
  readonly sync: number;
  readonly check: number;
}

/** A snapshot downloaded and checked: its announcement, its SHA-256, its file, where the time went, where a resumed download started. */
export interface DownloadedSnapshot {
  readonly info: SnapshotInfo;
  readonly sha256: string;
  readonly file: string;
  readonly times: SnapshotTimes;
  readonly resumedFrom: number;
}

/**
 * Downloads a snapshot of the writer into `folder` as `incoming-<id>.mdb`, checks its
 * SHA-256 against the writer's (a mismatch removes the file and throws) and syncs it. The
 * LSN and hash the copy holds are the loader's to check (Store.loadSnapshot, or the
 * restore). A download that was cut (a crash, a lost connection) resumes where it stopped:
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
  // already has first), in the thread that writes them, not over the whole file again.
  const fd = openSync(file, have > 0 ? 'r+' : 'w');
  const sink = new HashingSink(fd, have, file);
  let transferred: number;
  let sha: string;
  try {
    const ask = (offset: number, length: number) => ({ id: info.id, offset, length });
    await downloadPieces(`${base}/v2/replication/snapshot/piece`, ask, sink, have, info.bytes, `snapshot ${info.id}`, pieceBytes);
    transferred = performance.now();
    // On disk before it is used: a replica's first snapshot is renamed into place as its
    // data file, and a crash must not leave one whose end never reached the disk.
    sha = await sink.digest(true);
  } finally {
    await sink.close();
    closeSync(fd);
  }
  const synced = performance.now();
  const announced = await writerDigest(base, info.id);
  rmSync(join(folder, `incoming-${info.id}.json`), { force: true });
  if (sha !== announced) {
    rmSync(file, { force: true });
    throw new Error(`snapshot ${info.id} arrived with SHA-256 ${sha}, the writer's is ${announced}`);
  }
  const seconds = (from: number, to: number) => (to - from) / 1000;
  const times = {
    make: seconds(started, made),
    transfer: seconds(made, transferred),
    sync: seconds(transferred, synced),
    check: seconds(synced, performance.now()),
  };
  return { info, sha256: sha, file, times, resumedFrom: have };
}

/** The writer's SHA-256 of snapshot `id` (it may still be computing it: the answer waits). */
async function writerDigest(base: string, id: string): Promise<string> {
  const res = await fetch(`${base}/v2/replication/snapshot/digest`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ id }),
  });
  const text = await res.text();
  if (res.status !== 200) throw new PieceRefused(res.status, `the writer answered ${res.status} for the digest of snapshot ${id}: ${text}`);
  const { sha256 } = JSON.parse(text) as { sha256?: unknown };
  if (typeof sha256 !== 'string') throw new Error(`the writer's digest of snapshot ${id} is not a SHA-256: ${text}`);
  return sha256;
}
