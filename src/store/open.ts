/**
 * The LMDB-backed Store: one environment per folder, named sub-databases (layout.ts),
 * fresh read snapshots per `read`, one child transaction per `write` (lmdb-js queues the
 * child transactions of one event turn into one LMDB commit).
 */
import { rmSync } from 'node:fs';
import { getSystemErrorName } from 'node:util';
import { asBinary, open } from 'lmdb';
import type { Database, Key, RootDatabase, RootDatabaseOptions, RootDatabaseOptionsWithPath } from 'lmdb';
import { consoleLog } from '../core/log-sink.js';
import { storeEncoderOptions } from './codec.js';
import { ChunkCache, SlotCache } from './columns.js';
import { Dictionary } from './dictionary.js';
import { GraphReadView, GraphWriteView } from './graph.js';
import type { IdState, IndexContext } from './graph.js';
import { CatalogReader } from './index-catalog.js';
import { TextIndexes } from './text-index.js';
import { isNative, VectorIndexes, type SegmentCommit, type VectorSpec } from './vector-index.js';
import { VectorBuilderClient } from './vector-builder-client.js';
import type { VectorSource } from './vector-builder.js';
import { segmentFiles, type GraphPointer } from './vector-segments.js';
import { indexWorkStep, type IndexWorkTargets } from './index-work.js';
import { greatestLeadingU64 } from './keys.js';
import { DB, DB_KINDS, FORMAT_VERSION, META, READABLE_FORMATS, TEXT_FORMAT, type Dbs, type DbKind } from './layout.js';
import {
  applyEntry,
  chainHash,
  ChangeLog,
  ChangeRecorder,
  entryHeader,
  isReset,
  type LogPosition,
  type LoggedEntry,
} from './change-log.js';
import { EdgeReader } from './edge-blocks.js';
import { checkDataFile, checkDataFolder, DataFolderError, fsFailure, notTrellis } from './folder.js';
import { acquireWriterLock, confirmWriterLock, type WriterLock } from './lock.js';
import type { GraphWriter, MissingSegment, SnapshotReader, Store, StoreOptions, WriteOptions } from './types.js';
import { Committer, type BatchLog, type Committed, type CommitStats } from './committer.js';
import { messageOf } from '../core/errors.js';
import { rebuildTextIndexes } from './text-migration.js';

/**
 * The memory of the chunks the writer keeps decoded for editing, counted as their encoded
 * size twice over (as ChunkCache counts): about 4,096 chunks of numbers, or a few dozen of
 * 128-d vectors.
 */
const SLOT_CACHE_BYTES = 64 * 1024 * 1024;

/** Decoded column chunks a thread keeps for scans (about 256 MiB). */
const CHUNK_CACHE_BYTES = 256 * 1024 * 1024;

/**
 * LMDB page size of new databases (an existing file keeps its own). Chunks of 8 KiB and
 * more live in overflow pages, which need runs of contiguous free pages; with 4 KiB pages
 * the free list of a 10M-edge load grew to millions of pages and searching it for runs
 * made the load 1.8x slower. 16 KiB pages keep it four times shorter (docs/benchmarks.md).
 */
const PAGE_SIZE = 16384;

/** Room for the sub-databases that index/ adds later. */
const MAX_DBS = 128;

/** Longest background index step (index-work.ts): what a client write may wait behind it. */
const INDEX_STEP_MS = 8;
/** Pause before trying background index work again after it failed (a full disk). */
const INDEX_RETRY_MS = 1000;
/**
 * How long a replaced vector segment file stays (StoreOptions.segmentGraceMs): twice the
 * default query timeout, so no read that could name it is still running.
 */
const SEGMENT_GRACE_MS = 60_000;

/** A log entry that does not follow the applied history: the replica must take a new snapshot. */
export class LogMismatch extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'LogMismatch';
  }
}

class LmdbStore implements Store {
  readonly path: string;
  readonly readOnly: boolean;
  private readonly reader: GraphReadView;
  private readonly dictionary: Dictionary;
  private readonly slots = new SlotCache(SLOT_CACHE_BYTES);
  private flushes = 0;
  private closed = false;
  /** Runs write batches and answers them (none in a read-only store). */
  private readonly committer: Committer | null;
  private readonly index: IndexContext & { readonly vector: VectorIndexes };
  private readonly indexWork: IndexWorkTargets;
  /** The vector builder's thread, started when there is native vector work (a writer; a replica only sweeps its segment files with it). */
  private readonly builder: VectorBuilderClient | null;
  /** Whether a background index step is scheduled or running. */
  private indexStepPending = false;
  private readonly log: (message: string) => void;
  private readonly indexStepMs: number;

