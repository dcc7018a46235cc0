/**
 * Failures of the storage engine as `storage_error`s that say what happened. LMDB reports
 * a full disk as ENOSPC, or as EIO when the kernel accepted part of a page write (a short
 * write); either way the transaction was rolled back. The free space of the filesystem is
 * read after the failure so the message can say which it was.
 */
import { statfsSync } from 'node:fs';
import { GraphError } from '../core/errors.js';

const ENOSPC = 28;
const EIO = 5;
const EDQUOT = 122;
/** MDB_MAP_FULL: the memory map (mapSize) has no room left. */
const MDB_MAP_FULL = -30792;
/** Below this much free space, an I/O error while writing is taken for a full disk. */
const NEARLY_FULL_BYTES = 4 * 1024 * 1024;

/** Errors thrown by lmdb-js carry the LMDB or errno code as a number. */
export function isStorageFailure(err: unknown): err is Error & { code: number } {
  return err instanceof Error && typeof (err as { code?: unknown }).code === 'number';
}

function freeBytes(path: string): number | undefined {
  try {
    const s = statfsSync(path);
    return s.bavail * s.bsize;
  } catch {
    return undefined;
  }
}

function mib(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MiB`;
}

/** What a failed storage operation on the database in `path` means for the client. */
export function storageFailure(err: unknown, path: string, mapSize?: number): GraphError {
  const code = isStorageFailure(err) ? err.code : undefined;
  const detail = err instanceof Error ? err.message.split(':')[0]! : String(err);
  if (code === MDB_MAP_FULL) {
    const size = mapSize === undefined ? '' : ` (${mib(mapSize)})`;
    return new GraphError('storage_error', `the LMDB map of ${path} is full${size}; the write was rolled back`);
  }
  const free = freeBytes(path);
  if (code === ENOSPC || code === EDQUOT || (code === EIO && free !== undefined && free < NEARLY_FULL_BYTES)) {
    const left = free === undefined ? '' : ` (${mib(free)} free)`;
    return new GraphError('storage_error', `the disk holding ${path} is full${left}; the write was rolled back: free space, then retry`);
  }
  return new GraphError(
    'storage_error',
    `storage failure writing ${path}: ${detail}${code === undefined ? '' : ` (code ${code})`}; the write was rolled back`,
  );
}
