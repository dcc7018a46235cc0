/**
 * The change log (physical change capture, docs/replication.md). Every write of a batch is a
 * `putSync` or `removeSync` on a handle of `Dbs`; the writer's handles are wrapped so each
 * such call also appends the change, as the exact bytes LMDB stores (key and value), to the
 * batch's entry. Replaying an entry writes the same bytes: ids the writer assigned,
 * timestamps it took, index entries, catalogue changes and background index steps alike,
 * without running the request again.
 *
 * The entry is finished inside the batch's own child transaction (committer.ts): the LSN
 * counter, the hash chain and the log row are written there, so a batch that rolls back
 * leaves neither its entry nor a consumed LSN, and LSNs are consecutive from 1.
 *
 * Entry (little-endian): [u8 format][u32 epoch][u64 lsn][f64 commit time, ms][u32 count],
 * then per change [u8 database][u8 op][u16 key length][u32 value length][key][value]; the
 * value is absent for a removal, and is a patch (below) for op 3. `hash_n = SHA-256(hash_{n-1}
 * || entry_n)`, hash_0 is 32 zero bytes.
 *
 * Patches: most batches rewrite a few large values (a column chunk of 1024 slots for one
 * new node, an adjacency block for one new edge), changing a few bytes of each. A put of a
 * binary value that already exists is recorded as a delta against the stored value
 * (value-delta.ts) when that is at most half the value. Replaying it reads the value the
 * replica holds (equal to the writer's before the put: the chain says so) and builds the
 * new one. Entries, their hashes, the log rows and the stream then carry tens of bytes per
 * one-node batch instead of kilobytes.
 */
import { createHash, hash as digest } from 'node:crypto';
import { asBinary, type Database, type Key, type PutOptions } from 'lmdb';
import { DB_KINDS, META, type Dbs } from './layout.js';
import { readU64, writeU64 } from './keys.js';
import { applyDelta, encodeDelta } from './value-delta.js';

/** The byte each sub-database has in an entry: part of the log's format, never renumbered. */
export const LOG_DB_IDS: { readonly [K in keyof Dbs]: number } = {
  nodes: 1,
  columns: 2,
  adjacency: 3,
  adjacencyLists: 4,
  edges: 5,
  dictionary: 6,
  meta: 7,
  indexes: 8,
  indexEntries: 9,
  textIndex: 10,
  hnsw: 11,
  vectorQueue: 12,
};

const DB_BY_ID = new Map<number, keyof Dbs>(Object.entries(LOG_DB_IDS).map(([name, id]) => [id, name as keyof Dbs]));

/** Written by this version; format 1 (no patches) is read as well. */
const ENTRY_FORMAT = 2;
const READ_FORMATS: ReadonlySet<number> = new Set([1, 2]);
/** format u8, epoch u32, lsn u64, time f64, count u32. */
export const ENTRY_HEADER = 1 + 4 + 8 + 8 + 4;
const CHANGE_HEADER = 1 + 1 + 2 + 4;
const PUT = 1;
const REMOVE = 2;
const PATCH = 3;
/** Values shorter than this are recorded whole (a patch would save next to nothing). */
const PATCH_MIN_BYTES = 256;
export const HASH_BYTES = 32;
export const ZERO_HASH: Buffer = Buffer.alloc(HASH_BYTES);

/** Where the log stands: the last LSN, its chain hash and the writer's epoch (0/zero hash: nothing logged yet). */
export interface LogPosition {
  readonly lsn: number;
  readonly hash: Buffer;
  readonly epoch: number;
  /** Commit time of the last logged batch (ms since 1970), 0 when none. */
  readonly time: number;
}

/** A decoded entry header. */
export interface EntryHeader {
  readonly epoch: number;
  readonly lsn: number;
  readonly time: number;
  readonly count: number;
}

export function chainHash(previous: Uint8Array, entry: Uint8Array): Buffer {
  return createHash('sha256').update(previous).update(entry).digest();
}