  /** The change log (change-log.ts): position and rows, through unlogged handles. */
  private readonly changeLog: ChangeLog;
  private readonly replica: boolean;
  private readonly dbs: Dbs;

  constructor(
    options: StoreOptions,
    private readonly env: RootDatabase,
    private readonly handles: Handles,
    private readonly ids: IdState,
    private readonly lock: WriterLock | null,
  ) {
    this.path = options.path;
    this.readOnly = options.readOnly ?? false;
    this.replica = options.replica ?? false;
    this.indexStepMs = options.indexStepMs ?? INDEX_STEP_MS;
    const dbs = handles.recorder?.dbs ?? handles.typed;
    this.dbs = dbs;
    this.dictionary = new Dictionary(dbs.dictionary, dbs.meta);
    const catalog = new CatalogReader(dbs.indexes);
    const log = options.log ?? ((message: string) => consoleLog.error({}, message));
    this.log = log;
    const vectorOptions = {
      dataPath: this.path,
      log,
      ...(options.vectorQueueEntries === undefined ? {} : { maxEntries: options.vectorQueueEntries }),
    };
    this.index = {
      catalog,
      text: new TextIndexes(dbs.textIndex),
      vector: new VectorIndexes(dbs.hnsw, dbs.vectorQueue, dbs.indexes, vectorOptions),
    };
    this.indexWork = this.index;
    this.reader = new GraphReadView(dbs, this.dictionary, new ChunkCache(CHUNK_CACHE_BYTES), this.index);
    this.changeLog = new ChangeLog(handles.typed.meta, handles.log, options.keepLog ?? false);
    const recorder = handles.recorder;
    const changeLog = this.changeLog;
    const batchLog: BatchLog | null =
      recorder === null
        ? this.readOnly || this.replica
          ? null
          : { begin: () => undefined, end: () => changeLog.skip(), abort: () => changeLog.forget(), committed: () => undefined }
        : {
            begin: () => recorder.begin(),
            end: () => {
              const changes = recorder.changes;
              return this.changeLog.append(recorder.finish(), changes);
            },
            abort: () => {
              recorder.finish();
              this.changeLog.forget();
            },
            committed: (lsn) => options.onLogged?.(lsn),
          };
    this.committer = this.readOnly ? null : new Committer(env, handles.typed.meta, this.path, () => this.dropWriterCaches(), log, batchLog);
    this.builder = this.readOnly ? null : this.newBuilder(options.segmentGraceMs ?? SEGMENT_GRACE_MS);
  }

  /**
   * A writer's first work, before openStore hands the store out: text indexes of an
   * earlier layout are rebuilt (text-migration.ts), the vector builder starts (its
   * read-only store needs the text layout current), then background work a previous run
   * left (a build, a drop, queued links) resumes. A replica runs none of it: its background
   * steps and vector segments arrive from the writer (entries of its log, segment files
   * fetched by replication/segment-fetcher.ts).
   */
  start(textFormat: TextFormatState): void {
    if (this.readOnly) return;
    if (textFormat === 'earlier') this.rebuildTextLayout();
    if (this.replica) {
      // A replica keeps no log rows; a data file that was a writer's snapshot (a replica's
      // first one) or a restored backup carries the writer's: local state, never logged.
      if (this.changeLog.firstKept() !== null) {
        const upTo = this.changeLog.position().lsn;
        this.env.transactionSync(() => this.changeLog.trim(upTo));
      }
      // Never woken on a replica: it only retires the segment files no pointer names.
      this.builder!.sweep(true);
      return;
    }
    this.startBuilder();
    this.scheduleIndexWork(0);
  }

  /** One synchronous transaction, outside the log (outsideTheLog): emptied postings, every text index rebuilt, the stamp. */
  private rebuildTextLayout(): void {
    const started = performance.now();
    const writer = this.newWriter();
    const counts = this.outsideTheLog(
      () => {
        this.dbs.textIndex.clearSync();
        const value = rebuildTextIndexes(writer);
        writer.finish();
        this.dbs.meta.putSync(META.textFormat, TEXT_FORMAT);
        return value;
      },
      () => true,
    );
    writer.committed();
    const ms = Math.round(performance.now() - started);
    this.log(
      `${this.path}: full-text indexes of an earlier layout rebuilt in text format ${TEXT_FORMAT} (${counts.indexes} indexes, ${counts.documents} documents, ${ms} ms)`,
    );
  }

