/**
 * The writable store's side of the vector builder (vector-builder.ts): it starts the
 * builder's thread when there is native vector work, wakes it after commits that queued
 * some, commits the segments it publishes (through the store's committer, like any
 * batch), and deletes the segment files no pointer names any more.
 *
 * A file is deleted only once the commit that replaced it is flushed to disk (a crash
 * then finds the new pointer, whose file was flushed before it was committed) and
 * `graceMs` later: a read that started before that commit may still view the old file,
 * and no read outlives the query timeout. A writer no replica follows deletes it sooner,
 * as soon as no open read (of any thread or process: LMDB's reader table) holds a
 * snapshot older than that commit: under constant writes a segment is replaced every
 * second or two, and a minute of replaced files took a hundred times the index's own size
 * on disk (docs/benchmarks.md, "A vector index under churn"). A viewed file stays mapped
 * after its deletion. Replicas fetch files by name from the writer, so a writer that keeps
 * its log for a publisher (`--nats`) keeps the whole grace. Temporary files of a builder that died are deleted
 * when the store opens; files no pointer names are retired after the grace.
 */
import { readdirSync, rmSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { messageOf } from '../core/errors.js';
import type { BuilderSettings, FromBuilder, ToBuilder } from './vector-builder.js';
import type { SegmentCommit } from './vector-index.js';
import { isSegmentName, segmentDir, segmentFiles, type GraphPointer } from './vector-segments.js';

/** What the builder needs of its store. */
export interface BuilderHost {
  readonly path: string;
  /**
   * Commits a segment's pointer: the pointer it replaced (null: none) and the transaction
   * that replaced it (a snapshot of that id or later names the new file), or false when refused.
   */
  commit(c: SegmentCommit): Promise<{ readonly replaced: GraphPointer | null; readonly txn: number } | false>;
  /** The segment file names the current pointers name, in a fresh snapshot. */
  referenced(): Set<string>;
  /** Resolves once every commit so far is flushed to disk. */
  flushed(): Promise<void>;
  readonly log: (message: string) => void;
  /** How long a replaced file stays after its replacement is on disk (longer than any read). */
  readonly graceMs: number;
  /**
   * The oldest snapshot (transaction id) an open read holds, null when no read is open;
   * undefined where replaced files keep the whole grace (replicas may still fetch them).
   */
  oldestRead(): number | null | undefined;
}

/** Pause before a builder thread that died is started again. */
const RESTART_MS = 1000;
/** How often unnamed files are looked for while the builder runs. */
const SWEEP_MS = 10_000;
/** How often a replaced file's reads are looked at until it can go. */
const UNREAD_POLL_MS = 250;
/** How long close waits for the builder to finish its chunk before terminating it. */
const CLOSE_WAIT_MS = 10_000;

export class VectorBuilderClient {
  private worker: Worker | null = null;
  private closed = false;
  private readonly timers = new Set<NodeJS.Timeout>();
  private readonly retiring = new Set<string>();
  /** Retired files whose replacement is on disk: the commit that replaced them (null: none known) and when the grace ends. */
  private readonly waiting = new Map<string, { readonly replacedAt: number | null; readonly deadline: number }>();
  private reaper: NodeJS.Timeout | null = null;
  private sweeper: NodeJS.Timeout | null = null;
  private readonly dir: string;

  constructor(private readonly host: BuilderHost) {
    this.dir = segmentDir(host.path);
  }

  /** Retires every segment file no pointer names; at open, deletes temporary files too. */
  sweep(atOpen: boolean): void {
    let names: string[];
    try {
      names = readdirSync(this.dir);
    } catch {
      return;
    }
    const referenced = this.host.referenced();
    for (const name of names) {
      if (name.endsWith('.tmp')) {
        if (atOpen) rmSync(join(this.dir, name), { force: true });
      } else if (isSegmentName(name) && !referenced.has(name)) {
        this.retire(name);
      }
    }
  }

  /** There may be work: starts the builder if needed and tells it. */
  wake(): void {
    if (this.closed) return;
    this.start().postMessage({ type: 'wake' } satisfies ToBuilder);
  }

  private start(): Worker {
    if (this.worker !== null) return this.worker;
    const settings: BuilderSettings = { path: this.host.path, threads: Math.max(1, availableParallelism()) };
    const worker = new Worker(new URL('./vector-builder-thread.js', import.meta.url), { workerData: settings });
    worker.on('message', (message: FromBuilder) => this.receive(message));
    worker.on('error', (err) => this.host.log(`the vector builder thread failed: ${messageOf(err)}`));
    worker.on('exit', () => {
      if (this.worker === worker) this.worker = null;
      if (this.closed) return;
      this.host.log(`the vector builder thread exited; starting it again in ${RESTART_MS} ms`);
      this.later(RESTART_MS, () => this.wake());
    });
    // An embedded process is not kept alive by its builder (the store's close ends it).
    worker.unref();
    this.worker = worker;
    if (this.sweeper === null) {
      this.sweeper = setInterval(() => this.sweep(false), SWEEP_MS);
      this.sweeper.unref();
    }
    return worker;
  }

  private receive(message: FromBuilder): void {
    switch (message.type) {
      case 'log':
        this.host.log(message.message);
        return;
      case 'publish':
        this.publish(message.commit);
        return;
    }
  }

  private publish(c: SegmentCommit): void {
    const answer = (type: 'committed' | 'refused') =>
      this.worker?.postMessage({ type, graph: c.graph, generation: c.pointer.generation } satisfies ToBuilder);
    this.host.commit(c).then(
      (done) => {
        if (done === false) {
          answer('refused');
          return;
        }
        answer('committed');
        const { replaced, txn } = done;
        if (replaced !== null && replaced.state === 'segment') for (const name of segmentFiles(c.graph, replaced)) this.retire(name, txn);
      },
      (err: unknown) => {
        if (!this.closed) this.host.log(`a vector segment could not be committed: ${messageOf(err)}`);
        answer('refused');
      },
    );
  }

  /**
   * Deletes a file no pointer names, once the commits so far are on disk and the grace has
   * passed, or, for a file the commit of transaction `replacedAt` replaced, once no open
   * read is older than that commit (where the host allows it).
   */
  private retire(name: string, replacedAt: number | null = null): void {
    if (this.retiring.has(name) || this.closed) return;
    this.retiring.add(name);
    this.host.flushed().then(
      () => {
        this.waiting.set(name, { replacedAt, deadline: performance.now() + this.host.graceMs });
        this.reap();
      },
      () => this.retiring.delete(name),
    );
  }

  /**
   * Deletes the waiting files no open read can name any more (one look at the reads for
   * all of them) or whose grace has passed, and looks again when the next one could go:
   * every UNREAD_POLL_MS while one may go early, else at the nearest end of a grace.
   */
  private reap(): void {
    if (this.reaper !== null) clearTimeout(this.reaper);
    this.reaper = null;
    if (this.closed || this.waiting.size === 0) return;
    const now = performance.now();
    const early = [...this.waiting.values()].some((w) => w.replacedAt !== null);
    const oldest = early ? this.host.oldestRead() : undefined;
    let next = Infinity;
    let named: Set<string> | null = null;
    for (const [name, w] of this.waiting) {
      const unread = w.replacedAt !== null && oldest !== undefined && (oldest === null || oldest >= w.replacedAt);
      if (unread || now >= w.deadline) {
        this.waiting.delete(name);
        this.retiring.delete(name);
        named ??= this.host.referenced();
        if (!named.has(name)) rmSync(join(this.dir, name), { force: true });
      } else {
        next = Math.min(next, w.deadline - now, w.replacedAt !== null && oldest !== undefined ? UNREAD_POLL_MS : Infinity);
      }
    }
    if (next === Infinity) return;
    this.reaper = setTimeout(() => this.reap(), next);
    this.reaper.unref();
  }

  private later(ms: number, fn: () => void): void {
    if (this.closed) return;
    const timer = setTimeout(() => {
      this.timers.delete(timer);
      if (!this.closed) fn();
    }, ms);
    timer.unref();
    this.timers.add(timer);
  }

  /** Stops the builder (it finishes its chunk); files still to delete are swept at the next open. */
  async close(): Promise<void> {
    this.closed = true;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers.clear();
    if (this.reaper !== null) clearTimeout(this.reaper);
    if (this.sweeper !== null) clearInterval(this.sweeper);
    const worker = this.worker;
    if (worker === null) return;
    const exited = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage({ type: 'close' } satisfies ToBuilder);
    const timer = setTimeout(() => void worker.terminate(), CLOSE_WAIT_MS);
    await exited;
    clearTimeout(timer);
  }
}
