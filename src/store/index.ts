/** The storage engine: `openStore` is the entry point; the data folder's checks and writer lock are exported for start-up. */
export { openStore } from './open.js';
export { DataFolderError } from './folder.js';
export { lockDataFolder, writerLockHolder, type LockHolder, type WriterLock } from './lock.js';
export type { Adjacent, EdgeRecord, GraphReader, GraphWriter, NodeRecord, Store, StoreOptions, WriteOptions } from './types.js';
