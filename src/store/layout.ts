/**
 * Sub-database names, key shapes and block sizes of the storage layout (format 3).
 *
 * The layout is shaped by what LMDB charges for: every put copies the B-tree pages it
 * touches, so the cost of a write batch grows with the number of distinct pages, not
 * bytes. Edges therefore live in blocks of 256 and adjacency in blocks of 32 nodes' lists
 * that a batch rewrites once, instead of four random keys per edge; node properties also
 * live in column chunks of 1024 nodes, so a filtered scan reads a few chunks instead of
 * every record.
 *
 * - `nodes`: node id (u64 BE) -> msgpack [labelId, props]; the source of truth for a node.
 * - `node_columns`: [propertyId u32 BE][block u64 BE] -> column chunk (columns.ts). Property
 *   id 0 is the label column: the label id of every node of the block, 0 where none.
 * - `adjacency`: [block u64 BE][dir u8][labelId u32 BE] -> the lists of the block's 32 nodes
 *   in that direction and label, (other, edge) pairs in edge id order (adjacency-blocks.ts).
 * - `adjacency_lists`: [node u64 BE][dir u8][labelId u32 BE][chunk u32 BE] -> the pairs of
 *   a list longer than 128, in chunks (adjacency-lists.ts).
 * - `edge_blocks`: block (u64 BE) -> 256 edge records (edge-blocks.ts).
 * - `dictionary`: label and property names <-> small ids (dictionary.ts).
 * - `meta`: format version, id counters, element counts.
 * - `indexes`: the index catalogue and its operations (index-catalog.ts).
 * - `index_entries`: secondary index entries [index id u32][value key][element id u64]
 *   (secondary-index.ts).
 * - `text_index`: full-text documents, postings and partition statistics (text-postings.ts).
 * - `hnsw`: vector index graphs [graph u32][element u64] (hnsw-records.ts).
 * - `vector_queue`: queued vector links and unlinks [graph u32][seq u64] (vector-index.ts).
 * - `replication_log`: the change log, LSN (u64 BE) -> [hash 32][entry] (change-log.ts). Local:
 *   never itself logged; kept only while a publisher ships it (docs/replication.md).
 *
 * Format 4 added `replication_log` and the log's position in `meta`; a format 3 database
 * opens unchanged (a writer stamps it 4: from then on an older build, which would commit
 * batches without log entries, refuses it).
 */

import type { Database } from 'lmdb';

export const FORMAT_VERSION = 4;
/** Older formats this build opens as they are (a writer stamps them FORMAT_VERSION). */
export const READABLE_FORMATS: readonly number[] = [3, 4];

/**
 * The layout of `text_index` (text-postings.ts), stamped in `meta` apart from FORMAT_VERSION
 * since only full-text indexes changed: 1 (no stamp) kept one key per posting, 2 keeps
 * postings in blocks with score impacts. A database with text index keys and no stamp, or
 * another stamp, has its text indexes rebuilt from the stored elements when a writer opens
 * it (text-migration.ts); a read-only open of it is refused until then.
 */
export const TEXT_FORMAT = 2;

export const DB = {
  nodes: 'nodes',
  columns: 'node_columns',
  adjacency: 'adjacency',
  adjacencyLists: 'adjacency_lists',
  edges: 'edge_blocks',
  dictionary: 'dictionary',
  meta: 'meta',
  indexes: 'indexes',
  indexEntries: 'index_entries',
  textIndex: 'text_index',
  hnsw: 'hnsw',
  vectorQueue: 'vector_queue',
  log: 'replication_log',
} as const;

export const META = {
  version: 'format_version',
  nextNode: 'next_node',
  nextEdge: 'next_edge',
  nodeCount: 'node_count',
  edgeCount: 'edge_count',
  nextLabel: 'next_label',
  nextProperty: 'next_property',
  /** Id of the last transaction that wrote a column chunk (columns.ts ChunkCache). */
  columnsGeneration: 'columns_generation',
  /** Sequence number of the last write batch committed (commit-watch.ts). */
  commitSeq: 'commit_seq',
  /**
   * The change log's position (change-log.ts), one value of 52 bytes: last LSN (u64), its
   * chain hash (32), the writer's epoch (u32) and the last logged batch's commit time (f64, ms).
   */
  logPosition: 'log_position',
  /** Set by a batch of a writer that logs nothing (no publisher): the next logging open writes a reset entry. */
  logSkipped: 'log_skipped',
  /** TEXT_FORMAT of the text_index keys. */
  textFormat: 'text_format',
} as const;

