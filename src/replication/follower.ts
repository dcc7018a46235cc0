/**
 * A replica's follower (docs/replication.md): keeps the replica's own copy current. On
 * start, a copy that holds nothing yet takes a snapshot from the writer; then it follows
 * the stream from the entry after its position with an ordered consumer, reassembles split
 * entries and unpacks groups (entry-groups.ts), and applies each message's entries in one
 * LMDB transaction that also records the applied LSN and hash (Store.applyEntries checks
 * they follow and chain). On a gap (the stream no longer
 * holds the next entry) or a mismatch it logs why and takes a new snapshot, loaded in one
 * transaction, so readers go on reading the old copy until the new one is whole.
 */
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { messageOf } from '../core/errors.js';
import { checkSnapshot, LogMismatch, type LogPosition, type Store } from '../store/index.js';
import { EntryAssembler, firstLsn } from './entry-groups.js';
import { LogStream, type LogMessage } from './nats.js';
import { SegmentFetcher } from './segments.js';
import { downloadSnapshot, snapshotFolder, type DownloadedSnapshot } from './snapshot.js';

export interface FollowerOptions {
  readonly store: Store;
  readonly dataDir: string;
  readonly url: string;
  readonly stream: string;
  readonly writerUrl: string;
  readonly log: (message: string, fields?: Record<string, unknown>) => void;
  /** The first snapshot, placed as the data file before the store opened (seedReplica). */
  readonly seeded?: SeededSnapshot | null;
}

/** A snapshot that became a new replica's data file. */
export interface SeededSnapshot {
  readonly bytes: number;
  readonly lsn: number;
}

/** A snapshot's log fields: its position and size, where a resumed download started, where the time went. */
function snapshotFields(downloaded: DownloadedSnapshot, loadStarted: number): Record<string, number> {
  const { info, times, resumedFrom } = downloaded;
  const load = (performance.now() - loadStarted) / 1000;
  const total = times.make + times.transfer + times.sync + times.check + load;
  return {
    lsn: info.lsn,
    bytes: info.bytes,
    resumed_from: resumedFrom,
    make_s: round(times.make),
    transfer_s: round(times.transfer),
    sync_s: round(times.sync),
    check_s: round(times.check),
    load_s: round(load),
    mb_per_s: round(info.bytes / 1e6 / Math.max(total, 0.001)),
  };
}

const round = (x: number) => Math.round(x * 100) / 100;

/**
 * A replica whose folder holds no database yet (its first start) takes its first snapshot
 * as its data file: downloaded, checked (SHA-256, then the position the copy holds against
 * the announced one) and renamed into place before the store opens (the store drops the
 * writer's log rows it carries), so it costs the transfer and a checksum, not a copy key by
 * key. Later snapshots (a gap, a mismatch) are loaded into the open store in one
 * transaction instead, so readers go on reading the old copy meanwhile. Returns null when the folder already
 * holds a database.
 */
export async function seedReplica(
  dataDir: string,
  writerUrl: string,
  log: (message: string, fields?: Record<string, unknown>) => void,
): Promise<SeededSnapshot | null> {
  const target = join(dataDir, 'data.mdb');
  if (existsSync(target)) return null;
  const folder = snapshotFolder(dataDir);
  mkdirSync(folder, { recursive: true });
  const downloaded = await downloadSnapshot(writerUrl, folder);
  const { info, file } = downloaded;
  const started = performance.now();
  try {
    await checkSnapshot(file, { lsn: info.lsn, hash: info.hash });
    renameSync(file, target);
  } finally {
    rmSync(file, { force: true });
    rmSync(`${file}-lock`, { force: true });
  }
  log(
    `replication: a first snapshot of ${info.bytes} bytes at LSN ${info.lsn} is this replica's data file`,
    snapshotFields(downloaded, started),
  );
  return { bytes: info.bytes, lsn: info.lsn };
}

/** What a replica's metrics report (read at scrape time). */
export interface FollowerCounters {
  readonly appliedLsn: number;
  readonly lagSeconds: number;
  readonly appliedEntries: number;
  readonly snapshots: number;
  readonly snapshotBytes: number;
  readonly resnapshots: number;
  /** Vector segment files fetched from the writer, and their bytes (replication/segments.ts). */
  readonly segments: number;
  readonly segmentBytes: number;
}

