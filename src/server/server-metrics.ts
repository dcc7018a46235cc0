/**
 * The database server's metrics, served at `GET /metrics` with the prefix `trellis`:
 * requests by route, status and code and their latency (RequestMetrics, counted by
 * answers.ts), the writer thread's queue, commit latency and batches, the read pool's
 * lanes, replication (the writer's last LSN; a replica's applied LSN, lag, applied entries
 * and snapshot transfers: docs/replication.md), and the process itself (prom-client's
 * default metrics).
 *
 * What the threads see is counted where it happens, as plain numbers in src/pool (which
 * may not import prom-client), and read here only when /metrics is scraped. The writer
 * thread times each batch itself and the time comes back on the batch's reply, so a
 * write costs one more histogram observe and a read nothing beyond its request's count.
 */
import { MetricsRegistry, RequestMetrics, type Counter, type Histogram } from '../observe/metrics.js';
import type { BatchObserver, WriterCounters } from '../pool/writer-client.js';
import type { HttpResponse } from './http-types.js';
import type { ServiceCounters } from './threaded-service.js';
import type { IndexBacklog } from '../store/index.js';
import type { FollowerCounters } from '../replication/follower.js';

const LANES = ['short', 'long'] as const;

export class ServerMetrics {
  readonly registry = new MetricsRegistry('trellis');
  readonly requests = new RequestMetrics(this.registry);
  private readonly commitSeconds: Histogram;
  private readonly durableSeconds: Histogram;
  private readonly committed: Counter;
  private readonly failed: Counter;
  /** The highest LSN a write answer carried (docs/replication.md). */
  private lastLsn = 0;

  /**
   * `counters`: the threads' numbers now (ThreadedService.counters); `replica`: a replica's
   * follower counters (null until it runs), absent on a writer or reader.
   */
  constructor(counters: () => ServiceCounters, replica?: () => FollowerCounters | null) {
    const r = this.registry;
    const writer = () => counters().writer;
    const lanes = () => counters().pool;

    r.gauge('writer_queue_depth', 'Write batches sent to the writer thread and not answered yet', [], function () {
      this.set(writer()?.queued ?? 0);
    });
    r.gauge(
      'writer_up',
      '1 while a writer thread runs with the database open; 0 while one is being replaced, and in reader mode',
      [],
      function () {
        this.set(writer()?.alive === true ? 1 : 0);
      },
    );
    r.counterFrom('writer_deaths_total', 'Writer threads that died while the server ran', [], () => [[{}, writer()?.deaths ?? 0]]);
    r.counterFrom('writer_restarts_total', 'Writer threads started in place of one that died', [], () => [[{}, writer()?.restarts ?? 0]]);
    this.commitSeconds = r.histogram(
      'writer_commit_seconds',
      'Committed write batches: time from reaching the writer thread to the commit being visible to readers (when they are answered)',
    );
    this.durableSeconds = r.histogram(
      'writer_durable_seconds',
      'Committed X-Svc-Await-Durable write batches: time from reaching the writer thread to the commit being flushed to disk',
    );
    this.committed = r.counter('writer_batches_committed_total', 'Write batches committed');
    this.failed = r.counter('writer_batches_failed_total', 'Write batches that failed and kept nothing, by error code', ['code']);

    // Vector indexes: writes acknowledged and searchable (ranked exactly) but not yet linked
    // into the index's graph; what a client waits on before searches run at full speed.
    const vectors = () => counters().vectors;
    const indexLabels = (b: IndexBacklog) => ({ element: b.element, label: b.label, property: b.property });
    const INDEX = ['element', 'label', 'property'];
    r.gauge('vector_backlog_entries', 'Vector index entries written and not yet linked into the index graph', INDEX, function () {
      for (const b of vectors()) this.set(indexLabels(b), b.backlog.queued);
    });
    r.counterFrom('vector_applied_entries_total', 'Vector index entries linked or unlinked by background steps', INDEX, () =>
      vectors().map((b) => [indexLabels(b), b.backlog.applied] as const),
    );
    r.gauge('vector_apply_rate', 'Entries per second the background steps link while they work (smoothed)', INDEX, function () {
      for (const b of vectors()) this.set(indexLabels(b), b.backlog.appliedPerSecond);
    });
    r.gauge(
      'vector_reach_checked',
      "1 once the reach sweep has ended a pass after the index's last add on every graph (every vector findable through the graph), else 0",
      INDEX,
      function () {
        for (const b of vectors()) this.set(indexLabels(b), b.backlog.reachChecked ? 1 : 0);
      },
    );

    r.gauge('read_queue_depth', 'Read requests waiting for a worker thread, by lane', ['lane'], function () {
      const pool = lanes();
      for (const lane of LANES) this.set({ lane }, pool?.[lane].queued ?? 0);
    });
    r.gauge('read_tasks_in_flight', 'Tasks running on the read worker threads, by lane (at most one per thread)', ['lane'], function () {
      const pool = lanes();
      for (const lane of LANES) this.set({ lane }, pool?.[lane].inFlight ?? 0);
    });
    r.counterFrom('read_preempted_total', 'Reads stopped at their time slice and moved to the long lane', [], () => [
      [{}, lanes()?.preempted ?? 0],
    ]);
    r.counterFrom('read_retried_total', 'Requests tried again in the long lane after the worker running them died', [], () => [
      [{}, lanes()?.retried ?? 0],
    ]);
    r.counterFrom('read_worker_deaths_total', 'Read worker threads that died (a crash, out of memory), by lane', ['lane'], () =>
      LANES.map((lane) => [{ lane }, lanes()?.[lane].deaths ?? 0] as const),
    );
    r.counterFrom('read_worker_replacements_total', 'Read worker threads started in place of dead ones, by lane', ['lane'], () =>
      LANES.map((lane) => [{ lane }, lanes()?.[lane].replacements ?? 0] as const),
    );
    this.replicationMetrics(writer, replica);
  }