  /**
   * Derived data rewritten at open in one transaction outside any batch, so outside the
   * change log (the text layout rebuild, the migration of older vector graphs). When it
   * changed something, a writer that records entries continues its history with a reset
   * entry (its replicas take a new snapshot) and one that records none marks its history
   * as having skipped batches; a replica only changes its own copy (its writer's reset
   * follows).
   */
  private outsideTheLog<T>(fn: () => T, changed: (value: T) => boolean): T {
    const recorder = this.handles.recorder;
    const value = this.env.transactionSync(() => {
      const value = recorder === null ? fn() : recorder.unrecorded(fn);
      if (changed(value)) {
        if (recorder !== null) this.changeLog.appendReset(this.changeLog.position());
        else if (!this.replica) this.changeLog.skip();
      }
      return value;
    });
    this.changeLog.forget();
    return value;
  }

  /** The writable store's vector builder (vector-builder-client.ts), started by `start`. */
  private newBuilder(graceMs: number): VectorBuilderClient {
    return new VectorBuilderClient({
      path: this.path,
      commit: (c) => this.commitSegment(c),
      referenced: () => this.referencedSegments(),
      flushed: () => this.flushed(),
      log: this.log,
      graceMs,
      // A writer that keeps its log for a publisher has replicas that fetch its files by name.
      oldestRead: () => (this.changeLog.keep || this.replica ? undefined : oldestRead(this.env)),
    });
  }

  /**
   * Graphs of an older format become `scan` graphs (vector-index.ts migrate), files a
   * previous run left are swept, and the builder starts if any native index exists.
   */
  private startBuilder(): void {
    this.outsideTheLog(
      () => this.index.vector.migrate(),
      (migrated) => migrated > 0,
    );
    this.builder!.sweep(true);
    if (this.hasNativeIndexes()) this.builder!.wake();
  }

  /** Commits a segment the builder published: the pointer it replaced and the transaction, or false when refused. */
  private commitSegment(c: SegmentCommit): Promise<{ readonly replaced: GraphPointer | null; readonly txn: number } | false> {
    if (this.closed) return Promise.resolve(false);
    return this.committer!.submit(() => {
      const replaced = this.index.vector.queue.pointer(c.graph) ?? null;
      const value = this.index.vector.commitSegment(c) ? { replaced, txn: this.env.getWriteTxnId() } : (false as const);
      return { value, onCommit: () => undefined };
    }, false).then((done) => done.value);
  }

  missingSegments(): MissingSegment[] {
    return this.readIndex((_r, v) => v.missingSegments());
  }

  sweepSegments(): void {
    this.builder?.sweep(false);
  }

  private referencedSegments(): Set<string> {
    return this.readIndex((_r, v) => new Set([...v.segmentPointers()].flatMap(({ graph, pointer }) => segmentFiles(graph, pointer))));
  }

  private hasNativeIndexes(): boolean {
    return this.readIndex((r) => r.indexCatalog().defs.some((d) => d.spec.kind.endsWith('_vector') && isNative(d.spec as VectorSpec)));
  }

  /** A read on a fresh snapshot with the vector family itself (the builder's source). */
  readIndex<T>(fn: (r: GraphReadView, v: VectorIndexes) => T): T {
    if (this.closed) throw new Error(`store ${this.path} is closed`);
    this.env.resetReadTxn();
    try {
      return fn(this.reader, this.index.vector);
    } finally {
      this.env.resetReadTxn();
    }
  }

