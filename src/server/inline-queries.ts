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
import { answerRoute, runRead, type QueryAnswer } from '../database.js';
import type { RequestRoute } from '../protocol/frames.js';
import type { PipelineOptions } from '../core/request-options.js';
import { openStore, type Store } from '../store/index.js';

/** Bodies up to this size are small enough to parse on the main thread (a few µs). */
export const INLINE_BODY_BYTES = 8 * 1024;
/** The main thread's time slice for one request (ms). */
export const INLINE_SLICE_MS = 1;

export interface InlineSettings {
  readonly dataDir: string;
  readonly readerMode: boolean;
  readonly queryTimeoutMs: number;
}

export class InlineQueries {
  /** At most one request per event-loop turn: a burst goes to the workers. */
  private usedThisTurn = false;

  private constructor(
    private readonly store: Store,
    private readonly settings: InlineSettings,
  ) {}

  static async open(settings: InlineSettings): Promise<InlineQueries> {
    return new InlineQueries(await openStore({ path: settings.dataDir, readOnly: true }), settings);
  }

  /** Whether a body of this size may be answered here now (the caller knows the pool is idle). */
  accepts(body: Uint8Array): boolean {
    if (this.usedThisTurn || body.byteLength > INLINE_BODY_BYTES) return false;
    this.usedThisTurn = true;
    setImmediate(() => (this.usedThisTurn = false));
    return true;
  }

  /** Answers a body of any route (protocol/frames.ts RequestRoute), as a read worker would. */
  answer(body: Uint8Array, options: PipelineOptions, paramsAt = 0, route: RequestRoute = 'query'): QueryAnswer {
    const exec = { timeoutMs: this.settings.queryTimeoutMs, sliceMs: INLINE_SLICE_MS };
    const read = (plan: Parameters<typeof runRead>[1]) => runRead(this.store, plan, exec);
    return answerRoute(route, body, options, this.settings.readerMode, read, paramsAt);
  }

  close(): Promise<void> {
    return this.store.close();
  }
}
