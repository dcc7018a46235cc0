/**
 * The storage interface the executor codes against. Only src/store/ imports `lmdb`.
 *
 * Ids are JS numbers: they are allocated sequentially from 0 and a database never gets
 * near 2^53 elements, so an id beyond Number.MAX_SAFE_INTEGER names an element that
 * cannot exist (the wire layer maps such ids to "absent", never to a wrong element).
 *
 * Every method is synchronous and runs inside the transaction of the enclosing
 * `Store.read` or `Store.write` call: reads see one snapshot, and inside a write they see
 * the batch's own earlier writes.
 */
import type { Value, ValueObject } from '../core/value.js';
import type { IndexSpec } from '../core/index-spec.js';
import type { Catalog, IndexDef, IndexReceipt } from './index-catalog.js';
import type { RangeBound } from './secondary-index.js';
import type { BulkColumn } from './bulk-columns.js';
import type { ColumnBlock } from './columns.js';
import type { CommitStats, Committed } from './committer.js';
import type { LogPosition, LoggedEntry } from './change-log.js';

export type { ColumnBlock, ColumnChunk } from './columns.js';
export type { CommitStats, Committed } from './committer.js';
export type { LogPosition, LoggedEntry } from './change-log.js';
export type { Catalog, IndexDef, IndexReceipt } from './index-catalog.js';
export type { RangeBound } from './secondary-index.js';
export type Direction = 'out' | 'in';

export interface NodeRecord {
  readonly id: number;
  readonly label: string;
  readonly props: ValueObject;
}

export interface EdgeRecord {
  readonly id: number;
  readonly label: string;
  readonly from: number;
  readonly to: number;
  readonly props: ValueObject;
}

/** One adjacency entry seen from `node`: the edge, its label and the node at the other end. */
export interface Adjacent {
  readonly edge: number;
  readonly label: string;
  readonly other: number;
}

export interface GraphReader {
  getNode(id: number): NodeRecord | undefined;
  getEdge(id: number): EdgeRecord | undefined;
  hasNode(id: number): boolean;
  hasEdge(id: number): boolean;
  /**
   * For an operation that reads the properties of many edges (a weighted path's search):
   * a function giving an edge's property map, undefined when there is no such edge, that
   * reads each store block once while it can keep it. Valid inside this transaction.
   */
  edgePropsReader(): (id: number) => ValueObject | undefined;
  /** All node ids, ascending. Lazy: stops reading when the consumer stops. */
  nodeIds(): Iterable<number>;
  /** Ids of nodes with this label, ascending. Lazy. */
  nodeIdsByLabel(label: string): Iterable<number>;
  edgeIds(): Iterable<number>;
  edgeIdsByLabel(label: string): Iterable<number>;
  /**
   * Edges leaving `node`. With a label: in edge id order. Without: label by label (in
   * the order labels were first used), each in edge id order.
   */
  outEdges(node: number, label?: string): Iterable<Adjacent>;
  /** Edges arriving at `node`; `other` is the edge's source. Same ordering rules. */
  inEdges(node: number, label?: string): Iterable<Adjacent>;
  /** Distinct neighbour ids of `node` along one direction (one label, or all), ascending. */
  neighbourIds(node: number, dir: Direction, label?: string): number[];
  /** Ids of the edges of `node` along one direction (one label, or all), ascending. */
  incidentEdgeIds(node: number, dir: Direction, label?: string): number[];
  /**
   * Every block of 1024 node ids that holds a node: the label id of each slot and the
   * chunks of the requested properties, for scans that filter or sort on a few properties.
   */
  nodeColumns(properties: readonly string[]): Iterable<ColumnBlock>;
  /**
   * A fact that `make` derives from nodeColumns alone, named by `key` (which must name
   * everything `make` reads): a reader keeps it until a commit changes the columns, a
   * write batch makes it on every call. With `weigh`, its bytes count against the
   * thread's budget for facts (columns.ts FACT_BYTES).
   */
  columnsFact<T>(key: string, make: () => T, weigh?: (value: T) => number): T;
  /** The id scans use for a label (ColumnBlock.labels), or undefined when no element has it. */
  labelId(label: string): number | undefined;
  nodeCount(): number;
  edgeCount(): number;
  /** The index catalogue of this snapshot (index-catalog.ts). */
  indexCatalog(): Catalog;
  /** The status object of an index operation, or undefined when there is none of that id. */
  indexOperation(id: string): Record<string, unknown> | undefined;
  /** Every vector index's queued work (for /metrics). */
  vectorBacklogs(): readonly IndexBacklog[];
  /** Candidate ids of a secondary index for a value (the caller re-checks its predicate). */
  secondaryEqual(indexId: number, value: Value, limit: number): number[] | null;
  /** Candidate ids of a secondary index between bounds, in value order (re-check too). */
  secondaryRange(indexId: number, low: RangeBound | null, high: RangeBound | null, limit: number): number[] | null;
  /** The k nearest elements of an active vector index, nearest first (ties by id), exact distances. */
  vectorSearch(def: IndexDef, query: VectorQuery): VectorHit[];
  /** The k best BM25 matches of an active text index. */
  textSearch(def: IndexDef, tenant: Value | null, query: string, k: number, accept: ((id: number) => boolean) | null): TextHit[];
}

