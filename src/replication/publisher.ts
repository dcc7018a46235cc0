/**
 * The writer's publisher (docs/replication.md): ships change-log entries to the JetStream
 * stream in LSN order, only once the commit holding them is flushed to disk (an entry the
 * writer could lose in a power cut never reaches a replica), and trims the published ones
 * from LMDB. It runs in the writer thread, beside the store.
 *
 * - Each message carries its message id (the LSN, `N.i` for the first parts of a split
 *   entry) and the id the stream must end with: a second writer on the same stream (a
 *   zombie after a failover) is refused (WrongLastMessage), and so is one whose entry at an
 *   LSN the stream already holds has another hash. Either fences this writer: `onFenced`.
 * - NATS down: the writer keeps serving; rounds retry until the stream takes the backlog.
 * - On (re)connection the stream's last entry is compared with this writer's history
 *   (`reconcile`): a stream ahead of the writer, or another hash at the same LSN, is refused
 *   naming both; entries the stream lacks are published again.
 */
import { messageOf } from '../core/errors.js';
import type { LoggedEntry, Store } from '../store/index.js';
import { encodeGroup, groupForMessages } from './entry-groups.js';
import { LogStream, WrongLastMessage, type LogMessage } from './nats.js';

export interface PublisherOptions {
  readonly url: string;
  readonly stream: string;
  readonly store: Store;
  readonly log: (message: string) => void;
  /** This writer's history and the stream's disagree, or another writer publishes: take no more writes. */
  readonly onFenced: (reason: string) => void;
}

/** Entries read from the log per round (then published as few messages as they fit in). */
const ROUND_ENTRIES = 1024;
/** Pause before a round is tried again after NATS failed it. */
const RETRY_MS = 250;
/**
 * Rounds start at most this often: under a stream of small batches each round then
 * publishes what several flushes made durable as one message, not one message per flush
 * (a message costs the writer thread a JetStream request, its acknowledgement and a socket
 * write). It bounds what it adds to a replica's lag.
 */
const ROUND_EVERY_MS = 20;
/** Published rows are trimmed from LMDB at most this often (each trim is a commit). */
const TRIM_EVERY_MS = 1000;

export class HistoryMismatch extends Error {}

export class Publisher {
  private stream: LogStream | null = null;
  /** The last LSN the stream is known to hold whole (after `reconcile`). */
  private published = -1;
  private running = false;
  private again = false;
  private closed = false;
  private fenced: string | null = null;
  private lastTrim = 0;
  /** What the next trim may remove: what was published at the last one. */
  private trimNext = 0;
  private retry: NodeJS.Timeout | null = null;
  private reported = false;

  private constructor(private readonly options: PublisherOptions) {}

  /**
   * Starts publishing. When NATS answers now, the stream is checked against this writer's
   * history first and a mismatch rejects (the server must not start); otherwise the check
   * runs when it first answers, and a mismatch then fences the writer.
   */
  static async start(options: PublisherOptions): Promise<Publisher> {
    const publisher = new Publisher(options);
    try {
      await publisher.connect();
    } catch (err) {
      if (err instanceof HistoryMismatch) throw err;
      publisher.report(`NATS at ${options.url} is not reachable (${messageOf(err)}); writes go on and are published when it is`);
      publisher.schedule(RETRY_MS);
    }
    return publisher;
  }

  /** Where the stream stands for this writer (for metrics): the last LSN it holds, -1 before it was reached. */
  get publishedLsn(): number {
    return this.published;
  }

  get fencedBecause(): string | null {
    return this.fenced;
  }

  private report(message: string): void {
    if (this.reported) return;
    this.reported = true;
    this.options.log(message);
  }

  private async connect(): Promise<void> {
    const stream = await LogStream.connect(this.options.url, this.options.stream);
    try {
      await stream.ensure();
      this.published = (await this.reconcile(stream)).whole;
    } catch (err) {
      await stream.close();
      throw err;
    }
    this.stream = stream;
    this.reported = false;
    this.notify();
  }

