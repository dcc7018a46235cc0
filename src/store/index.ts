/** The storage engine: `openStore` is the only entry point; everything else is types. */
export { openStore } from './open.js';
export type { Adjacent, EdgeRecord, GraphReader, GraphWriter, NodeRecord, Store, StoreOptions, WriteOptions } from './types.js';
