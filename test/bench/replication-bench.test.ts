/**
 * Smoke run of bench/replication.ts (no timings asserted): every workload runs against a
 * real nats-server (and Redis for the gateway reads) and reports its figures.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { natsSkip } from '../helpers/nats.js';
import { redisSkip } from '../helpers/redis.js';
import { run, script } from './bench-run.js';

const skip = natsSkip() || redisSkip();

test('replication bench: write on/off, lag, snapshot and reads through the gateway all report', { skip }, async () => {
  const args = ['--duration', '0.5', '--repeat', '1', '--rounds', '1', '--rate', '200', '--size', 'tiny'];
  const { stdout } = await run(process.execPath, [script('replication'), ...args], { timeout: 240_000, maxBuffer: 1 << 22 });
  const report = JSON.parse(stdout) as Record<string, any>;
  assert.equal(report.write.off_per_s.length, 1);
  assert.ok(report.write.off_per_s[0] > 0 && report.write.on_per_s[0] > 0, JSON.stringify(report.write));
  assert.ok(report.write.ratio_of_medians > 0);
  const [lag] = report.lag.runs;
  assert.equal(lag.batches, 100);
  assert.ok(lag.lag_p99_ms >= lag.lag_p50_ms && lag.lag_p50_ms >= 0, JSON.stringify(lag));
  assert.equal(report.snapshot.nodes, 200);
  assert.ok(report.snapshot.snapshot_mb > 0 && report.snapshot.mb_per_s > 0, JSON.stringify(report.snapshot));
  for (const target of ['writer_alone', 'writer_and_2_replicas']) {
    assert.equal(report.reads[target].failures, 0, target);
    assert.ok(report.reads[target].requests_per_s > 0, target);
  }
  assert.ok(report.reads.writer_and_2_replicas.cpu_cores.replica1 >= 0);
});