/** What a store's read snapshot offers beyond the executor's reader: whole scans (an export's). */
export interface SnapshotReader extends GraphReader {
  /** Every node, ascending by id, read in one pass. */
  nodeRecords(): Iterable<NodeRecord>;
  /** Every edge, ascending by id, read block by block. */
  edgeRecords(): Iterable<EdgeRecord>;
}

/** The elements a `_within` search may return (a Map or Set of ids). */
export interface Candidates {
  has(id: number): boolean;
  readonly size: number;
  keys(): Iterable<number>;
}

/** A vector search: the query, how many hits, the `_within` candidates, the beam (null: the index's default). */
export interface VectorQuery {
  /** The tenant partition (null for an index without a tenant property). */
  readonly tenant: Value | null;
  readonly vector: Float32Array;
  readonly k: number;
  readonly candidates: Candidates | null;
  readonly ef: number | null;
  /** Called for every element an exact search reads (the query's deadline and time slice). */
  readonly tick?: () => void;
}

/** An index's queued vector work, summed over its graphs (tenant partitions). */
export interface VectorBacklog {
  /** Entries written and acknowledged, not yet linked into the graph (searches rank them exactly). */
  readonly queued: number;
  /** Entries linked (or unlinked) by background steps since the index was created. */
  readonly applied: number;
  /** Recent entries per second of the steps, 0 before any. */
  readonly appliedPerSecond: number;
  /**
   * Whether the builder's reach sweep has checked every element of every graph after its
   * last add (GraphPointer.swept): with nothing queued, every element is then found by
   * searches of the default beam, through the graph or as an orphan. Always true for the
   * older engine's graphs (manhattan), which have no sweep, and for empty graphs.
   */
  readonly reachChecked: boolean;
}

/** A vector index and its backlog. */
export interface IndexBacklog {
  readonly element: 'node' | 'edge';
  readonly label: string;
  readonly property: string;
  readonly backlog: VectorBacklog;
}

export interface VectorHit {
  readonly id: number;
  readonly distance: number;
}
export interface TextHit {
  readonly id: number;
  readonly score: number;
}