  /**
   * Runs background index steps (index-work.ts), one write transaction each, until none
   * is left. Client batches submitted meanwhile commit between steps.
   */
  private scheduleIndexWork(delayMs: number): void {
    if (this.indexStepPending || this.closed) return;
    this.indexStepPending = true;
    const run = () => {
      if (this.closed) return;
      const step = this.committer!.submit(() => {
        const writer = this.newWriter();
        const value = indexWorkStep(writer, this.indexWork, this.indexStepMs);
        writer.finish();
        return {
          value,
          onCommit: () => {
            writer.committed();
            // A step may have finished a build over stored vectors: the builder takes it from here.
            this.index.vector.takeTouched();
            if (!this.closed && this.builder !== null && this.hasNativeIndexes()) this.builder.wake();
          },
        };
      }, false);
      step.then(
        ({ value: more }) => {
          this.indexStepPending = false;
          if (more) this.scheduleIndexWork(0);
        },
        (err: unknown) => {
          this.indexStepPending = false;
          if (this.closed) return;
          this.log(`background index work failed, retrying in ${INDEX_RETRY_MS} ms: ${messageOf(err)}`);
          this.scheduleIndexWork(INDEX_RETRY_MS);
        },
      );
    };
    if (delayMs === 0) setImmediate(run);
    else setTimeout(run, delayMs).unref();
  }

  private newWriter(): GraphWriteView {
    return new GraphWriteView(this.dbs, this.dictionary, this.ids, this.slots, () => this.newVersion(), this.index);
  }

  read<T>(fn: (r: SnapshotReader) => T): T {
    if (this.closed) throw new Error(`store ${this.path} is closed`);
    // lmdb-js renews and releases its shared read snapshot on a later event turn (a timer); a
    // pooled worker blocked in Atomics.wait runs no timers, so each read takes a fresh
    // snapshot and releases it when done. A snapshot held while idle would stop LMDB from
    // reusing any page freed after it, and the file would grow with every write.
    this.env.resetReadTxn();
    try {
      return fn(this.reader);
    } finally {
      this.env.resetReadTxn();
    }
  }

  readAt<T>(fn: (r: SnapshotReader) => T): { readonly value: T; readonly lsn: number } {
    // The position is read in the same snapshot, after the read: what the answer saw.
    return this.read((r) => {
      const value = fn(r);
      return { value, lsn: this.changeLog.position().lsn };
    });
  }

  write<T>(fn: (w: GraphWriter) => T, options: WriteOptions = {}): Promise<T> {
    return this.writeLogged(fn, options).then((done) => done.value);
  }

  writeLogged<T>(fn: (w: GraphWriter) => T, options: WriteOptions = {}): Promise<Committed<T>> {
    if (this.closed) return Promise.reject(new Error(`store ${this.path} is closed`));
    if (this.readOnly || this.replica) {
      const why = this.replica ? 'is a replica; writes go to its writer' : 'is open read-only; writes need a writer';
      return Promise.reject(new Error(`store ${this.path} ${why}`));
    }
    return this.committer!.submit(() => {
      const writer = this.newWriter();
      const value = fn(writer);
      // lmdb-js would hold the write lock across the await and finish() would run early.
      if (value instanceof Promise) throw new Error('store.write: the function must be synchronous');
      writer.finish();
      return {
        value,
        onCommit: () => {
          writer.committed();
          if (writer.indexes.queued) this.scheduleIndexWork(0);
          if (this.index.vector.takeTouched().length > 0) this.builder?.wake();
        },
      };
    }, options.durable ?? false);
  }

  /** After a failed commit: names and chunks this thread cached may be of that commit. */
  private dropWriterCaches(): void {
    this.dictionary.forget();
    this.slots.clear();
    this.changeLog.forget();
  }

  /**
   * A chunk version no chunk has had: the write transaction's id (committed ids only grow)
   * and a count of this store's flushes within it, since batches of one commit share an id.
   */
  private newVersion(): number {
    return this.env.getWriteTxnId() * 4096 + (this.flushes++ % 4096);
  }

  commitStats(): CommitStats {
    return { ...(this.committer?.stats ?? { answeredAtVisibility: 0, answeredAtFlush: 0, commitFailures: 0 }) };
  }

  async flushed(): Promise<void> {
    await this.env.flushed;
  }

  logPosition(): LogPosition {
    return this.read(() => this.changeLog.position());
  }

  logEntries(from: number, limit: number): LoggedEntry[] {
    return this.read(() => [...this.changeLog.entries(from, limit)]);
  }

  committedEntries(from: number, upTo: number, limit: number): LoggedEntry[] {
    const recent = this.changeLog.recentEntries(from, upTo, limit);
    if (recent !== null) return recent;
    return this.logEntries(from, limit).filter((e) => e.lsn <= upTo);
  }