/**
 * Keys of `meta` that are this copy's own state, never logged or compared between a writer
 * and its replicas: the commit sequence of this process's committer, and the log position
 * (a replica records the position it applied; the log writes it itself).
 */
export const LOCAL_META: readonly string[] = [META.commitSeq, META.logPosition, META.logSkipped];

/** Node slots per column chunk. */
export const COLUMN_BLOCK = 1024;
/** Edges per edge block. */
export const EDGE_BLOCK = 256;
/**
 * Node ids stay below this: a write batch sorts its adjacency appends by keys of about
 * twice the node id, held exactly in doubles. Ids are allocated one by one, so this is
 * 4.5e15 node creations away; the store refuses to allocate past it.
 */
export const NODE_ID_LIMIT = 2 ** 52;
/** Nodes per adjacency block (at most 32: a u32 marks which lists live on their own). */
export const ADJACENCY_BLOCK = 32;
/** Pairs a list keeps in its node block; a longer list moves to `adjacency_lists`. */
export const ADJACENCY_BLOCK_LIST = 128;
/** Pairs per chunk of a list in `adjacency_lists`. */
export const ADJACENCY_CHUNK = 1024;
/** The property id of the label column; real property ids start at 1, label ids at 1. */
export const LABEL_COLUMN = 0;

/** Direction byte of adjacency keys. */
export const OUT = 0;
export const IN = 1;
export type Dir = typeof OUT | typeof IN;

/**
 * Longest label or property name the store keeps (bytes of UTF-8). Names are dictionary
 * keys, and LMDB keys stop at 1978 bytes. The query layer caps them lower (512).
 */
export const MAX_NAME_BYTES = 1024;

/** Node record value: [labelId, props]. */
export type StoredNode = [number, Record<string, unknown>];

/**
 * How each sub-database's keys and values are encoded: raw bytes (`binary`), binary keys
 * with msgpack values (`records`), or lmdb-js's ordered keys with msgpack values (`plain`).
 */
export type DbKind = 'binary' | 'records' | 'plain';
export const DB_KINDS: { readonly [K in keyof Dbs]: DbKind } = {
  nodes: 'records',
  columns: 'binary',
  adjacency: 'binary',
  adjacencyLists: 'binary',
  edges: 'binary',
  dictionary: 'plain',
  meta: 'plain',
  indexes: 'plain',
  indexEntries: 'binary',
  textIndex: 'binary',
  hnsw: 'binary',
  vectorQueue: 'binary',
};

/** Sub-database handles, by the shape of their keys and values. */
export type NodeDb = Database<StoredNode, Buffer>;
export type ColumnDb = Database<Buffer, Buffer>;
export type BlockDb = Database<Buffer, Buffer>;
export type ListDb = Database<Buffer, Buffer>;
export type EdgeDb = Database<Buffer, Buffer>;
export type DictionaryDb = Database<string | number, string>;
export type MetaDb = Database<number, string>;
export type CatalogDb = Database<unknown, string>;
export type EntryDb = Database<Buffer, Buffer>;
/** Full-text indexes: binary keys, binary values. */
export type TextDb = Database<Buffer, Buffer>;
export type HnswDb = Database<Buffer, Buffer>;
export type QueueDb = Database<Buffer, Buffer>;

/** Every sub-database of the environment (the DB names above). */
export interface Dbs {
  readonly nodes: NodeDb;
  readonly columns: ColumnDb;
  readonly adjacency: BlockDb;
  readonly adjacencyLists: ListDb;
  readonly edges: EdgeDb;
  readonly dictionary: DictionaryDb;
  readonly meta: MetaDb;
  /** The index catalogue (index-catalog.ts). */
  readonly indexes: CatalogDb;
  /** Secondary index entries (secondary-index.ts). */
  readonly indexEntries: EntryDb;
  /** Full-text indexes (text-postings.ts). */
  readonly textIndex: TextDb;
  /** Vector index graphs (hnsw-records.ts) and their queued work (vector-index.ts). */
  readonly hnsw: HnswDb;
  readonly vectorQueue: QueueDb;
}