export interface GraphWriter extends GraphReader {
  /**
   * Allocates the next node id (never reused, gaps allowed after a rollback). `props` is
   * not kept (its values may be): callers may reuse the object for the next node.
   */
  createNode(label: string, props: ValueObject): number;
  /**
   * Nodes of one label for rows [start, end) of the columns, row i's properties their cells
   * i (absent where a column has none): what createNode of each row does, with consecutive
   * ids; returns the first. (The bulk insert of a row table: the columns are read, not kept.)
   */
  createNodes(label: string, columns: readonly BulkColumn[], start: number, end: number): number;
  /**
   * Edges of one label for rows [start, end): row i from `from[i]` to `to[i]`, which must
   * exist (the caller checks), its properties the columns' cells i: what createEdge of
   * each row does, with consecutive ids; returns the first.
   */
  createEdges(
    label: string,
    from: ArrayLike<number>,
    to: ArrayLike<number>,
    columns: readonly BulkColumn[],
    start: number,
    end: number,
  ): number;
  /**
   * The endpoints must exist; the caller checks and reports node_not_found. `props` is
   * encoded before this returns: callers may reuse the object for the next edge.
   */
  createEdge(label: string, from: number, to: number, props: ValueObject): number;
  /** Replaces label and properties of an existing node (keeps the label index in step). */
  putNode(node: NodeRecord): void;
  /** Replaces the properties of an existing edge (label and endpoints are fixed). */
  putEdgeProps(id: number, props: ValueObject): void;
  /** Deletes the node and every incident edge. Returns false when it did not exist. */
  deleteNode(id: number): boolean;
  deleteEdge(id: number): boolean;
  /**
   * Index DDL (index-catalog.ts): a receipt; the build or drop runs in the background.
   * `anyBuildParameters`: an existing vector index whose build parameters differ is this one.
   */
  createIndex(spec: IndexSpec, ifNotExists: boolean, anyBuildParameters?: boolean): IndexReceipt;
  dropIndex(spec: IndexSpec): IndexReceipt;
  retryIndexOperation(id: string): Record<string, unknown>;
  abortIndexOperation(id: string): Record<string, unknown>;
}

export interface WriteOptions {
  /** Resolve only after the commit is flushed to disk (X-Svc-Await-Durable). */
  readonly durable?: boolean;
}

export interface StoreOptions {
  /** Folder holding the LMDB files; created when missing (unless readOnly). */
  readonly path: string;
  readonly readOnly?: boolean;
  /** Upper bound of the memory map, bytes. */
  readonly mapSize?: number;
  /**
   * A writable open takes the folder's writer lock (lock.ts) and releases it on close;
   * with this token it opens under the lock this process already holds (lockDataFolder),
   * as the server's writer thread does.
   */
  readonly writerLock?: string;
  /**
   * Where the store reports what operators must hear beyond a batch's own answer: a
   * commit that readers already see but that could not be flushed to disk. Default: a
   * line on stderr. The server's writer thread sends these to the main thread's logger.
   */
  readonly log?: (message: string) => void;
  /**
   * Queued vector-index entries one graph may hold before writes get 429
   * `index_backpressure` (default 250,000; vector-index.ts).
   */
  readonly vectorQueueEntries?: number;
  /**
   * Longest background index step, ms (default 8; index-work.ts): what a client write may
   * wait behind. Tests shorten it to make every step run out of time.
   */
  readonly indexStepMs?: number;
  /**
   * How long a replaced vector segment file is kept at most once its replacement is on
   * disk, ms (default 60,000: twice the default query timeout; vector-builder-client.ts). A
   * read that started before the replacement may still map the old file; a writer that
   * keeps no log for a publisher (no `keepLog`) deletes it sooner, once no open read is
   * older than the replacement.
   */
  readonly segmentGraceMs?: number;
  /**
   * Keep each batch's change-log entry in `replication_log` until a publisher has shipped
   * it (`trimLog`). Without it only the log's position (LSN, hash) advances.
   */
  readonly keepLog?: boolean;
  /**
   * Record no change-log entries (a writer without a publisher, the embedded API): batches
   * cost nothing for the log; they only mark the history as having skipped batches, and the
   * next open that records entries continues it with a reset entry (docs/replication.md).
   */
  readonly unlogged?: boolean;
  /**
   * A replica's copy (docs/replication.md): writable, but only through `applyEntry`; it
   * logs nothing and runs no background index work of its own (the writer's steps arrive
   * as entries).
   */
  readonly replica?: boolean;
  /** Called when a logged batch is visible, with its LSN (a publisher's cue; docs/replication.md). */
  readonly onLogged?: (lsn: number) => void;
}