  firstLogged(): number | null {
    return this.read(() => this.changeLog.firstKept());
  }

  async trimLog(upTo: number): Promise<number> {
    const done = await this.committer!.submit(() => ({ value: this.changeLog.trim(upTo), onCommit: () => undefined }), false, false);
    return done.value;
  }

  async applyEntries(entries: readonly LoggedEntry[]): Promise<LogPosition> {
    if (!this.replica) throw new Error(`store ${this.path} is not a replica: it applies no log entries`);
    if (entries.length === 0) return this.logPosition();
    const done = await this.committer!.submit(
      () => {
        let at = this.changeLog.position();
        for (const { entry, hash } of entries) {
          const header = entryHeader(entry);
          if (header.lsn !== at.lsn + 1) throw new LogMismatch(`entry ${header.lsn} does not follow the applied LSN ${at.lsn}`);
          const expected = chainHash(at.hash, entry);
          if (!expected.equals(hash)) {
            throw new LogMismatch(
              `entry ${header.lsn} does not chain: its hash is ${Buffer.from(hash).toString('hex')}, the applied history at ${at.lsn} (${at.hash.toString('hex')}) gives ${expected.toString('hex')}`,
            );
          }
          if (isReset(header)) {
            throw new LogMismatch(
              `entry ${header.lsn} replaced the writer's data outside the log (an offline import): a new snapshot is needed`,
            );
          }
          applyEntry(this.handles.typed, entry);
          at = { lsn: header.lsn, hash: expected, epoch: header.epoch, time: header.time };
        }
        this.changeLog.record(at);
        return { value: at, onCommit: () => this.dropWriterCaches() };
      },
      false,
      false,
    );
    return done.value;
  }

  async loadSnapshot(file: string, expected?: { lsn: number; hash: string }): Promise<LogPosition> {
    if (!this.replica) throw new Error(`store ${this.path} is not a replica: it loads no snapshot`);
    const copy = openCopy(file);
    try {
      const from = openDbs(copy, file);
      const position = new ChangeLog(from.meta, sub(copy, file, DB.log, 'binary'), false).position();
      copy.resetReadTxn();
      if (expected !== undefined) assertAnnounced(file, position, expected);
      const to = this.handles.typed;
      // One transaction: readers see the old copy or the new one, never a mix.
      await this.committer!.submit(
        () => {
          for (const name of Object.keys(DB_KINDS) as (keyof Dbs)[]) replaceContents(from[name], to[name], DB_KINDS[name]);
          this.changeLog.record(position);
          return { value: undefined, onCommit: () => this.dropWriterCaches() };
        },
        true,
        false,
      );
      return position;
    } finally {
      await copy.close();
    }
  }

  async setLogPosition(position: LogPosition): Promise<void> {
    await this.committer!.submit(() => ({ value: this.changeLog.record(position), onCommit: () => undefined }), true, false);
  }

  async backup(path: string): Promise<void> {
    if (this.closed) throw new Error(`store ${this.path} is closed`);
    // Not compacted: a replica's first snapshot becomes its data file, and a restore's
    // replays into its backup, and lmdb-js 3.5's compacted copies fail an LMDB assertion
    // in page allocation ('key.mv_size > 0', mdb_page_alloc) at a later write.
    await this.env.backup(path, false);
    // The copy may hold commits that are visible but not yet flushed here: it leaves only
    // once they are on disk, so no copy holds what a power cut could take from this writer.
    await this.env.flushed;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    await this.builder?.close();
    this.closed = true;
    this.committer?.close();
    try {
      await this.env.close();
    } finally {
      this.lock?.release();
    }
  }
}

/** What every open of an environment asks lmdb-js for (the bulk builder's too, bulk-build.ts). */
export function environmentOptions(path: string, readOnly: boolean): RootDatabaseOptionsWithPath {
  return {
    path,
    // lmdb-js takes a path with an extension (`graph.db`, `/tmp/tmp.XyZ`) for a file
    // unless told otherwise; ours is always a folder.
    noSubdir: false,
    maxDbs: MAX_DBS,
    readOnly,
    pageSize: PAGE_SIZE,
    // Writes of one event turn still share a commit (lmdb-js starts it on setImmediate),
    // but without the turn-batching mode's own start-of-batch promise: nobody can handle
    // that one, and when a commit failed (a full disk) its rejection ended the writer thread.
    eventTurnBatching: false,
  };
}