  private replicationMetrics(writer: () => WriterCounters | null, replica: (() => FollowerCounters | null) | undefined): void {
    const r = this.registry;
    const lsn = () => (replica === undefined ? Math.max(this.lastLsn, writer()?.committedLsn ?? 0) : (replica()?.appliedLsn ?? 0));
    r.gauge(
      'replication_lsn',
      "The change log's position this server answers at: a writer's last LSN (its writes and background index steps), a replica's applied LSN",
      [],
      function () {
        this.set(lsn());
      },
    );
    if (replica === undefined) {
      r.gauge('replication_published_lsn', 'A writer with --nats: the last LSN published to the stream (0: none yet)', [], function () {
        this.set(writer()?.publishedLsn ?? 0);
      });
      return;
    }
    const count = (name: keyof FollowerCounters) => () => [[{}, replica()?.[name] ?? 0] as const];
    r.gauge(
      'replica_lag_seconds',
      'How long this replica has not held everything the stream has (0: caught up); /readyz is 503 past --max-lag-ms',
      [],
      function () {
        this.set(replica()?.lagSeconds ?? 0);
      },
    );
    r.counterFrom('replica_applied_entries_total', 'Log entries applied (the apply rate is its rate())', [], count('appliedEntries'));
    r.counterFrom('replica_snapshots_total', 'Snapshots taken from the writer and loaded', [], count('snapshots'));
    r.counterFrom('replica_snapshot_bytes_total', 'Bytes of the snapshots loaded', [], count('snapshotBytes'));
    r.counterFrom('replica_resnapshots_total', 'New snapshots taken after a gap or a mismatch in the stream', [], count('resnapshots'));
    r.counterFrom(
      'replica_segment_fetches_total',
      'Vector segments (a segment file and its side file) fetched from the writer',
      [],
      count('segments'),
    );
    r.counterFrom('replica_segment_bytes_total', 'Bytes of those vector segment files', [], count('segmentBytes'));
  }

  /** The writer client's BatchObserver: every batch answered, with the writer thread's own time for it. */
  readonly batch: BatchObserver = (reply, awaitDurable, seconds) => {
    if (!reply.ok) {
      this.failed.inc({ code: reply.error.error });
      return;
    }
    this.committed.inc();
    if (reply.lsn > this.lastLsn) this.lastLsn = reply.lsn;
    if (seconds !== undefined) (awaitDurable ? this.durableSeconds : this.commitSeconds).observe(seconds);
  };

  /** `GET /metrics`: the text format, with the registry's content type. */
  readonly serve = async (): Promise<HttpResponse> => {
    const { contentType, body } = await this.registry.render();
    return { status: 200, headers: { 'content-type': contentType }, body };
  };
}
