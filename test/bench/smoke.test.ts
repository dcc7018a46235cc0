/**
 * The benches still run end to end on the tiny dataset: every scenario answers correctly
 * (each bench checks its answers before timing and exits non-zero otherwise) and reports
 * figures. No timing thresholds: the numbers depend on the machine. The server-side benches
 * are in smoke-server.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import test from 'node:test';
import assert from 'node:assert/strict';
import { READ_SCENARIOS } from '../../bench/lib/scenarios.js';
import { bench } from './bench-run.js';

test('embedded bench: every scenario on the tiny dataset reports positive ops/s', async () => {
  const report = await bench('embedded-bench', ['--size', 'tiny', '--iterations', '20']);
  assert.equal(report.dataset.nodes, 200);
  assert.ok(report.load.nodes_per_s > 0 && report.load.edges_per_s > 0);
  assert.deepEqual(Object.keys(report.scenarios), [...READ_SCENARIOS]);
  for (const [name, figures] of Object.entries<Record<string, number>>(report.scenarios)) {
    assert.ok(figures.ops_per_s! > 0, `${name} ops/s`);
    assert.equal(figures.iterations, 20, `${name} iterations`);
    assert.ok(figures.p50_us! > 0 && figures.p99_us! >= figures.p50_us!, `${name} latencies`);
  }
});

test('HTTP bench: every scenario and the bare uWS baseline run without errors', async () => {
  const report = await bench('http-bench', ['--size', 'tiny', '--duration', '1', '--warmup', '0', '--connections', '4']);
  assert.deepEqual(Object.keys(report.scenarios), [...READ_SCENARIOS, 'insert_batch']);
  for (const [name, figures] of Object.entries<Record<string, number>>(report.scenarios)) {
    assert.ok(figures.requests_per_s! > 0, `${name} requests/s`);
    assert.equal(figures.errors, 0);
    assert.equal(figures.non2xx, 0);
  }
  assert.equal(report.scenarios.insert_batch.nodes_per_s, report.scenarios.insert_batch.requests_per_s * 100);
  assert.ok(report.baseline.bare_uws_point_read.requests_per_s > 0);
  assert.ok(report.ratios.trellis_point_read_rps_over_bare_rps > 0);
});

test('load-steps bench: one timed step per load request, in order, and a profile of the edge requests', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'load-steps-smoke-'));
  const profile = join(dir, 'edges.cpuprofile');
  const report = await bench('load-steps', ['--size', 'tiny', '--edges-per-request', '300', '--profile-edges', profile]);
  const recorded = JSON.parse(readFileSync(profile, 'utf8')) as { nodes: unknown[]; samples: unknown[] };
  rmSync(dir, { recursive: true, force: true });
  assert.ok(recorded.nodes.length > 0 && Array.isArray(recorded.samples), 'a CPU profile of the edge requests');
  assert.deepEqual(report.batches, { nodes: 1_000_000, edges: 300 });
  // 200 nodes in one request, then 1,000 edges in requests of 300.
  assert.deepEqual(
    report.steps.map((s: { rows: string }) => s.rows),
    ['nodes', 'edges', 'edges', 'edges', 'edges'],
  );
  for (const s of report.steps) assert.ok(s.ms > 0 && s.file_mb > 0);
});

test('latency bench: one client against Trellis and the bare uWS server, with the p50 ratio', async () => {
  const report = await bench('latency', ['--size', 'tiny', '--duration', '0.5', '--repeat', '2']);
  for (const side of [report.trellis_point_read, report.bare_uws])
    assert.ok(side.p50_us > 0 && side.p99_us >= side.p50_us && side.requests_per_s > 0);
  assert.ok(report.ratios.p50_trellis_over_bare > 0);
});

test('fairness bench: cheap-read latency idle and under heavy reads, with and without the slice', async () => {
  const report = await bench('fairness', ['--size', 'tiny', '--duration', '1', '--loop-rows', '300']);
  for (const server of [report.default_server, report.slice_disabled]) {
    assert.ok(server.idle.cheap_requests > 0 && server.under_heavy_load.cheap_requests > 0);
    assert.ok(
      server.under_heavy_load.heavy_done.for_each_100k > 0 && server.under_heavy_load.heavy_done.two_hop_paths > 0,
      'heavy reads ran and answered 200',
    );
    assert.ok(server.p99_ratio > 0);
  }
});

test('Cypher top-k bench: every key shape answers as the tree does and reports both routes', async () => {
  const report = await bench('cypher-topk', ['--size', 'tiny', '--rounds', '2', '--round', '0.1']);
  assert.deepEqual(Object.keys(report.results), ['by_number', 'by_string', 'by_string_desc', 'by_few_values_then_string']);
  for (const [name, figures] of Object.entries<Record<string, number>>(report.results)) {
    assert.ok(figures.cypher_ops_per_s! > 0 && figures.tree_ops_per_s! > 0 && figures.row_by_row_ops_per_s! > 0, name);
    assert.ok(figures.cypher_over_tree! > 0, name);
  }
});