/**
 * Opens (creating unless read-only) the store in `options.path`. A writable open holds the
 * folder's writer lock (lock.ts): it takes it, or opens under the one `options.writerLock`
 * names. Failures of the folder are DataFolderErrors (folder.ts) naming the path.
 */
export function openStore(options: StoreOptions): Promise<Store> {
  return openLmdbStore(options);
}

/** A read-only store as the vector builder's thread reads it (vector-builder.ts). */
export async function openVectorSource(path: string): Promise<VectorSource> {
  const store = await openLmdbStore({ path, readOnly: true });
  return { read: (fn) => store.readIndex(fn), close: () => store.close() };
}

async function openLmdbStore(options: StoreOptions): Promise<LmdbStore> {
  const { path } = options;
  const readOnly = options.readOnly ?? false;
  checkDataFolder(path, !readOnly);
  let lock: WriterLock | null = null;
  if (!readOnly) {
    if (options.writerLock === undefined) lock = acquireWriterLock(path);
    else confirmWriterLock(path, options.writerLock);
  }
  let env: RootDatabase;
  try {
    checkDataFile(path, !readOnly);
    env = open({ ...environmentOptions(path, readOnly), ...(options.mapSize === undefined ? {} : { mapSize: options.mapSize }) });
  } catch (err) {
    lock?.release();
    if (err instanceof DataFolderError) throw err;
    throw lmdbFailure(path, err);
  }
  try {
    if (!readOnly) checkNotForeign(env, path);
    const dbs = openDbs(env, path);
    const opened = readOnly
      ? { ids: { nextNode: 0, nextEdge: 0, next: { label: 1, property: 1 } }, textFormat: 'current' as const }
      : initialise(env, path, dbs);
    if (readOnly) {
      checkVersion(path, readVersion(dbs));
      if (textFormatOf(dbs) === 'earlier') throw earlierTextFormat(path, dbs);
    }
    const replica = options.replica ?? false;
    const unlogged = options.unlogged ?? false;
    // A writer records every batch through wrapped handles (unless it logs nothing); a replica applies entries.
    const handles: Handles = {
      typed: dbs,
      log: sub(env, path, DB.log, 'binary'),
      recorder: readOnly || replica || unlogged ? null : new ChangeRecorder(dbs),
    };
    if (handles.recorder !== null && dbs.meta.get(META.logSkipped) !== undefined) {
      const log = new ChangeLog(dbs.meta, handles.log, true);
      env.transactionSync(() => log.resumeAfterSkipped());
    }
    // Opening read through lmdb-js's shared snapshot; release it now, or a read worker that
    // then sees only writes would pin it and LMDB could reuse no page freed afterwards.
    env.resetReadTxn();
    const store = new LmdbStore(options, env, handles, opened.ids, lock);
    try {
      store.start(opened.textFormat);
    } catch (err) {
      await store.close();
      throw err;
    }
    return store;
  } catch (err) {
    await env.close();
    lock?.release();
    throw err;
  }
}

/**
 * The oldest snapshot an open read transaction of the environment holds (its transaction
 * id), in any thread or process (LMDB's reader table, after clearing the slots of dead
 * processes), or null when none is open.
 */
function oldestRead(env: RootDatabase): number | null {
  env.readerCheck();
  let oldest: number | null = null;
  // Lines of "pid thread txnid"; a free slot's txnid is "-", and the header has none.
  for (const line of env.readerList().split('\n')) {
    const match = /^\s*\d+\s+[0-9a-f]+\s+(\d+)\s*$/.exec(line);
    if (match !== null) oldest = Math.min(oldest ?? Infinity, Number(match[1]));
  }
  return oldest;
}

/**
 * An error of lmdb-js opening the environment (after the checks of folder.ts, a rare one)
 * as a file-system error: lmdb-js gives the errno as a number in `code`.
 */
function lmdbFailure(path: string, err: unknown): DataFolderError {
  const errno = (err as { code?: unknown } | null)?.code;
  const code = typeof errno === 'number' && errno > 0 ? getSystemErrorName(-errno) : undefined;
  const cause = code === undefined ? err : Object.assign(new Error(messageOf(err)), { code });
  return fsFailure(`cannot open the database in ${path}`, cause, 'fix the owner or permissions of the folder and its files');
}