/**
 * Makes `row`, `[room for a hash][entry_n]`, the log row `[hash_n][entry_n]`: hash_{n-1}
 * goes in the room, `hash_{n-1} || entry` is hashed in one call (node:crypto's one-shot
 * hash costs less than half of a Hash object's three calls), then hash_n takes hash_{n-1}'s
 * place. Returns `row`.
 */
function chainRow(previous: Uint8Array, row: Buffer): Buffer {
  row.set(previous, 0);
  row.set(digest('sha256', row, 'buffer') as unknown as Buffer, 0);
  return row;
}

/**
 * A reset entry (ChangeLog.appendReset): the writer's data was replaced outside the log, so
 * whoever follows the log needs a snapshot taken at or after it. Every other entry has at
 * least one change (a batch that changed nothing has no entry).
 */
export function isReset(header: EntryHeader): boolean {
  return header.count === 0;
}

function writeEntryHeader(entry: Buffer, header: EntryHeader): void {
  entry[0] = ENTRY_FORMAT;
  entry.writeUInt32LE(header.epoch, 1);
  entry.writeBigUInt64LE(BigInt(header.lsn), 5);
  entry.writeDoubleLE(header.time, 13);
  entry.writeUInt32LE(header.count, 21);
}

export function entryHeader(entry: Uint8Array): EntryHeader {
  const b = Buffer.from(entry.buffer, entry.byteOffset, entry.byteLength);
  if (b.length < ENTRY_HEADER || !READ_FORMATS.has(b[0]!))
    throw new Error(`not a change-log entry of format ${[...READ_FORMATS].join(' or ')}`);
  return { epoch: b.readUInt32LE(1), lsn: Number(b.readBigUInt64LE(5)), time: b.readDoubleLE(13), count: b.readUInt32LE(21) };
}

/** The property lmdb-js's asBinary wraps its bytes in. */
const BINARY_WRAPPER = Object.keys(asBinary(Buffer.alloc(0)) as object)[0]!;

/** The bytes of an asBinary value, or undefined for any other value. */
function binaryOf(value: unknown): Uint8Array | undefined {
  if (typeof value !== 'object' || value === null || !Object.hasOwn(value, BINARY_WRAPPER)) return undefined;
  return (value as Record<string, Uint8Array>)[BINARY_WRAPPER];
}

/**
 * Collects the changes of one batch through wrapped handles. Outside a batch (`begin` ..
 * `finish`) a write through them throws: a store write that no entry records would make
 * replicas silently differ.
 */
export class ChangeRecorder {
  /** The wrapped handles every writer of the store uses. */
  readonly dbs: Dbs;
  private buf = Buffer.allocUnsafe(64 * 1024);
  private at = 0;
  private count = 0;
  private active = false;
  private readonly keyScratch = Buffer.allocUnsafe(4096);
  /** This recorder, for the wrappers' closures. */
  private get self(): ChangeRecorder {
    return this;
  }

  constructor(typed: Dbs) {
    const wrapped: Record<string, unknown> = {};
    for (const name of Object.keys(LOG_DB_IDS) as (keyof Dbs)[]) {
      wrapped[name] = this.wrap(typed[name] as unknown as Database<unknown, Key>, LOG_DB_IDS[name], DB_KINDS[name]);
    }
    this.dbs = wrapped as unknown as Dbs;
  }

  /** Inside `unrecorded`: the wrapped handles write straight through, recording nothing. */
  private bypass = false;

  /**
   * Runs `fn` with the wrapped handles writing straight through, outside any entry: for
   * derived data a copy rebuilds on its own at open (the text layout), which the caller
   * accounts for in the log itself (a reset entry).
   */
  unrecorded<T>(fn: () => T): T {
    this.bypass = true;
    try {
      return fn();
    } finally {
      this.bypass = false;
    }
  }

  begin(): void {
    this.active = true;
    this.at = HASH_BYTES + ENTRY_HEADER;
    this.count = 0;
  }