/** A vector segment a folder lacks: its files (the segment, then its side file when it has one), their sizes, and the SHA-256 of both. */
export interface MissingSegment {
  readonly files: readonly string[];
  readonly sizes: readonly number[];
  readonly checksum: Uint8Array | null;
}

export interface Store {
  readonly path: string;
  readonly readOnly: boolean;
  /**
   * Runs `fn` on a fresh read snapshot (renewed at every call: a pooled worker thread
   * would otherwise keep an old snapshot forever, since lmdb-js renews it only on event
   * turns that a blocked worker never has).
   */
  read<T>(fn: (r: SnapshotReader) => T): T;
  /** As `read`, with the change-log LSN of the snapshot it read (a replica's X-Trellis-Lsn). */
  readAt<T>(fn: (r: SnapshotReader) => T): { readonly value: T; readonly lsn: number };
  /**
   * Runs `fn` in its own child write transaction. If `fn` throws, everything it wrote is
   * rolled back and the promise rejects with that error at once; otherwise the promise
   * resolves with `fn`'s result once the commit is visible to new readers (its pages are
   * in the OS page cache: a crash of the process cannot lose it), or, with `durable`, once
   * it is also flushed to disk. Calls made in one event turn share one LMDB commit (group
   * commit); a commit that fails (disk full) rejects with `storage_error` only the batches
   * that fail again on their own (committer.ts).
   */
  write<T>(fn: (w: GraphWriter) => T, options?: WriteOptions): Promise<T>;
  /** As `write`, with the LSN at which the batch is visible (its entry's, or the current one when it changed nothing). */
  writeLogged<T>(fn: (w: GraphWriter) => T, options?: WriteOptions): Promise<Committed<T>>;
  /** The change log's position in a fresh snapshot. */
  logPosition(): LogPosition;
  /** Kept log entries from LSN `from` on (at most `limit`), in a fresh snapshot. */
  logEntries(from: number, limit: number): LoggedEntry[];
  /**
   * The publisher's read: entries `from` .. `upTo` (a committed LSN), at most `limit`, from
   * memory when this writer appended them lately, else from the log.
   */
  committedEntries(from: number, upTo: number, limit: number): LoggedEntry[];
  /** The first LSN still kept, or null when none is. */
  firstLogged(): number | null;
  /** Drops kept entries up to `upTo` (published); returns how many. Not itself logged. */
  trimLog(upTo: number): Promise<number>;
  /**
   * A replica applies the next entries, in order: checks that each follows (LSN + 1) and
   * chains (its `hash`), writes their changes and the new position in one transaction (all
   * or none); throws LogMismatch otherwise.
   */
  applyEntries(entries: readonly LoggedEntry[]): Promise<LogPosition>;
  /**
   * A replica takes a snapshot (a file `backup` wrote, checked by the caller): in one
   * transaction its data becomes the snapshot's, and its position the snapshot's position.
   */
  loadSnapshot(file: string, expected?: { lsn: number; hash: string }): Promise<LogPosition>;
  /**
   * The vector segments the current pointers name whose files this folder lacks (or holds
   * with another size): a replica fetches them from its writer (replication/segments.ts).
   */
  missingSegments(): MissingSegment[];
  /** A replica: retires segment files no pointer names any more (deleted after the grace). */
  sweepSegments(): void;
  /** Writes the log's position (a restored copy; a promotion's new epoch), flushed. */
  setLogPosition(position: LogPosition): Promise<void>;
  /** A copy (not compacted) of the database as `data.mdb` in the folder `path`, returned once every commit it holds is flushed here. */
  backup(path: string): Promise<void>;
  /** How write batches were answered so far (diagnostics). */
  commitStats(): CommitStats;
  /** Resolves when every commit so far is flushed to disk (for X-Svc-Await-Durable). */
  flushed(): Promise<void>;
  close(): Promise<void>;
}