/**
 * A writer would add its sub-databases to any LMDB file and stamp it as ours: refuse one
 * that holds other databases or data and no Trellis format version.
 */
function checkNotForeign(env: RootDatabase, path: string): void {
  const ours = new Set<unknown>(Object.values(DB));
  // The root database of an LMDB file lists its named databases (and any data put there).
  const names = [...env.getKeys({ limit: 1000 })];
  if (names.every((name) => ours.has(name))) return; // a new database, or ours
  // More names: a later Trellis with more sub-databases has a format version (which
  // initialise checks); anything else is not ours.
  if (names.includes(DB.meta)) {
    try {
      if (env.openDB(DB.meta, { create: false } as RootDatabaseOptions).get(META.version) !== undefined) return;
    } catch {
      // not a database lmdb-js can read as ours
    }
  }
  throw notTrellis(path, 'its LMDB file holds other data and no Trellis format version');
}

/** The handles of a store: as the code reads them, the log's, and the recorder's wrapped ones. */
interface Handles {
  readonly typed: Dbs;
  readonly log: Database<Buffer, Buffer>;
  /** The writer's: every put and removal of a batch goes to its entry (none in a replica). */
  readonly recorder: ChangeRecorder | null;
}

function sub<V, K extends Key>(env: RootDatabase, path: string, name: string, kind: DbKind): Database<V, K> {
  try {
    // lmdb-js types `encoder` on the root options only; openDB accepts it per database.
    const options: RootDatabaseOptions =
      kind === 'binary'
        ? { encoding: 'binary', keyEncoding: 'binary' }
        : kind === 'records'
          ? { keyEncoding: 'binary', encoder: storeEncoderOptions() }
          : { encoder: storeEncoderOptions() };
    return env.openDB<V, K>(name, options);
  } catch (err) {
    throw new Error(`store ${path}: cannot open sub-database "${name}": ${String(err)}`, { cause: err });
  }
}

/** The sub-databases of an environment, with the encodings of layout.ts (the bulk builder opens them too). */
export function openDbs(env: RootDatabase, path: string): Dbs {
  const dbs: Record<string, unknown> = {};
  for (const [name, kind] of Object.entries(DB_KINDS)) dbs[name] = sub(env, path, DB[name as keyof Dbs], kind);
  return dbs as unknown as Dbs;
}

/**
 * A snapshot file, opened to read it. Not read-only: LMDB opens a read-only environment
 * only beside an existing lock file, and a copy has none (it makes `<file>-lock`, removed
 * on close). Nothing is written: every sub-database exists in a copy of ours.
 */
function openCopy(file: string): RootDatabase {
  const env = open({ path: file, noSubdir: true, maxDbs: MAX_DBS });
  const close = env.close.bind(env);
  env.close = async () => {
    await close();
    rmSync(`${file}-lock`, { force: true });
  };
  return env;
}

/**
 * After the offline import built a database in `path` (closed), whose data no log entry
 * holds: its history continues `from`, the replaced database's position, with a reset entry
 * (ChangeLog.appendReset), so LSNs never go back for the folder and a replica or a replay
 * that reaches the import knows a snapshot is needed (docs/replication.md).
 */
export async function continueHistory(path: string, from: LogPosition): Promise<LogPosition> {
  const env = open(environmentOptions(path, false));
  try {
    const log = new ChangeLog(sub(env, path, DB.meta, 'plain'), sub(env, path, DB.log, 'binary'), true);
    return env.transactionSync(() => log.appendReset(from));
  } finally {
    await env.close();
  }
}

/** The change-log position a snapshot file (`Store.backup`) holds. */
export async function snapshotPosition(file: string): Promise<LogPosition> {
  const copy = openCopy(file);
  try {
    const position = new ChangeLog(sub(copy, file, DB.meta, 'plain'), sub(copy, file, DB.log, 'binary'), false).position();
    copy.resetReadTxn();
    return position;
  } finally {
    await copy.close();
  }
}

/**
 * A writer's snapshot file about to become a new replica's data file (its first snapshot,
 * placed as it is rather than copied key by key: replication/follower.ts): checks that the
 * copy holds the announced position. Returns the position.
 */
export async function checkSnapshot(file: string, expected: { lsn: number; hash: string }): Promise<LogPosition> {
  const position = await snapshotPosition(file);
  assertAnnounced(file, position, expected);
  return position;
}

