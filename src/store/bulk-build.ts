/**
 * The offline bulk load (`trellis import` into an empty database): a new database built
 * straight in the storage format of layout.ts, in a folder of its own inside the target
 * folder, then moved into place with one rename.
 *
 * - **All or nothing.** The target folder's writer lock (lock.ts) is held from start to
 *   end. The build writes only to `<target>/.import-<pid>-<random>/`; the last step renames
 *   its data.mdb over the target's (rename(2) is atomic), so an error, Ctrl+C or kill -9 at
 *   any earlier point leaves the target as it was. A killed build leaves its temporary
 *   folder, which the next build removes (`removeStaleBuilds`).
 * - **Fast because nothing is written twice.** Node records are appended in id order, each
 *   column chunk and edge block is written once, and the adjacency is sorted once at the end
 *   (bulk-adjacency.ts). The temporary environment commits without flushing (its content
 *   is worthless until the rename) and is flushed once before the rename.
 * - **Bounded memory.** Work commits every few thousand values, so LMDB keeps few dirty
 *   pages; what stays in memory until the end is four bytes per edge and direction.
 *
 * Why a temporary folder rather than one LMDB transaction in the target: see
 * docs/architecture.md ("Bulk import").
 */
import { mkdirSync, readdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { asBinary, open } from 'lmdb';
import type { RootDatabase } from 'lmdb';
import type { IndexSpec } from '../core/index-spec.js';
import type { Value } from '../core/value.js';
import { AdjacencyBuild, BULK_ID_LIMIT } from './bulk-adjacency.js';
import { cellOf, PropertyMapWriter, type BulkColumn } from './bulk-columns.js';
import { encodeChunk, encodeLabels, encodeNumberChunk } from './columns.js';
import { Dictionary, storableName } from './dictionary.js';
import { EdgeEdits } from './edge-blocks.js';
import { checkDataFile, checkDataFolder, DATA_FILE, DataFolderError, errorCode, fsFailure, LMDB_LOCK_FILE } from './folder.js';
import { syncFile } from './sync-file.js';
import type { Dbs } from './layout.js';
import { columnKey, scratchIdKey } from './keys.js';
import { COLUMN_BLOCK, DB, FORMAT_VERSION, LABEL_COLUMN, MAX_NAME_BYTES, META } from './layout.js';
import { acquireWriterLock, type WriterLock } from './lock.js';
import { continueHistory, environmentOptions, openDbs, openStore } from './open.js';
import { ZERO_HASH, type LogPosition } from './change-log.js';
import type { Store } from './types.js';

export type { BulkColumn } from './bulk-columns.js';

const TEMP_PREFIX = '.import-';

/** Values put between commits of the temporary environment. */
const PUTS_PER_COMMIT = 50_000;
/** Adjacency blocks (of 32 nodes) written between commits. */
const ADJACENCY_BLOCKS_PER_COMMIT = 4096;

/** What the target held: an empty database may carry index definitions and id counters. */
export interface TargetState {
  readonly indexes: readonly IndexSpec[];
  readonly nextNode: number;
  readonly nextEdge: number;
  /** Its change-log position: the built database's history continues it (open.ts continueHistory). */
  readonly log: LogPosition;
}

export interface BulkBuildOptions {
  /** The database folder to load (missing, empty, or an empty database). */
  readonly target: string;
}

/** A name the store can keep, or a message saying why not. */
function checkName(kind: 'label' | 'property', name: string): void {
  if (name.length === 0) throw new Error(`a ${kind} name is empty`);
  if (!storableName(name)) throw new Error(`the ${kind} name "${name.slice(0, 40)}..." is longer than ${MAX_NAME_BYTES} bytes of UTF-8`);
}

/** Column chunks of one property being filled, one block at a time. */
interface ColumnFill {
  readonly id: number;
  /** The block being filled and its slots (values; numbers for numeric columns go straight to chunks). */
  block: number;
  slots: (Value | undefined)[];
}

export class BulkBuild {
  private readonly names = { label: new Map<string, number>(), property: new Map<string, number>() };
  private nextNode: number;
  private nextEdge: number;
  private nodeCount = 0;
  private edgeCount = 0;
  private puts = 0;
  private version = 1;
  /** Label id of every loaded node (0: none), by id: the label column, written per block. */
  private labels = new Uint32Array(1 << 16);
  private readonly columns = new Map<number, ColumnFill>();
  private readonly adjacency = new AdjacencyBuild();
  private readonly edges: EdgeEdits;
  private closed = false;

  private constructor(
    private readonly target: string,
    private readonly temp: string,
    private readonly lock: WriterLock,
    private readonly env: RootDatabase,
    private readonly dbs: Dbs,
    readonly state: TargetState,
  ) {
    this.nextNode = state.nextNode;
    this.nextEdge = state.nextEdge;
    this.edges = new EdgeEdits(dbs.edges);
    env.transactionSync(() => {
      dbs.meta.putSync(META.version, FORMAT_VERSION);
    });
  }

  /**
   * Takes the target's writer lock, checks that it holds no data, and opens a temporary
   * environment beside its data file. Throws a DataFolderError naming the folder otherwise.
   */
  static async open(options: BulkBuildOptions): Promise<BulkBuild> {
    const target = options.target;
    checkDataFolder(target, true);
    const lock = acquireWriterLock(target);
    let temp: string | undefined;
    try {
      checkDataFile(target, true);
      removeStaleBuilds(target);
      const state = await readTarget(target, lock.token);
      temp = join(target, `${TEMP_PREFIX}${process.pid}-${randomBytes(4).toString('hex')}`);
      try {
        mkdirSync(temp);
      } catch (err) {
        throw fsFailure(`cannot create a temporary folder in ${target}`, err, 'free some space or fix the permissions of the folder');
      }
      // Nothing is flushed until finish: the folder is thrown away unless the build completes.
      const env = open({ ...environmentOptions(temp, false), noSync: true });
      return new BulkBuild(target, temp, lock, env, openDbs(env, temp), state);
    } catch (err) {
      if (temp !== undefined) rmSync(temp, { recursive: true, force: true });
      lock.release();
      throw err;
    }
  }

  /** The id of a name, assigned on first use. */
  private nameId(kind: 'label' | 'property', name: string): number {
    const known = this.names[kind].get(name);
    if (known !== undefined) return known;
    checkName(kind, name);
    const id = this.names[kind].size + 1;
    this.names[kind].set(name, id);
    return id;
  }

  /** Runs `fn` in a write transaction of the temporary environment. */
  private txn(fn: () => void): void {
    this.env.transactionSync(() => {
      this.version = this.env.getWriteTxnId() * 4096;
      fn();
    });
  }

  /**
   * Loads `count` nodes of `label`, row i's properties from each column (absent where it
   * has none); returns the id of the first (the others follow it one by one).
   */
  addNodes(label: string, count: number, columns: readonly BulkColumn[]): number {
    this.checkOpen();
    const labelId = this.nameId('label', label);
    const propertyIds = columns.map((c) => this.nameId('property', c.name));
    const first = this.nextNode;
    if (first + count > BULK_ID_LIMIT) throw new Error(`a bulk load holds at most ${BULK_ID_LIMIT} nodes`);
    this.nextNode += count;
    this.nodeCount += count;
    this.growLabels(first + count);
    this.labels.fill(labelId, first, first + count);
    const writer = new PropertyMapWriter(columns);
    let at = 0;
    while (at < count) {
      const end = Math.min(count, at + PUTS_PER_COMMIT);
      this.txn(() => {
        for (let i = at; i < end; i++) {
          this.dbs.nodes.putSync(scratchIdKey(first + i), asBinary(writer.nodeRecord(labelId, i)) as never, { append: true });
        }
        columns.forEach((column, c) => this.fillColumn(propertyIds[c]!, column, first + at, at, end - at));
        this.writeFullLabelBlocks(first + end);
      });
      at = end;
    }
    return first;
  }

  /**
   * Loads `count` edges of `label` from `from[i]` to `to[i]` (ids this build gave its
   * nodes), row i's properties from each column; returns the id of the first.
   */
  addEdges(label: string, from: ArrayLike<number>, to: ArrayLike<number>, count: number, columns: readonly BulkColumn[]): number {
    this.checkOpen();
    const labelId = this.nameId('label', label);
    for (const c of columns) this.nameId('property', c.name);
    const first = this.nextEdge;
    if (first + count > BULK_ID_LIMIT) throw new Error(`a bulk load holds at most ${BULK_ID_LIMIT} edges`);
    this.nextEdge += count;
    this.edgeCount += count;
    const writer = new PropertyMapWriter(columns);
    let at = 0;
    while (at < count) {
      const end = Math.min(count, at + PUTS_PER_COMMIT * 4);
      this.txn(() => {
        for (let i = at; i < end; i++) {
          // The map first: writing it may grow the buffer.
          const length = writer.edgeMap(i);
          this.edges.putEncoded(first + i, labelId, from[i]!, to[i]!, writer.buffer, length);
        }
        this.adjacency.add(labelId, from, to, at, end - at, first);
        this.edges.flush();
      });
      at = end;
    }
    return first;
  }

  /** The ids the next nodes and edges get. */
  get nextIds(): { node: number; edge: number } {
    return { node: this.nextNode, edge: this.nextEdge };
  }

  private growLabels(size: number): void {
    if (size <= this.labels.length) return;
    let length = this.labels.length;
    while (length < size) length *= 2;
    const grown = new Uint32Array(length);
    grown.set(this.labels);
    this.labels = grown;
  }

  /** Label blocks written so far: every block below this one is complete. */
  private labelBlocksWritten = 0;

  private writeFullLabelBlocks(upTo: number): void {
    const full = Math.floor(upTo / COLUMN_BLOCK);
    for (let block = this.labelBlocksWritten; block < full; block++) this.putLabelBlock(block);
    this.labelBlocksWritten = Math.max(this.labelBlocksWritten, full);
  }

  private putLabelBlock(block: number): void {
    const slots = this.labels.subarray(block * COLUMN_BLOCK, (block + 1) * COLUMN_BLOCK);
    if (!slots.some((l) => l !== 0)) return;
    const copy = new Uint32Array(COLUMN_BLOCK);
    copy.set(slots);
    this.dbs.columns.putSync(columnKey(LABEL_COLUMN, block), encodeLabels(copy, this.version));
  }

  /**
   * Rows [from, from + count) of a column, for node ids from `firstId` on: whole chunks of
   * numbers are encoded from the doubles; everything else collects slots per block.
   */
  private fillColumn(propertyId: number, column: BulkColumn, firstId: number, from: number, count: number): void {
    let fill = this.columns.get(propertyId);
    for (let i = 0; i < count;) {
      const id = firstId + i;
      const block = Math.floor(id / COLUMN_BLOCK);
      const slot = id % COLUMN_BLOCK;
      const take = Math.min(count - i, COLUMN_BLOCK - slot);
      if (fill !== undefined && fill.block !== block) {
        this.putColumnChunk(fill);
        fill = undefined;
      }
      if (fill === undefined && column.kind !== 'value' && slot === 0 && take === COLUMN_BLOCK) {
        // A whole chunk of numbers: straight from the doubles.
        const bytes = encodeNumberChunk(column.values, column.present, column.kind === 'i64', from + i, take, this.version);
        if (bytes !== null) this.dbs.columns.putSync(columnKey(propertyId, block), bytes);
      } else {
        if (fill === undefined) {
          fill = { id: propertyId, block, slots: new Array<Value | undefined>(COLUMN_BLOCK) };
          this.columns.set(propertyId, fill);
        }
        for (let k = 0; k < take; k++) fill.slots[slot + k] = cellOf(column, from + i + k);
      }
      i += take;
    }
    if (fill === undefined) this.columns.delete(propertyId);
    else if (fill.slots.length === COLUMN_BLOCK && (firstId + count) % COLUMN_BLOCK === 0) {
      this.putColumnChunk(fill);
      this.columns.delete(propertyId);
    }
  }

  private putColumnChunk(fill: ColumnFill): void {
    const bytes = encodeChunk(fill.slots, this.version);
    if (bytes !== null) this.dbs.columns.putSync(columnKey(fill.id, fill.block), bytes);
  }

  private checkOpen(): void {
    if (this.closed) throw new Error('the bulk build is closed');
  }

  /**
   * Writes the adjacency, the dictionary and the counters, builds the indexes of
   * `indexes` (the target's own come first) with the store's background builds, flushes,
   * and moves the database into the target folder. The build is closed afterwards.
   */
  async finish(indexes: readonly IndexSpec[] = [], onIndexes?: (store: Store) => Promise<void>): Promise<void> {
    this.checkOpen();
    try {
      this.txn(() => {
        for (const fill of this.columns.values()) this.putColumnChunk(fill);
        this.columns.clear();
        for (let block = this.labelBlocksWritten; block * COLUMN_BLOCK < this.nextNode; block++) this.putLabelBlock(block);
      });
      // The adjacency: sorted once, then written in key order, a few thousand blocks per commit.
      const blocks = this.adjacency.prepare(this.nextNode);
      for (let from = 0; from < blocks; from += ADJACENCY_BLOCKS_PER_COMMIT) {
        this.txn(() =>
          this.adjacency.writeBlocks(
            from,
            Math.min(blocks, from + ADJACENCY_BLOCKS_PER_COMMIT),
            this.dbs.adjacency,
            this.dbs.adjacencyLists,
          ),
        );
      }
      this.txn(() => this.writeMeta());
      await this.env.close();
      this.closed = true;
      if (indexes.length > 0 || onIndexes !== undefined) await this.buildIndexes(indexes, onIndexes);
      await continueHistory(this.temp, this.state.log);
      this.moveIntoPlace();
    } catch (err) {
      await this.abort();
      throw err;
    }
  }

  private writeMeta(): void {
    const { dictionary, meta } = this.dbs;
    const names = new Dictionary(dictionary, meta);
    for (const kind of ['label', 'property'] as const) for (const [name, id] of this.names[kind]) names.put(kind, name, id);
    meta.putSync(META.nextNode, this.nextNode);
    meta.putSync(META.nextEdge, this.nextEdge);
    meta.putSync(META.nodeCount, this.nodeCount);
    meta.putSync(META.edgeCount, this.edgeCount);
    meta.putSync(META.columnsGeneration, this.version + 1);
  }

  /** Opens the built database as a store and runs its index builds to the end. */
  private async buildIndexes(indexes: readonly IndexSpec[], onIndexes?: (store: Store) => Promise<void>): Promise<void> {
    const store = await openStore({ path: this.temp });
    try {
      const all = [...this.state.indexes, ...indexes];
      if (all.length > 0) await store.write((w) => all.forEach((spec) => w.createIndex(spec, true)));
      await onIndexes?.(store);
    } finally {
      await store.close();
    }
  }

  /** Flushes the built file and renames it over the target's data file. */
  private moveIntoPlace(): void {
    const built = join(this.temp, DATA_FILE);
    syncFile(built);
    rmSync(join(this.target, LMDB_LOCK_FILE), { force: true });
    try {
      renameSync(built, join(this.target, DATA_FILE));
    } catch (err) {
      throw fsFailure(
        `cannot move the imported database into ${this.target}`,
        err,
        'the folder is unchanged; fix the cause and import again',
      );
    }
    syncFile(this.target);
    rmSync(this.temp, { recursive: true, force: true });
    this.lock.release();
  }

  /** Drops everything built; the target stays as it was. Safe to call twice. */
  async abort(): Promise<void> {
    if (!this.closed) {
      this.closed = true;
      await this.env.close().catch(() => undefined);
    }
    rmSync(this.temp, { recursive: true, force: true });
    this.lock.release();
  }
}

/** Temporary folders of builds whose process is gone (a kill -9): we hold the lock, so none is live. */
export function removeStaleBuilds(target: string): void {
  let names: string[];
  try {
    names = readdirSync(target);
  } catch {
    return;
  }
  for (const name of names) {
    if (!name.startsWith(TEMP_PREFIX)) continue;
    const path = join(target, name);
    try {
      if (statSync(path).isDirectory()) rmSync(path, { recursive: true, force: true });
    } catch {
      // gone meanwhile
    }
  }
}

/** What an existing database in the target holds; it must hold no element. */
async function readTarget(target: string, lockToken: string): Promise<TargetState> {
  let size = 0;
  try {
    size = statSync(join(target, DATA_FILE)).size;
  } catch (err) {
    if (errorCode(err) !== 'ENOENT') throw err;
  }
  if (size === 0) return { indexes: [], nextNode: 0, nextEdge: 0, log: { lsn: 0, hash: ZERO_HASH, epoch: 1, time: 0 } };
  // Unlogged: reading the target must not change it (a logging open would continue a
  // marked history with a reset entry, and a failed import must leave the folder as it was).
  const store = await openStore({ path: target, writerLock: lockToken, unlogged: true });
  let indexes: IndexSpec[];
  let log: LogPosition;
  try {
    log = store.logPosition();
    const found = store.read((r) => ({
      nodes: r.nodeCount(),
      edges: r.edgeCount(),
      indexes: r
        .indexCatalog()
        .defs.filter((d) => d.state !== 'dropping')
        .map((d) => d.spec),
    }));
    if (found.nodes > 0 || found.edges > 0) {
      throw new DataFolderError(
        `the database in ${target} is not empty (${found.nodes} nodes, ${found.edges} edges); the offline import only loads an empty database: import into a new folder, or into the running server with --url`,
      );
    }
    indexes = found.indexes;
  } finally {
    await store.close();
  }
  return { indexes, log, ...(await readNextIds(target)) };
}

/** The id counters of a closed database (ids are never reused, even after everything was deleted). */
async function readNextIds(target: string): Promise<{ nextNode: number; nextEdge: number }> {
  const env = open({ ...environmentOptions(target, true) });
  try {
    const meta = env.openDB<number, string>(DB.meta, {});
    return { nextNode: meta.get(META.nextNode) ?? 0, nextEdge: meta.get(META.nextEdge) ?? 0 };
  } finally {
    await env.close();
  }
}