  /**
   * Ends the batch: its log row, `[room for the hash][entry]` with the hash and the entry's
   * header left to fill (ChangeLog.append), or null when it changed nothing. The bytes are
   * valid until the next `begin`: they stay in this recorder's buffer, so the row's put
   * reads them from a buffer lmdb-js has seen before (it looks up and caches the address of
   * every new ArrayBuffer it is given: a fresh row per batch cost about 6 µs here).
   */
  finish(): Buffer | null {
    this.active = false;
    return this.count === 0 ? null : this.buf.subarray(0, this.at);
  }

  /** Number of changes recorded in the current batch. */
  get changes(): number {
    return this.count;
  }

  private ensure(bytes: number): void {
    if (this.at + bytes <= this.buf.length) return;
    let size = this.buf.length * 2;
    while (size < this.at + bytes) size *= 2;
    const next = Buffer.allocUnsafe(size);
    this.buf.copy(next, 0, 0, this.at);
    this.buf = next;
  }

  /** Appends one change (copying the bytes: keys and values are often scratch buffers). */
  private append(db: number, op: number, key: Uint8Array, value: Uint8Array | null): void {
    if (key.length > 0xffff) throw new Error(`storage: a key of ${key.length} bytes`);
    const valueLength = value?.length ?? 0;
    this.ensure(CHANGE_HEADER + key.length + valueLength);
    const b = this.buf;
    let at = this.at;
    b[at] = db;
    b[at + 1] = op;
    b.writeUInt16LE(key.length, at + 2);
    b.writeUInt32LE(valueLength, at + 4);
    at += CHANGE_HEADER;
    b.set(key, at);
    at += key.length;
    if (value !== null) {
      b.set(value, at);
      at += valueLength;
    }
    this.at = at;
    this.count++;
  }

  /**
   * Records a put of `next` over the stored `prev` as a patch (value-delta.ts), when the
   * patch takes at most half of `next`; returns false (nothing recorded) otherwise.
   */
  private appendPatch(db: number, key: Uint8Array, prev: Uint8Array, next: Uint8Array): boolean {
    if (key.length > 0xffff) throw new Error(`storage: a key of ${key.length} bytes`);
    const budget = next.length >> 1;
    this.ensure(CHANGE_HEADER + key.length + budget);
    const start = this.at;
    const body = start + CHANGE_HEADER + key.length;
    const end = encodeDelta(prev, prev.length, next, this.buf, body, body + budget);
    if (end < 0) return false;
    const b = this.buf;
    b[start] = db;
    b[start + 1] = PATCH;
    b.writeUInt16LE(key.length, start + 2);
    b.writeUInt32LE(end - body, start + 4);
    b.set(key, start + CHANGE_HEADER);
    this.at = end;
    this.count++;
    return true;
  }

