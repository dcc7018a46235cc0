/**
 * The server's own metrics (src/server/server-metrics.ts) read from the threads' counters:
 * each metric reports its own field and lane, and the writer client's batch observer
 * counts committed and failed batches and times the committed ones.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ServerMetrics } from '../../src/server/server-metrics.js';
import type { ServiceCounters } from '../../src/server/threaded-service.js';
import { parseMetrics } from '../helpers/metrics.js';

/** `name{labels} value` of every sample of the writer and read pool metrics, sorted. */
async function threadSamples(metrics: ServerMetrics): Promise<string[]> {
  const { body } = await metrics.serve();
  return parseMetrics(body as string)
    .filter((s) => /^trellis_(writer|read)_/.test(s.name) && !/_seconds_|_batches_/.test(s.name))
    .map((s) => `${s.name}${s.labels.lane === undefined ? '' : `{${s.labels.lane}}`} ${s.value}`)
    .sort();
}

test('every thread metric reads its own field of the counters, by lane', async () => {
  // No two fields alike, so a metric that reads the wrong one shows.
  const counters: ServiceCounters = {
    writer: { queued: 3, alive: true, deaths: 2, restarts: 1, committedLsn: 14, publishedLsn: 15 },
    pool: {
      short: { queued: 5, inFlight: 4, deaths: 8, replacements: 9 },
      long: { queued: 7, inFlight: 6, deaths: 10, replacements: 12 },
      preempted: 11,
      retried: 13,
    },
    vectors: [],
  };
  assert.deepEqual(await threadSamples(new ServerMetrics(() => counters)), [
    'trellis_read_preempted_total 11',
    'trellis_read_queue_depth{long} 7',
    'trellis_read_queue_depth{short} 5',
    'trellis_read_retried_total 13',
    'trellis_read_tasks_in_flight{long} 6',
    'trellis_read_tasks_in_flight{short} 4',
    'trellis_read_worker_deaths_total{long} 10',
    'trellis_read_worker_deaths_total{short} 8',
    'trellis_read_worker_replacements_total{long} 12',
    'trellis_read_worker_replacements_total{short} 9',
    'trellis_writer_deaths_total 2',
    'trellis_writer_queue_depth 3',
    'trellis_writer_restarts_total 1',
    'trellis_writer_up 1',
  ]);
});

test("a writer's LSN: the writer thread's last committed one (background steps too) or the last write answer's, whichever is higher; the published one", async () => {
  let writer = { queued: 0, alive: true, deaths: 0, restarts: 0, committedLsn: 40, publishedLsn: 38 };
  const metrics = new ServerMetrics(() => ({ writer, pool: null, vectors: [] }));
  const value = async (name: string) => parseMetrics((await metrics.serve()).body as string).find((s) => s.name === name)?.value;
  metrics.batch({ ok: true, body: '{}', lsn: 35 }, false, 0.001);
  assert.equal(await value('trellis_replication_lsn'), 40, 'a background step after the last write answer');
  assert.equal(await value('trellis_replication_published_lsn'), 38);
  metrics.batch({ ok: true, body: '{}', lsn: 41 }, false, 0.001);
  assert.equal(await value('trellis_replication_lsn'), 41, 'a write answer the thread has not reported yet');
  writer = { ...writer, committedLsn: 45, publishedLsn: 45 };
  assert.equal(await value('trellis_replication_lsn'), 45);
  assert.equal(await value('trellis_replication_published_lsn'), 45);
});

test('parts not running (no writer in reader mode, no pool yet) read as 0, the writer as down', async () => {
  const samples = await threadSamples(new ServerMetrics(() => ({ writer: null, pool: null, vectors: [] })));
  assert.equal(samples.length, 14, samples.join('\n'));
  assert.deepEqual(
    samples.filter((s) => !s.endsWith(' 0')),
    [],
  );
});

test('the batch observer: committed batches timed as commit or durable, failed ones by code, a lost one without a time', async () => {
  const metrics = new ServerMetrics(() => ({ writer: null, pool: null, vectors: [] }));
  metrics.batch({ ok: true, body: '{}', lsn: 1 }, false, 0.002);
  metrics.batch({ ok: true, body: '{}', lsn: 1 }, false, 0.003);
  metrics.batch({ ok: true, body: '{}', lsn: 1 }, true, 0.02);
  metrics.batch({ ok: false, error: { error: 'node_not_found', msg: 'x' } }, false, 0.001);
  metrics.batch({ ok: false, error: { error: 'internal_error', msg: 'lost' } }, true, undefined);
  const { body } = await metrics.serve();
  const value = (name: string, labels: Record<string, string> = {}) =>
    parseMetrics(body as string).find((s) => s.name === name && Object.entries(labels).every(([k, v]) => s.labels[k] === v))?.value;
  assert.equal(value('trellis_writer_batches_committed_total'), 3);
  assert.equal(value('trellis_writer_batches_failed_total', { code: 'node_not_found' }), 1);
  assert.equal(value('trellis_writer_batches_failed_total', { code: 'internal_error' }), 1);
  assert.equal(value('trellis_writer_commit_seconds_count'), 2);
  assert.ok(Math.abs(value('trellis_writer_commit_seconds_sum')! - 0.005) < 1e-12);
  assert.equal(value('trellis_writer_durable_seconds_count'), 1);
  assert.equal(value('trellis_writer_durable_seconds_sum'), 0.02);
});

test('vector index backlogs: queued, applied, rate and reach checked per index, labelled by element, label and property', async () => {
  const backlog = (queued: number, applied: number, appliedPerSecond: number, reachChecked: boolean) => ({
    queued,
    applied,
    appliedPerSecond,
    reachChecked,
  });
  const metrics = new ServerMetrics(() => ({
    writer: null,
    pool: null,
    vectors: [
      { element: 'node', label: 'Doc', property: 'emb', backlog: backlog(120, 30, 2500.5, false) },
      { element: 'edge', label: 'Cites', property: 'emb', backlog: backlog(0, 7, 0, true) },
    ],
  }));
  const { body } = await metrics.serve();
  const samples = parseMetrics(body as string)
    .filter((s) => s.name.startsWith('trellis_vector_'))
    .map((s) => `${s.name}{${s.labels.element},${s.labels.label},${s.labels.property}} ${s.value}`)
    .sort();
  assert.deepEqual(samples, [
    'trellis_vector_applied_entries_total{edge,Cites,emb} 7',
    'trellis_vector_applied_entries_total{node,Doc,emb} 30',
    'trellis_vector_apply_rate{edge,Cites,emb} 0',
    'trellis_vector_apply_rate{node,Doc,emb} 2500.5',
    'trellis_vector_backlog_entries{edge,Cites,emb} 0',
    'trellis_vector_backlog_entries{node,Doc,emb} 120',
    'trellis_vector_reach_checked{edge,Cites,emb} 1',
    'trellis_vector_reach_checked{node,Doc,emb} 0',
  ]);
});
