/**
 * A replica's copies of its writer's vector segment files (docs/replication.md, "Vector
 * indexes"). The log carries LMDB data only; a segment's pointer (in `vector_queue`)
 * arrives with the entry of the writer's builder commit that made it, and names a file
 * the replica does not have yet. Searches of that graph are exact until the file is there
 * (store/vector-segments.ts SegmentViews), so the entry is applied at once and the file
 * fetched after it: the stream never waits on a file transfer.
 *
 * After each applied entry or snapshot (at most every POKE_MS), the fetcher asks the store
 * which files its current pointers name and it lacks, downloads each by pieces from the
 * writer (`POST /v2/replication/segment`), checks the pointer's SHA-256 over the files,
 * syncs them and renames them into place (the side file first, so a reader that finds the
 * segment finds its side file too), then retires the files no pointer names any more. A
 * file the writer no longer has (404: it was replaced there a while ago) is not retried:
 * the entry that replaced it follows. Other failures are retried every RETRY_MS.
 */
import { closeSync, mkdirSync, openSync, renameSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { messageOf } from '../core/errors.js';
import { segmentDir, syncFile, type MissingSegment, type Store } from '../store/index.js';
import { filesSha256 } from './hashing-sink.js';
import { downloadPieces, fileSink, PieceRefused } from './pieces.js';

export interface SegmentFetcherOptions {
  readonly store: Store;
  readonly dataDir: string;
  readonly writerUrl: string;
  readonly log: (message: string) => void;
}

/** Least pause between two looks for missing files (entries arrive by the thousand per second). */
const POKE_MS = 50;
/** Pause before a failed fetch is tried again. */
const RETRY_MS = 1000;

export class SegmentFetcher {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private again = false;
  private closed = false;
  /** Files the writer answered 404 for: not asked again (their replacement's entry follows). */
  private readonly gone = new Set<string>();
  private readonly dir: string;
  readonly counts = { segments: 0, bytes: 0 };

  constructor(private readonly options: SegmentFetcherOptions) {
    this.dir = segmentDir(options.dataDir);
  }

  /** Pointers may have changed (an entry or a snapshot was applied): look soon. */
  poke(delayMs = POKE_MS): void {
    if (this.closed) return;
    if (this.running !== null) {
      this.again = true;
      return;
    }
    if (this.timer !== null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      this.running = this.run().finally(() => {
        this.running = null;
        if (this.again) {
          this.again = false;
          this.poke();
        }
      });
    }, delayMs);
    this.timer.unref();
  }

  private async run(): Promise<void> {
    let failed = false;
    let missing: MissingSegment[];
    try {
      missing = this.options.store.missingSegments();
    } catch (err) {
      if (!this.closed) this.options.log(`replication: the vector segments could not be listed: ${messageOf(err)}`);
      return;
    }
    // A file stops being asked for once no pointer names it: forget it (the set stays small).
    const named = new Set(missing.map((segment) => segment.files[0]!));
    for (const name of this.gone) if (!named.has(name)) this.gone.delete(name);
    for (const segment of missing) {
      if (this.closed) return;
      if (this.gone.has(segment.files[0]!)) continue;
      try {
        await this.fetch(segment);
        this.counts.segments++;
      } catch (err) {
        if (err instanceof PieceRefused && err.status === 404) {
          this.gone.add(segment.files[0]!);
          continue;
        }
        failed = true;
        this.options.log(
          `replication: fetching vector segment ${segment.files[0]} failed (${messageOf(err)}); trying again in ${RETRY_MS} ms`,
        );
      }
    }
    if (this.closed) return;
    this.options.store.sweepSegments();
    if (failed) setTimeout(() => this.poke(0), RETRY_MS).unref();
  }

  /** Downloads a segment's files beside their final names, checks them, syncs them, renames them into place. */
  private async fetch(segment: MissingSegment): Promise<void> {
    const base = this.options.writerUrl.replace(/\/+$/, '');
    mkdirSync(this.dir, { recursive: true });
    const temps = segment.files.map((name) => join(this.dir, `${name}.fetch.tmp`));
    try {
      for (let i = 0; i < segment.files.length; i++) {
        const fd = openSync(temps[i]!, 'w');
        try {
          const ask = (offset: number, length: number) => ({ name: segment.files[i], offset, length });
          await downloadPieces(
            `${base}/v2/replication/segment`,
            ask,
            fileSink(fd),
            0,
            segment.sizes[i]!,
            `vector segment ${segment.files[i]}`,
          );
        } finally {
          closeSync(fd);
        }
      }
      // In a thread: at a million vectors the files hold hundreds of megabytes.
      if (segment.checksum !== null && (await filesSha256(temps)) !== Buffer.from(segment.checksum).toString('hex')) {
        throw new Error(`vector segment ${segment.files[0]} arrived with another SHA-256 than its pointer's`);
      }
      for (const temp of temps) syncFile(temp);
      for (let i = segment.files.length - 1; i >= 0; i--) renameSync(temps[i]!, join(this.dir, segment.files[i]!));
      syncFile(this.dir);
      this.counts.bytes += segment.sizes.reduce((a, b) => a + b, 0);
    } finally {
      for (const temp of temps) rmSync(temp, { force: true });
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    if (this.timer !== null) clearTimeout(this.timer);
    await this.running;
  }
}