  /**
   * Compares the stream's last entry with this writer's history and returns the last LSN
   * the stream holds whole (0: none), and whether its hash was found equal to this writer's
   * (false when there was nothing to compare). Throws HistoryMismatch naming both sides.
   */
  private async reconcile(stream: LogStream): Promise<{ whole: number; matched: boolean }> {
    const { store } = this.options;
    const state = await stream.state();
    if (state.lastSeq === 0) return { whole: 0, matched: false };
    const last = await stream.at(state.lastSeq);
    if (last === null) return { whole: 0, matched: false };
    const whole = last.part === last.parts - 1 ? last.lsn : last.lsn - 1;
    const here = store.logPosition();
    const where = `stream "${stream.stream}" at ${this.options.url}`;
    if (whole > here.lsn) {
      throw new HistoryMismatch(
        `the ${where} holds entries up to LSN ${whole} but this writer's history ends at LSN ${here.lsn} (hash ${here.hash.toString('hex')}): another writer published them, or this folder is an older copy; start this server as a replica, or give it a stream of its own`,
      );
    }
    if (whole === 0) return { whole: 0, matched: false };
    const mine = whole === here.lsn ? here.hash.toString('hex') : this.hashAt(whole);
    const theirs = whole === last.lsn ? last.hash : await this.hashInStream(stream, state.lastSeq, whole);
    if (mine !== null && theirs !== null && mine !== theirs) {
      throw new HistoryMismatch(
        `the ${where} and this writer disagree at LSN ${whole}: the stream's entry has hash ${theirs}, this writer's ${mine}; refusing to publish (promote one history: docs/replication.md, "Failover")`,
      );
    }
    if (mine === null) {
      this.options.log(
        `this writer no longer keeps entry ${whole} to compare with the ${where}; publishing from the first entry it keeps (replicas behind it take a new snapshot)`,
      );
    }
    return { whole, matched: mine !== null && theirs !== null };
  }

  private hashAt(lsn: number): string | null {
    const [entry] = this.options.store.logEntries(lsn, 1);
    return entry?.lsn === lsn ? entry.hash.toString('hex') : null;
  }

  /** The hash of entry `lsn`, looking back from the stream's message `fromSeq`. */
  private async hashInStream(stream: LogStream, fromSeq: number, lsn: number): Promise<string | null> {
    for (let seq = fromSeq; seq > 0 && seq > fromSeq - 4096; seq--) {
      const m: LogMessage | null = await stream.at(seq);
      if (m === null) return null;
      if (m.lsn === lsn) return m.hash;
      if (m.lsn < lsn) return null;
    }
    return null;
  }

  /** A batch was logged: publish it once it is flushed. */
  notify(): void {
    if (this.closed || this.fenced !== null) return;
    if (this.running || this.paced !== null) {
      this.again = true;
      return;
    }
    const wait = this.lastRound + ROUND_EVERY_MS - performance.now();
    if (wait > 0) {
      this.paced = setTimeout(() => {
        this.paced = null;
        this.again = false;
        this.notify();
      }, wait);
      return;
    }
    this.running = true;
    this.lastRound = performance.now();
    void this.round().finally(() => {
      this.running = false;
      if (this.again) {
        this.again = false;
        this.notify();
      }
    });
  }

  /** When the last round started (performance.now()), and the timer of a round held back until ROUND_EVERY_MS after it. */
  private lastRound = -Infinity;
  private paced: NodeJS.Timeout | null = null;

  private schedule(ms: number): void {
    if (this.retry !== null || this.closed) return;
    this.retry = setTimeout(() => {
      this.retry = null;
      if (this.stream === null) {
        this.connect().catch((err: unknown) => {
          if (err instanceof HistoryMismatch) return this.fence(err.message);
          this.schedule(RETRY_MS);
        });
      } else this.notify();
    }, ms);
    this.retry.unref();
  }

  private fence(reason: string): void {
    if (this.fenced !== null) return;
    this.fenced = reason;
    this.options.log(`this writer is fenced and takes no more writes: ${reason}`);
    this.options.onFenced(reason);
  }

