/**
 * Small requests answered on the main thread while the read workers are idle. Handing a
 * request to a worker and its answer back costs two thread wake-ups, about 30–60 µs here:
 * more than a point read itself, and most of the latency of one client's point reads.
 * So when the short lane of the read pool has nothing queued or running, a small body is
 * answered in place, within a short time slice: a read that outruns it stops and moves to
 * the long lane (reads change nothing, so starting over is safe), and the main thread is
 * never held for longer than the slice. A write is parsed here and goes to the writer
 * directly. Under load the lane is busy and every request goes to the workers as before,
 * which keeps the main thread for HTTP.
 */
import { answerRequest, type Answerer } from '../database.js';
import type { AnswerToEncode } from '../protocol/frames.js';
import type { RequestRoute } from '../protocol/messages.js';
import { openStore, type IndexBacklog } from '../store/index.js';
import type { CompiledQuery } from '../hql/compile.js';

/** Bodies up to this size are small enough to parse on the main thread (a few µs). */
export const INLINE_BODY_BYTES = 8 * 1024;
/** The main thread's time slice for one request (ms). */
export const INLINE_SLICE_MS = 1;

export interface InlineSettings {
  readonly dataDir: string;
  readonly readerMode: boolean;
  readonly queryTimeoutMs: number;
  /** The project's named queries (as the read workers have them). */
  readonly named: readonly CompiledQuery[];
  /** Answers carry the LSN of the snapshot they read (a replica). */
  readonly snapshotLsn: boolean;
}

export class InlineQueries {
  /** At most one request per event-loop turn: a burst goes to the workers. */
  private usedThisTurn = false;

  private constructor(private readonly answerer: Answerer) {}

  static async open(settings: InlineSettings): Promise<InlineQueries> {
    const store = await openStore({ path: settings.dataDir, readOnly: true });
    return new InlineQueries({
      store,
      readerMode: settings.readerMode,
      timeoutMs: settings.queryTimeoutMs,
      named: settings.named,
      snapshotLsn: settings.snapshotLsn,
    });
  }

  /** Whether a body of this size may be answered here now (the caller knows the pool is idle). */
  accepts(body: Uint8Array): boolean {
    if (this.usedThisTurn || body.byteLength > INLINE_BODY_BYTES) return false;
    this.usedThisTurn = true;
    setImmediate(() => (this.usedThisTurn = false));
    return true;
  }

  /** Answers a request as a read worker would (database.ts answerRequest), within the main thread's slice. */
  answer(body: Uint8Array, flags: number, queryId: number, route: RequestRoute): AnswerToEncode {
    return answerRequest(this.answerer, { flags, spentMs: 0, queryId, route, body }, INLINE_SLICE_MS);
  }

  /** Every vector index's backlog, read in a fresh snapshot (for /metrics). */
  vectorBacklogs(): readonly IndexBacklog[] {
    return this.answerer.store.read((r) => r.vectorBacklogs());
  }

  close(): Promise<void> {
    return this.answerer.store.close();
  }
}
