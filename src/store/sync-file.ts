/**
 * fsync of a file, or of a folder (which makes its entries, a rename's result, durable).
 * Shared by the writers of files beside the LMDB environment: the vector builder's
 * segments (vector-builder.ts) and the bulk builder's environment (bulk-build.ts).
 */
import { closeSync, fsyncSync, openSync } from 'node:fs';

export function syncFile(path: string): void {
  const fd = openSync(path, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}