  /**
   * A handle that records every put and removal. Keys are the bytes lmdb-js writes (the
   * handle's own key writer); a msgpack value is the output of the handle's own encoder,
   * taken as lmdb-js encodes it for the put, so nothing is encoded twice. (Writing
   * pre-encoded bytes through a second, binary handle of the same sub-database instead
   * made later reads inside write transactions return stale values under lmdb 3.5.6.)
   */
  private wrap(typed: Database<unknown, Key>, id: number, kind: string): unknown {
    const recorder = this.self;
    const internals = typed as unknown as {
      writeKey(key: Key, target: Buffer, at: number): number;
      encoder?: { encode(value: unknown, mode?: number): Buffer };
    };
    let capture = false;
    let encoded: Buffer | null = null;
    const encoder = internals.encoder;
    if (kind !== 'binary' && encoder !== undefined) {
      const encode = encoder.encode;
      encoder.encode = function (this: unknown, value: unknown, mode?: number): Buffer {
        const bytes = encode.call(this, value, mode);
        if (capture) encoded = bytes;
        return bytes;
      };
    }
    const keyBytes = (key: Key): Uint8Array => {
      if (kind !== 'plain') return key as Uint8Array;
      const end = internals.writeKey(key, recorder.keyScratch, 0);
      return recorder.keyScratch.subarray(0, end);
    };
    const wrapper = Object.create(typed) as Record<string, unknown>;
    wrapper.putSync = (key: Key, value: unknown, options?: PutOptions): void => {
      if (recorder.bypass) return void typed.putSync(key, value, options ?? {});
      if (!recorder.active) recorder.outside();
      if (kind === 'binary') {
        const next = value as Uint8Array;
        // The stored value comes in lmdb-js's shared read buffer: a value to put must never
        // be a view of that buffer (the read would have overwritten it; checked below).
        const prev = next.length >= PATCH_MIN_BYTES ? typed.getBinaryFast(key) : undefined;
        if (prev !== undefined && prev.buffer === next.buffer) {
          throw new Error("storage: a value put through a logged handle is a view of lmdb-js's shared read buffer");
        }
        if (prev === undefined || !recorder.appendPatch(id, key as Uint8Array, prev, next)) {
          recorder.append(id, PUT, key as Uint8Array, next);
        }
        typed.putSync(key, value);
        return;
      }
      const given = binaryOf(value);
      if (given !== undefined) {
        // Bytes already in the store's encoding (lmdb-js's asBinary: records written from
        // columns, graph.ts createNodes): stored as they are, and logged as they are.
        recorder.append(id, PUT, keyBytes(key), given);
        typed.putSync(key, value, options ?? {});
        return;
      }
      capture = true;
      encoded = null;
      try {
        typed.putSync(key, value);
      } finally {
        capture = false;
      }
      const bytes = encoded as (Buffer & { start?: number; end?: number }) | null;
      if (bytes === null) throw new Error('storage: the change log did not see the value lmdb-js encoded');
      // In its buffer-reuse mode msgpackr returns its whole buffer, the value between start and end.
      const start = bytes.start ?? -1;
      recorder.append(id, PUT, keyBytes(key), start > -1 ? bytes.subarray(start, bytes.end) : bytes);
    };
    wrapper.removeSync = (key: Key): void => {
      if (recorder.bypass) return void typed.removeSync(key);
      if (!recorder.active) recorder.outside();
      typed.removeSync(key);
      recorder.append(id, REMOVE, keyBytes(key), null);
    };
    for (const name of ['put', 'remove', 'putAsync', 'ifNoExists', 'ifVersion', 'clearSync', 'dropSync', 'clearAsync', 'drop']) {
      const direct = (typed as unknown as Record<string, (...args: unknown[]) => unknown>)[name]!;
      wrapper[name] = (...args: unknown[]) => {
        if (recorder.bypass) return direct.apply(typed, args);
        throw new Error(`storage: ${name} is not logged; write with putSync/removeSync inside a batch`);
      };
    }
    return wrapper;
  }

  private outside(): never {
    throw new Error('storage: a write outside a write batch (the change log records every write of a batch)');
  }
}

/** The log rows and position, read and written through the raw meta and log handles. */
export class ChangeLog {
  constructor(
    private readonly meta: Database<unknown, Key>,
    private readonly log: Database<Buffer, Buffer>,
    /** Keep entries in `replication_log` for a publisher (otherwise only the position advances). */
    readonly keep: boolean,
  ) {}

  /**
   * The writer's position as its batches left it, kept between batches so a batch does not
   * read it back (one value fewer to read and decode per batch). Dropped (`forget`) when a
   * batch or a commit rolls back.
   */
  private cached: LogPosition | null = null;