  private async round(): Promise<void> {
    const stream = this.stream;
    if (stream === null) return;
    const { store } = this.options;
    try {
      // One pass over what is committed now (a longer backlog: passes of ROUND_ENTRIES);
      // what commits meanwhile notifies, and goes in the next round, ROUND_EVERY_MS on.
      for (let full = true; full;) {
        const target = store.logPosition().lsn;
        if (target <= this.published) break;
        // Everything visible when `target` was read is on disk once this resolves.
        await store.flushed();
        const entries = store.committedEntries(this.published + 1, target, ROUND_ENTRIES);
        if (entries.length === 0) break;
        full = entries.length === ROUND_ENTRIES;
        // An entry published without the expected-last check (the stream's first, or after
        // entries the stream lacks for good) goes alone, under its own LSN as message id:
        // a retry of it is then a duplicate the stream drops, whatever came after it.
        const alone = this.expectBefore(entries[0]!.lsn) === null ? 1 : 0;
        const groups = groupForMessages(entries.slice(alone), stream.partBytes);
        if (alone === 1) groups.unshift([entries[0]!]);
        for (const group of groups) {
          if (this.closed || this.fenced !== null) return;
          if (group.length === 1) await this.publishEntry(stream, group[0]!);
          else await this.publishGroup(stream, group);
          this.published = group[group.length - 1]!.lsn;
        }
      }
      if (Date.now() - this.lastTrim >= TRIM_EVERY_MS && this.published > 0) {
        // Rows stay a trim period after they were published: a NATS server killed right
        // after acknowledging may come back without its last messages (recheck).
        this.lastTrim = Date.now();
        const upTo = Math.min(this.trimNext, this.published);
        this.trimNext = this.published;
        if (upTo > 0) await store.trimLog(upTo);
      }
      this.reported = false;
    } catch (err) {
      if (err instanceof WrongLastMessage) return this.recheck(stream, messageOf(err));
      if (err instanceof HistoryMismatch) return this.fence(messageOf(err));
      if (this.closed) return;
      this.report(`publishing to NATS failed (${messageOf(err)}); writes go on and are published when it answers`);
      this.schedule(RETRY_MS);
    }
  }

  /**
   * The stream does not end where this writer left it. Either it lost its last messages (a
   * NATS server killed before it wrote them: the stream is a prefix of this history), and
   * the missing entries are published again; or it holds more of this very history than
   * this writer knew (a publish whose acknowledgement was lost, retried as another group:
   * `reconcile` found the same hash at its end), and publishing goes on after it; or another
   * writer moved it on (another hash, or its end where this writer's is), and this writer
   * is fenced.
   */
  private async recheck(stream: LogStream, why: string): Promise<void> {
    try {
      const { whole, matched } = await this.reconcile(stream);
      if (whole > this.published && matched) {
        this.published = whole;
        this.schedule(0);
        return;
      }
      if (whole >= this.published) return this.fence(why);
      this.options.log(
        `the stream holds entries up to LSN ${whole} only, this writer had published up to ${this.published}; publishing them again`,
      );
      this.published = whole;
      this.schedule(0);
    } catch (err) {
      if (err instanceof HistoryMismatch) return this.fence(err.message);
      this.schedule(RETRY_MS);
    }
  }

  /** The message id the stream must end with before entry `firstLsn`, null when it need not be checked. */
  private expectBefore(firstLsn: number): string | null {
    if (firstLsn === 1) return null;
    if (this.published !== firstLsn - 1) return null; // entries the stream lacks for good (see reconcile)
    return String(firstLsn - 1);
  }

  /** One entry, split into parts of the server's message size; the last part's id is the LSN. */
  private async publishEntry(stream: LogStream, { lsn, hash, entry }: LoggedEntry): Promise<void> {
    const size = stream.partBytes;
    const parts = Math.max(1, Math.ceil(entry.length / size));
    const hex = hash.toString('hex');
    let expect = this.expectBefore(lsn);
    for (let part = 0; part < parts; part++) {
      const id = part === parts - 1 ? String(lsn) : `${lsn}.${part}`;
      const data = entry.subarray(part * size, Math.min(entry.length, (part + 1) * size));
      await this.send(stream, data, { lsn, count: 1, part, parts, hash: hex }, id, expect);
      expect = id;
    }
  }

  /** Consecutive whole entries as one message (entry-groups.ts); its id is the last LSN. */
  private async publishGroup(stream: LogStream, group: readonly LoggedEntry[]): Promise<void> {
    const last = group[group.length - 1]!;
    const meta = { lsn: last.lsn, count: group.length, part: 0, parts: 1, hash: last.hash.toString('hex') };
    await this.send(stream, encodeGroup(group), meta, String(last.lsn), this.expectBefore(group[0]!.lsn));
  }

  private async send(
    stream: LogStream,
    data: Uint8Array,
    meta: { lsn: number; count: number; part: number; parts: number; hash: string },
    id: string,
    expect: string | null,
  ): Promise<void> {
    const ack = await stream.publish(data, meta, id, expect);
    if (!ack.duplicate) return;
    // Already in the stream's window: the same message from this writer (a retry), or a
    // second writer's entry at the same LSN, which must not count as ours.
    const there = await stream.at(ack.seq);
    if (there !== null && there.hash !== meta.hash) {
      throw new HistoryMismatch(
        `the stream already holds another entry ${meta.lsn} (hash ${there.hash}; this writer's is ${meta.hash}): another writer publishes to it`,
      );
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.retry !== null) clearTimeout(this.retry);
    if (this.paced !== null) clearTimeout(this.paced);
    await this.stream?.close();
  }
}