/** A snapshot holds the position its writer announced with it, or it is refused. */
function assertAnnounced(file: string, position: LogPosition, expected: { lsn: number; hash: string }): void {
  if (position.lsn !== expected.lsn || position.hash.toString('hex') !== expected.hash) {
    throw new Error(
      `the snapshot ${file} holds LSN ${position.lsn} (${position.hash.toString('hex')}), not the announced ${expected.lsn} (${expected.hash})`,
    );
  }
}

/** Inside a write transaction: every key of `to` removed, every key and value of `from` put, as stored. */
function replaceContents(from: Database<unknown, Key>, to: Database<unknown, Key>, kind: DbKind): void {
  const old: Key[] = [...to.getKeys({})];
  for (const key of old) to.removeSync(key);
  const raw = from as unknown as { getBinary(k: Key): Buffer | undefined };
  for (const key of from.getKeys({})) {
    const value = raw.getBinary(key);
    if (value === undefined) continue;
    to.putSync(key, kind === 'binary' ? Buffer.from(value) : asBinary(Buffer.from(value)));
  }
}

/** A read-only open of a foreign LMDB gets unusable handles for our missing sub-databases. */
function readVersion(dbs: Dbs): number | undefined {
  try {
    return dbs.meta.get(META.version);
  } catch {
    return undefined;
  }
}

function checkVersion(path: string, version: number | undefined): void {
  if (version === undefined) throw notTrellis(path, 'it has no Trellis format version');
  if (!READABLE_FORMATS.includes(version)) {
    throw new DataFolderError(
      `the database in ${path} has format version ${version}, this build reads version ${FORMAT_VERSION}; there is no in-place upgrade: reload the data into a new folder, or use a build that reads version ${version}`,
    );
  }
}

/**
 * Whether the text index layout is this build's (layout.ts TEXT_FORMAT): stamped with it,
 * or without text index keys at all (a new database, or one that never had a text index,
 * which a writer then stamps); otherwise the keys are of an earlier layout, which a writer
 * rebuilds at open (text-migration.ts).
 */
type TextFormatState = 'current' | 'unstamped' | 'earlier';

function textFormatOf(dbs: Dbs): TextFormatState {
  const format = dbs.meta.get(META.textFormat);
  if (format === TEXT_FORMAT) return 'current';
  if (format === undefined && dbs.textIndex.getKeysCount({ limit: 1 }) === 0) return 'unstamped';
  return 'earlier';
}

/** A read-only open cannot rebuild: the folder's writer does, once, when this build opens it. */
function earlierTextFormat(path: string, dbs: Dbs): DataFolderError {
  const format = dbs.meta.get(META.textFormat) ?? 1;
  return new DataFolderError(
    `the database in ${path} holds full-text indexes in text format ${format}, this build reads text format ${TEXT_FORMAT}; open it once with a writer of this build (trellis --data ${path}), which rebuilds them from the stored elements, then start readers`,
  );
}

/**
 * Stamps a new database and reads the id high-water marks. The last stored key is a
 * second witness, should `meta` ever lag behind the data.
 */
function initialise(env: RootDatabase, path: string, dbs: Dbs): { ids: IdState; textFormat: TextFormatState } {
  return env.transactionSync(() => {
    const version = dbs.meta.get(META.version);
    if (version === undefined) {
      if (dbs.nodes.getKeysCount() > 0) throw notTrellis(path, 'it holds data without a Trellis format version');
      dbs.meta.putSync(META.version, FORMAT_VERSION);
    } else {
      checkVersion(path, version);
      // An older format this build reads: it only lacked the change log, which opened empty.
      if (version !== FORMAT_VERSION) dbs.meta.putSync(META.version, FORMAT_VERSION);
    }
    const textFormat = textFormatOf(dbs);
    if (textFormat === 'unstamped') dbs.meta.putSync(META.textFormat, TEXT_FORMAT);
    const ids = {
      nextNode: Math.max(dbs.meta.get(META.nextNode) ?? 0, greatestLeadingU64(dbs.nodes) + 1),
      nextEdge: Math.max(dbs.meta.get(META.nextEdge) ?? 0, new EdgeReader(dbs.edges).lastId() + 1),
      next: { label: dbs.meta.get(META.nextLabel) ?? 1, property: dbs.meta.get(META.nextProperty) ?? 1 },
    };
    return { ids, textFormat };
  });
}