/** How often the stream's end is compared with what was applied (ms). */
const CHECK_MS = 250;
/** Messages applied and not yet answered at most (the committer groups them into commits). */
const MAX_IN_FLIGHT = 512;

export class Follower {
  private stream: LogStream | null = null;
  private following: { stop(): void; done: Promise<unknown> } | null = null;
  private applied: LogPosition;
  /** The stream sequence of the last message applied (or skipped as already held). */
  private appliedSeq = 0;
  /** The last moment the replica was known to hold everything the stream had. */
  private caughtUpAt = Date.now();
  private readonly assembler = new EntryAssembler();
  private chain: Promise<unknown> = Promise.resolve();
  private inFlight = 0;
  private submitted = 0;
  private waiters: { lsn: number; resolve: (ok: boolean) => void }[] = [];
  private timer: NodeJS.Timeout | null = null;
  private closed = false;
  private restarting = false;
  private readonly counts = { appliedEntries: 0, snapshots: 0, snapshotBytes: 0, resnapshots: 0 };
  private readonly segments: SegmentFetcher;

  private constructor(private readonly options: FollowerOptions) {
    this.applied = options.store.logPosition();
    this.submitted = this.applied.lsn;
    if (options.seeded) {
      this.counts.snapshots = 1;
      this.counts.snapshotBytes = options.seeded.bytes;
    }
    const { store, dataDir, writerUrl, log } = options;
    this.segments = new SegmentFetcher({ store, dataDir, writerUrl, log: (message) => log(message) });
  }

  /** Takes a first snapshot if the copy holds nothing, then follows. Rejects when the writer or NATS cannot be reached. */
  static async start(options: FollowerOptions): Promise<Follower> {
    const follower = new Follower(options);
    follower.stream = await LogStream.connect(options.url, options.stream, 5000);
    await follower.stream.ensure();
    if (follower.applied.lsn === 0 && !options.seeded) await follower.snapshot();
    follower.segments.poke();
    await follower.follow();
    follower.timer = setInterval(() => void follower.check(), CHECK_MS);
    follower.timer.unref();
    return follower;
  }

  get position(): LogPosition {
    return this.applied;
  }

  /** 0 while the replica holds what the stream has; else ms since it last did. */
  lagMs(): number {
    return this.caughtUp ? 0 : Date.now() - this.caughtUpAt;
  }

  private caughtUp = true;

  counters(): FollowerCounters {
    const { segments, bytes } = this.segments.counts;
    return { appliedLsn: this.applied.lsn, lagSeconds: this.lagMs() / 1000, ...this.counts, segments, segmentBytes: bytes };
  }

  /** Resolves true once `lsn` is applied (visible to readers), false after `ms`. */
  waitFor(lsn: number, ms: number): Promise<boolean> {
    if (lsn <= this.applied.lsn) return Promise.resolve(true);
    if (ms <= 0) return Promise.resolve(false);
    return new Promise((resolve) => {
      const waiter = { lsn, resolve };
      this.waiters.push(waiter);
      setTimeout(() => {
        const i = this.waiters.indexOf(waiter);
        if (i >= 0) this.waiters.splice(i, 1);
        resolve(lsn <= this.applied.lsn);
      }, ms).unref();
    });
  }

  private wake(): void {
    if (this.waiters.length === 0) return;
    const keep = [];
    for (const w of this.waiters) {
      if (w.lsn <= this.applied.lsn) w.resolve(true);
      else keep.push(w);
    }
    this.waiters = keep;
  }

  private async follow(): Promise<void> {
    const stream = this.stream!;
    let start = await stream.seqAfter(this.applied.lsn);
    if (start === 'gap') {
      this.options.log(`the stream no longer holds entry ${this.applied.lsn + 1}, the next this replica needs: taking a new snapshot`);
      this.counts.resnapshots++;
      await this.snapshot();
      start = await stream.seqAfter(this.applied.lsn);
      if (start === 'gap') throw new Error(`the stream does not hold the entries after the writer's snapshot (LSN ${this.applied.lsn})`);
    }
    this.assembler.reset();
    this.appliedSeq = start - 1;
    this.following = stream.follow(start, (m) => this.receive(m));
    void this.following.done.then((err) => {
      if (err !== undefined && !this.closed && !this.restarting) void this.restart(`following the stream stopped: ${messageOf(err)}`);
    });
  }