  /**
   * The position in the current transaction (or the current snapshot): the newest log row
   * when there is one past the position recorded in `meta`, else that one. A writer that
   * keeps its rows records its position by the row alone (append); `meta` has it after a
   * trim that removed the newest row, a reset, a replica's apply or a promotion (whose new
   * epoch at the same LSN is why `meta` wins a tie).
   */
  position(): LogPosition {
    const recorded = this.recordedPosition();
    for (const { value } of this.log.getRange({ reverse: true, limit: 1 })) {
      const row = value as Buffer;
      const header = entryHeader(row.subarray(HASH_BYTES));
      if (header.lsn <= recorded.lsn) break;
      return { lsn: header.lsn, hash: Buffer.from(row.subarray(0, HASH_BYTES)), epoch: header.epoch, time: header.time };
    }
    return recorded;
  }

  /** The position as `meta` records it (record). */
  private recordedPosition(): LogPosition {
    const raw = this.meta.get(META.logPosition) as Uint8Array | undefined;
    if (raw === undefined) return { lsn: 0, hash: ZERO_HASH, epoch: 1, time: 0 };
    const b = Buffer.from(raw.buffer, raw.byteOffset, raw.byteLength);
    return {
      lsn: Number(b.readBigUInt64LE(0)),
      hash: Buffer.from(b.subarray(8, 8 + HASH_BYTES)),
      epoch: b.readUInt32LE(8 + HASH_BYTES),
      time: b.readDoubleLE(12 + HASH_BYTES),
    };
  }

  /** A batch or a commit rolled back: the next batch reads the position again. */
  forget(): void {
    this.cached = null;
    this.skipKnown = false;
    this.forgetRecent();
  }

  private recentBytes = 0;

  /**
   * The rows this writer appended lately, in LSN order (only while `keep`): the publisher
   * takes its entries from here rather than reading back what it was just handed, and
   * reads `replication_log` only for what is not here (after a restart, or a backlog
   * longer than RECENT_ENTRIES). Dropped whole when a commit fails (`forget`): a failed
   * commit's LSNs are given again to other entries. A caller only asks for entries its
   * committed position covers, so an entry of a commit still in flight is never served.
   */
  private recent: LoggedEntry[] = [];

  /** Whether `meta` is known to hold the skipped mark in this transaction. */
  private skipKnown = false;

  /**
   * Inside a batch of a writer that records no entries (no publisher: docs/replication.md,
   * "Cost"): marks the history as having skipped batches (once; the mark is cached) and
   * returns the current LSN, which the batch's answer carries.
   */
  skip(): number {
    if (!this.skipKnown) {
      if (this.meta.get(META.logSkipped) === undefined) this.meta.putSync(META.logSkipped, true);
      this.skipKnown = true;
    }
    this.cached ??= this.position();
    return this.cached.lsn;
  }

  /**
   * At the open of a writer that records entries, in a write transaction: if batches were
   * committed without entries since the last one, the history continues with a reset entry
   * (replicas take a new snapshot, a replay stops there). Returns whether it wrote one.
   */
  resumeAfterSkipped(): boolean {
    if (this.meta.get(META.logSkipped) === undefined) return false;
    this.appendReset(this.position());
    this.meta.removeSync(META.logSkipped);
    this.skipKnown = false;
    return true;
  }

  /**
   * Inside the batch's transaction: gives the entry of `row` (ChangeRecorder.finish) the
   * next LSN, chains its hash and writes the row and the position. Returns the batch's LSN:
   * the new one, or the current one for a batch that changed nothing (its answer is
   * visible at that LSN).
   */
  append(row: Buffer | null, count: number, now = Date.now()): number {
    const at = this.cached ?? this.position();
    if (row === null) return at.lsn;
    const lsn = at.lsn + 1;
    writeEntryHeader(row.subarray(HASH_BYTES), { epoch: at.epoch, lsn, time: now, count });
    chainRow(at.hash, row);
    // The row stays in the recorder's buffer, which the next batch overwrites: the
    // position and the publisher's copy take their own bytes (the hash alone when no
    // publisher keeps the entry: a batch's row may be megabytes).
    const kept = Buffer.from(this.keep ? row : row.subarray(0, HASH_BYTES));
    const hash = kept.subarray(0, HASH_BYTES);
    const position = { lsn, hash, epoch: at.epoch, time: now };
    if (this.keep) {
      // The row is the position (position() reads the newest one): no `meta` put per
      // batch (3% of a logging writer's CPU per one-node batch, docs/benchmarks.md).
      this.log.putSync(lsnKey(lsn), row);
      this.remember({ lsn, hash, entry: kept.subarray(HASH_BYTES) });
      this.cached = position;
    } else {
      this.record(position);
    }
    return lsn;
  }

