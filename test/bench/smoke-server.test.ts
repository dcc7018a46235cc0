/**
 * The server-side benches still run end to end on the tiny dataset (durability, soak,
 * gateway, for-each): every variation answers correctly and reports figures. No timing
 * thresholds. The other benches are in smoke.test.ts.
 */
import test from 'node:test';
import assert from 'node:assert/strict';
import { redisSkip } from '../helpers/redis.js';
import { bench } from './bench-run.js';

test('durability bench: plain and await-durable writes in every workload, and the gain', async () => {
  const report = await bench('durability', ['--size', 'tiny', '--duration', '0.3', '--repeat', '1', '--connections', '2']);
  assert.deepEqual(Object.keys(report.results), ['sequential_writes', 'mixed_90_10', 'concurrent_writes_2', 'embedded_sequential_writes']);
  for (const r of Object.values<Record<string, any>>(report.results))
    assert.ok(r.plain.per_s > 0 && r.durable.per_s > 0 && r.plain_gain > 0);
});

test('soak bench: memory samples of the server under the mixed load, without errors', async () => {
  const report = await bench('soak', ['--size', 'tiny', '--minutes', '0.05', '--sample-s', '1', '--connections', '4']);
  assert.equal(report.summary.errors, 0);
  assert.ok(report.summary.requests > 0 && report.summary.writes > 0);
  assert.ok(report.samples.length >= 2);
  for (const s of report.samples) assert.ok(s.anon_mib > 0 && s.rss_mib >= s.anon_mib);
  const readsOnly = await bench('soak', [
    '--size',
    'tiny',
    '--minutes',
    '0.03',
    '--sample-s',
    '1',
    '--connections',
    '2',
    '--write-percent',
    '0',
  ]);
  assert.equal(readsOnly.summary.writes, 0);
  assert.ok(readsOnly.summary.requests > 0);
  assert.match(readsOnly.load.mix, /^100% reads/);
});

test(
  'gateway bench: direct, through the gateway with the limiter over TCP and over the unix socket and without it, and the ratios',
  {
    skip: redisSkip(),
  },
  async () => {
    const args = ['--size', 'tiny', '--duration', '0.3', '--repeat', '2', '--connections', '4', '--rounds', '2', '--round', '0.3'];
    const report = await bench('gateway', args);
    const targets = ['direct', 'gateway', 'gateway_unix', 'gateway_no_limit'];
    for (const name of targets) {
      assert.ok(report.one_connection[name].p50_us > 0, name);
      assert.ok(report.many_connections[name].requests_per_s > 0, name);
    }
    assert.deepEqual(report.load.throughput, { connections: 4, rounds: 2, round_s: 0.3 });
    assert.equal(typeof report.results.gateway_added_p50_us, 'number');
    for (const suffix of ['', '_unix']) {
      assert.equal(typeof report.results[`limiter_cost_of_throughput${suffix}`], 'number');
      // One limiter share per round, their median, and no interval from fewer than six rounds.
      assert.equal(report.results[`limiter_cost_by_round${suffix}`].length, 2);
      assert.equal(typeof report.results[`limiter_cost_median_of_rounds${suffix}`], 'number');
      assert.deepEqual(report.results[`limiter_cost_median_interval${suffix}`], [null, null]);
    }
  },
);

test('for-each bench: every variation answers correctly (it checks before timing) and reports its figures', async () => {
  const report = await bench('for-each', ['--rows', '100', '--nodes', '600', '--items', '20', '--repeat', '1']);
  assert.deepEqual(report.dataset, { nodes: 600, items: 20 });
  assert.deepEqual(Object.keys(report.variations), ['floor', 'sort_range', 'sort_all', 'filter_param', 'value_map', 'id_lookup']);
  for (const [name, v] of Object.entries<Record<string, any>>(report.variations)) {
    assert.equal(v.rows, 100, name);
    assert.equal(v.runs_ms.length, 1, name);
    assert.ok(v.ms > 0 && v.us_per_iteration > 0, name);
  }
});
