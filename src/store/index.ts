/**
 * The storage engine's entry point: the only module of src/store that the layers above
 * import (.dependency-cruiser.cjs checks it). `openStore` opens a database; the data
 * folder's checks and writer lock are for start-up; the rest is what the executors read.
 */
export { openStore, LogMismatch, snapshotPosition, checkSnapshot } from './open.js';
export { chainHash, entryHeader, ZERO_HASH, HASH_BYTES, type EntryHeader } from './change-log.js';
export { DataFolderError } from './folder.js';
export { lockDataFolder, writerLockHolder, type LockHolder, type WriterLock } from './lock.js';
export type * from './types.js';

/**
 * Column chunks, as scans read them (GraphReader.columnBlock): the values of one property
 * for the slots of a block, and the chunk format a request uses for the blocks it gathers
 * from a label's nodes (src/exec/label-view.ts).
 */
export { bit, chunkValue, decodeChunk, encodeChunk, type NumChunk, type StrChunk } from './columns.js';
export { COLUMN_BLOCK } from './layout.js';
/** A stored property as a vector, as vector indexes read it. */
export { vectorValues } from './vector-index.js';
// A replica's copies of its writer's vector segment files (src/replication/segments.ts).
export { isSegmentName, segmentDir } from './vector-segments.js';
export { syncFile } from './sync-file.js';
// The offline import's build (src/bulk-io, docs/import-export.md).
export { BulkBuild, type BulkColumn } from './bulk-build.js';