  /**
   * Inside a write transaction of a database whose data was replaced outside the log (the
   * offline import, bulk-build.ts), continuing the history `from` (the replaced database's
   * position): a reset entry, one with no change, at `from.lsn + 1`, chained to `from.hash`,
   * kept as a row whatever `keep` says (a publisher ships it whenever one runs). A replica
   * that meets it takes a new snapshot; a replay stops at it (docs/replication.md).
   */
  appendReset(from: LogPosition, now = Date.now()): LogPosition {
    const lsn = from.lsn + 1;
    const row = Buffer.alloc(HASH_BYTES + ENTRY_HEADER);
    writeEntryHeader(row.subarray(HASH_BYTES), { epoch: from.epoch, lsn, time: now, count: 0 });
    chainRow(from.hash, row);
    const hash = row.subarray(0, HASH_BYTES);
    this.log.putSync(lsnKey(lsn), row);
    this.forgetRecent(); // a reset is rare: the publisher reads it back
    const position = { lsn, hash, epoch: from.epoch, time: now };
    this.record(position);
    return position;
  }

  /** Writes the position (a replica records what it applied, a promotion its new epoch). */
  record(position: LogPosition): void {
    const b = Buffer.allocUnsafe(20 + HASH_BYTES);
    b.writeBigUInt64LE(BigInt(position.lsn), 0);
    b.set(position.hash, 8);
    b.writeUInt32LE(position.epoch, 8 + HASH_BYTES);
    b.writeDoubleLE(position.time, 12 + HASH_BYTES);
    this.meta.putSync(META.logPosition, b);
    this.cached = position;
  }

  private forgetRecent(): void {
    this.recent = [];
    this.recentBytes = 0;
  }

  private remember(entry: LoggedEntry): void {
    const last = this.recent[this.recent.length - 1];
    if (last !== undefined && last.lsn !== entry.lsn - 1) this.forgetRecent();
    this.recent.push(entry);
    this.recentBytes += entry.entry.length;
    // A backlog past the bounds (NATS away) is read from the log when it is published.
    if (this.recent.length > RECENT_ENTRIES || this.recentBytes > RECENT_BYTES) this.forgetRecent();
  }

  /**
   * Entries from `from` to `upTo` (both committed), at most `limit`, from the rows this
   * writer appended lately; null when they do not start at `from` (read the log instead).
   */
  recentEntries(from: number, upTo: number, limit: number): LoggedEntry[] | null {
    const first = this.recent[0];
    if (first === undefined || first.lsn > from || this.recent[this.recent.length - 1]!.lsn < from) return null;
    const start = from - first.lsn;
    const out = this.recent.slice(start, start + Math.min(limit, upTo - from + 1));
    // Published entries are not asked for again.
    if (start > 0) {
      for (let i = 0; i < start; i++) this.recentBytes -= this.recent[i]!.entry.length;
      this.recent.splice(0, start);
    }
    return out;
  }

  /** Logged entries from `from` on, in order, at most `limit` (the current snapshot). */
  *entries(from: number, limit: number): Iterable<LoggedEntry> {
    let n = 0;
    for (const { key, value } of this.log.getRange({ start: lsnKey(from) })) {
      if (n++ >= limit) return;
      const row = Buffer.from(value as Buffer);
      yield { lsn: readU64(key as Buffer, 0), hash: row.subarray(0, HASH_BYTES), entry: row.subarray(HASH_BYTES) };
    }
  }