  private async receive(m: LogMessage): Promise<void> {
    if (this.restarting || this.closed) return;
    if (m.lsn <= this.submitted) {
      this.appliedSeq = m.seq;
      return; // already in the snapshot, or applied
    }
    if (firstLsn(m) > this.submitted + 1) {
      return void this.restart(`the stream skipped from LSN ${this.submitted} to ${firstLsn(m)}`);
    }
    let entries;
    try {
      entries = this.assembler.push(m);
    } catch (err) {
      return void this.restart(messageOf(err));
    }
    if (entries.length === 0) return;
    const fresh = entries.filter((e) => e.lsn > this.submitted); // a group may start with applied entries
    this.submitted = m.lsn;
    const seq = m.seq;
    const pending = m.pending;
    this.inFlight++;
    const applying = this.options.store.applyEntries(fresh).then(
      (position) => {
        this.inFlight--;
        this.applied = position;
        this.appliedSeq = seq;
        this.counts.appliedEntries += fresh.length;
        if (pending === 0) this.markCaughtUp();
        this.wake();
        this.segments.poke();
      },
      (err: unknown) => {
        this.inFlight--;
        const why = err instanceof LogMismatch ? err.message : `applying entry ${m.lsn} failed: ${messageOf(err)}`;
        void this.restart(why);
      },
    );
    this.chain = applying;
    if (this.inFlight >= MAX_IN_FLIGHT) await applying;
  }

  private markCaughtUp(): void {
    this.caughtUp = true;
    this.caughtUpAt = Date.now();
  }

  /** Compares the stream's end with what was applied: the lag's measure while no entry arrives. */
  private async check(): Promise<void> {
    if (this.stream === null || this.restarting || this.closed) return;
    try {
      const state = await this.stream.state();
      if (state.lastSeq <= this.appliedSeq && this.inFlight === 0) this.markCaughtUp();
      else if (this.caughtUp) {
        this.caughtUp = false;
      }
    } catch {
      this.caughtUp = false; // NATS unreachable: how far behind is unknown, so it grows
    }
  }

  /** A gap or mismatch: logs why, takes a new snapshot, follows again. */
  private async restart(why: string): Promise<void> {
    if (this.restarting || this.closed) return;
    this.restarting = true;
    this.caughtUp = false;
    this.options.log(`replication: ${why}; taking a new snapshot from ${this.options.writerUrl}`);
    this.following?.stop();
    await this.chain.catch(() => undefined);
    this.counts.resnapshots++;
    for (;;) {
      try {
        await this.snapshot();
        this.submitted = this.applied.lsn;
        this.restarting = false;
        await this.follow();
        return;
      } catch (err) {
        if (this.closed) return;
        this.options.log(`replication: a new snapshot failed (${messageOf(err)}); trying again in 1 s`);
        await new Promise((resolve) => setTimeout(resolve, 1000));
      }
    }
  }

  /** Downloads a snapshot from the writer (resuming a partial download), checks it, loads it. */
  private async snapshot(): Promise<void> {
    const folder = snapshotFolder(this.options.dataDir);
    mkdirSync(folder, { recursive: true });
    const downloaded = await downloadSnapshot(this.options.writerUrl, folder);
    const { info, file } = downloaded;
    const started = performance.now();
    let position: LogPosition;
    try {
      position = await this.options.store.loadSnapshot(file, { lsn: info.lsn, hash: info.hash });
    } finally {
      rmSync(file, { force: true });
      rmSync(`${file}-lock`, { force: true });
    }
    this.applied = position;
    this.submitted = position.lsn;
    this.counts.snapshots++;
    this.counts.snapshotBytes += info.bytes;
    this.options.log(`replication: loaded a snapshot of ${info.bytes} bytes at LSN ${info.lsn}`, snapshotFields(downloaded, started));
    this.wake();
    this.segments.poke();
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== null) clearInterval(this.timer);
    this.following?.stop();
    await this.chain.catch(() => undefined);
    await this.segments.close();
    await this.stream?.close();
    for (const w of this.waiters) w.resolve(false);
    this.waiters = [];
  }
}
