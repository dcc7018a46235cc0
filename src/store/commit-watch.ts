/**
 * When a write counts as committed. lmdb-js commits on a write thread of its own and, with
 * its overlapping sync (on by default, and what keeps the file intact after a power loss:
 * after a reboot LMDB opens the last commit that was flushed), flushes each commit to disk
 * right after making it visible to readers. Its transaction promises resolve only after
 * that flush, so a write that waited for them paid an fdatasync and a synchronous meta-page
 * write every time. A commit that is visible has its pages in the OS page cache: a crash of
 * the process cannot lose it, only a crash of the machine before the flush can. So plain
 * writes are acknowledged when visible, and await-durable ones after the flush.
 *
 * lmdb-js hears "visible" from its native write thread (status 1 of the callback it passes
 * to the native `startWriting`) but tells its callers nothing. This module wraps that
 * native method of the one environment to hear it, and on each notice reads the sequence
 * number of the last committed batch (META.commitSeq, written by every batch) from a fresh
 * snapshot: whatever the notice meant, the snapshot is the truth. The native method is an
 * internal of lmdb 3.5.6 (pinned); if it is missing or never calls back, every batch is
 * still acknowledged by its transaction promise, only later. test/store/commit-watch.test.ts
 * checks that writes are acknowledged before their flush.
 */
import type { RootDatabase } from 'lmdb';
import { META, type MetaDb } from './layout.js';

interface Waiter {
  readonly seq: number;
  readonly resolve: () => void;
}

/** The status lmdb-js's native write thread reports when a commit became visible. */
const VISIBLE = 1;

export class CommitWatch {
  /** Batches written and not yet known visible, in ascending sequence order. */
  private waiters: Waiter[] = [];
  /** The last sequence number known visible. */
  private visible: number;
  /** Whether the native notice is hooked (false: acknowledgements wait for the flush). */
  readonly hooked: boolean;

  constructor(
    private readonly env: RootDatabase,
    private readonly meta: MetaDb,
    /** The stored sequence number when the store opened. */
    start: number,
  ) {
    this.visible = start;
    this.hooked = hookVisibleNotice(env, () => this.scheduleCheck());
  }

  private checkScheduled = false;
  private closed = false;

  /** Stops reading: the environment is closing (pending batches settle by their promises). */
  close(): void {
    this.closed = true;
  }

  /**
   * The check waits for the end of the event turn: a commit that failed before this one
   * became visible is rejected in the same notice, and its batch must learn that (and
   * leave the waiters) before the sequence number of this commit answers anyone.
   */
  private scheduleCheck(): void {
    if (this.checkScheduled || this.waiters.length === 0) return;
    this.checkScheduled = true;
    setImmediate(() => {
      this.checkScheduled = false;
      if (!this.closed) this.check();
    });
  }

  /** Resolves once batch `seq` is visible (its transaction promise also calls `reached`). */
  visibleAt(seq: number): Promise<void> {
    if (seq <= this.visible) return Promise.resolve();
    return new Promise((resolve) => {
      const at = this.waiters.length;
      // Sequence numbers are handed out in order, so this is nearly always an append.
      if (at === 0 || this.waiters[at - 1]!.seq < seq) this.waiters.push({ seq, resolve });
      else {
        const i = this.waiters.findIndex((w) => w.seq > seq);
        this.waiters.splice(i, 0, { seq, resolve });
      }
    });
  }

  /** Batch `seq` is known committed (its transaction promise resolved). */
  reached(seq: number): void {
    if (seq <= this.visible) return;
    this.visible = seq;
    this.release();
  }

  /** Batch `seq` will never commit (rolled back, or its commit failed): drops its waiter. */
  forget(seq: number): void {
    this.waiters = this.waiters.filter((w) => w.seq !== seq);
  }

  private check(): void {
    if (this.waiters.length === 0) return;
    // Inside a write transaction a read would see that transaction, not the commit.
    if ((this.env as unknown as { env?: { writeTxn?: unknown } }).env?.writeTxn) return;
    this.env.resetReadTxn();
    let seen: number | undefined;
    try {
      seen = this.meta.get(META.commitSeq) as number | undefined;
    } finally {
      this.env.resetReadTxn();
    }
    if (seen !== undefined && seen > this.visible) this.reached(seen);
  }

  private release(): void {
    let n = 0;
    while (n < this.waiters.length && this.waiters[n]!.seq <= this.visible) this.waiters[n++]!.resolve();
    if (n > 0) this.waiters = this.waiters.slice(n);
  }
}

type StartWriting = (address: number, callback: (status: number) => unknown) => unknown;

function hookVisibleNotice(env: RootDatabase, onVisible: () => void): boolean {
  const native = (env as unknown as { env?: { startWriting?: StartWriting } }).env;
  const original = native?.startWriting;
  if (native === undefined || typeof original !== 'function') return false;
  const wrapped: StartWriting = function (this: unknown, address, callback) {
    return original.call(this, address, (status) => {
      const result = callback(status);
      if (status === VISIBLE) onVisible();
      return result;
    });
  };
  // The native method is a read-only prototype property; an own property shadows it.
  Object.defineProperty(native, 'startWriting', { value: wrapped, configurable: true, writable: true });
  return true;
}