  /** The first LSN still in the log, or null when it is empty. */
  firstKept(): number | null {
    for (const key of this.log.getKeys({ limit: 1 })) return readU64(key as Buffer, 0);
    return null;
  }

  /**
   * Inside a write transaction: removes every row up to `lsn` (published). When that takes
   * the newest row, which may be all that holds the position (append), the position is
   * recorded in `meta` first.
   */
  trim(lsn: number): number {
    const keys: Buffer[] = [];
    for (const key of this.log.getKeys({ end: lsnKey(lsn + 1) })) keys.push(Buffer.from(key as Buffer));
    if (keys.length === 0) return 0;
    const at = this.position();
    if (readU64(keys[keys.length - 1]!, 0) === at.lsn) this.record(at);
    for (const key of keys) this.log.removeSync(key);
    return keys.length;
  }
}

export interface LoggedEntry {
  readonly lsn: number;
  /** hash_lsn: the chain up to and including this entry. */
  readonly hash: Buffer;
  readonly entry: Buffer;
}

/** Entries kept in memory for the publisher at most (a longer backlog is read from the log). */
const RECENT_ENTRIES = 8192;
const RECENT_BYTES = 32 * 1024 * 1024;

export function lsnKey(lsn: number): Buffer {
  const key = Buffer.allocUnsafe(8);
  writeU64(key, 0, lsn);
  return key;
}

/**
 * Writes an entry's changes, in order, through the replica's own handles (the caller
 * holds the write transaction, and records the position): a value goes in as the bytes
 * the writer stored (lmdb-js's `asBinary`), a key of lmdb-js's ordered encoding is read
 * back to the key it encodes first. (A second handle of the same sub-database opened with
 * binary keys is not a way around this: under lmdb 3.5.6 its puts made keys the first
 * handle did not find, the same key twice in one sub-database.) Throws on a malformed
 * entry; the caller's transaction then rolls back.
 */
export function applyEntry(dbs: Dbs, entry: Uint8Array): EntryHeader {
  const header = entryHeader(entry);
  const b = Buffer.from(entry.buffer, entry.byteOffset, entry.byteLength);
  let at = ENTRY_HEADER;
  for (let i = 0; i < header.count; i++) {
    if (at + CHANGE_HEADER > b.length) throw new Error(`entry ${header.lsn} is truncated at change ${i}`);
    const name = DB_BY_ID.get(b[at]!);
    const op = b[at + 1];
    const keyLength = b.readUInt16LE(at + 2);
    const valueLength = b.readUInt32LE(at + 4);
    at += CHANGE_HEADER;
    const kind = name === undefined ? undefined : DB_KINDS[name];
    const knownOp = op === PUT || op === REMOVE || (op === PATCH && kind === 'binary');
    if (name === undefined || !knownOp || at + keyLength + valueLength > b.length) {
      throw new Error(`entry ${header.lsn} has a malformed change ${i}`);
    }
    const db = dbs[name] as unknown as Database<unknown, Key> & { readKey(b: Buffer, start: number, end: number): Key };
    const key = kind === 'plain' ? db.readKey(b, at, at + keyLength) : Buffer.from(b.subarray(at, at + keyLength));
    at += keyLength;
    if (op === PUT) {
      const value = Buffer.from(b.subarray(at, at + valueLength));
      db.putSync(key, kind === 'binary' ? value : asBinary(value));
      at += valueLength;
    } else if (op === PATCH) {
      const stored = db.getBinary(key);
      if (stored === undefined) throw new Error(`entry ${header.lsn}: change ${i} patches a value this copy does not hold`);
      db.putSync(key, applyDelta(stored, b.subarray(at, at + valueLength), `entry ${header.lsn}, change ${i}`));
      at += valueLength;
    } else {
      db.removeSync(key);
    }
  }
  if (at !== b.length) throw new Error(`entry ${header.lsn} has ${b.length - at} bytes after its last change`);
  return header;
}
