/**
 * The cross-system runner on Trellis alone (no peers installed): every query runs, embedded
 * and over HTTP, through /v2/query and through Cypher, and its answers pass the cross-check
 * against the generator.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { ALL_QUERIES, READ_QUERIES, type Summary } from '../../bench/lib/peer-types.js';

const compare = fileURLToPath(new URL('../../bench/compare.js', import.meta.url));

test(
  'compare.js --systems trellis --size tiny reports every query, embedded and HTTP, and the median of repeated loads in both',
  { timeout: 120_000 },
  async () => {
    const stdout = await new Promise<string>((resolve, reject) => {
      execFile(
        process.execPath,
        [compare, '--systems', 'trellis', '--size', 'tiny', '--budget-ms', '50', '--max-ops', '50', '--load-repeat', '3'],
        { maxBuffer: 16 << 20 },
        (err, out, errText) => (err ? reject(new Error(`${err.message}\n${errText}`)) : resolve(out)),
      );
    });
    const summary = JSON.parse(stdout) as Summary;
    assert.deepEqual(summary.failures, []);
    const embedded = summary.results['tiny']?.['trellis'];
    const http = summary.results['tiny']?.['trellis-http'];
    assert.ok(embedded && http);
    assert.deepEqual(Object.keys(embedded.queries).sort(), [...ALL_QUERIES].sort());
    assert.deepEqual(Object.keys(http.queries).sort(), [...READ_QUERIES].sort());
    for (const stats of [...Object.values(embedded.queries), ...Object.values(http.queries)]) assert.ok(stats.ops >= 5);
    // The same reads through Cypher: by-id text embedded and over HTTP, Kùzu's text embedded (cross-checked too).
    for (const system of ['trellis-cypher', 'trellis-cypher-kuzu-text', 'trellis-cypher-http']) {
      const report = summary.results['tiny']?.[system];
      assert.ok(report, system);
      assert.deepEqual(Object.keys(report.queries).sort(), [...READ_QUERIES].sort(), system);
    }
    // The by-id reports are timed in alternation with /v2/query on the same store; their ratios divide by those figures.
    for (const [system, tree] of [
      ['trellis-cypher', 'trellis'],
      ['trellis-cypher-http', 'trellis-http'],
    ] as const) {
      const baseline = summary.results['tiny']?.[system]?.baseline;
      assert.equal(baseline?.system, tree, system);
      assert.deepEqual(Object.keys(baseline.queries).sort(), [...READ_QUERIES].sort(), system);
    }
    assert.equal(
      summary.ratios['tiny']?.['cypher/tree point']?.bestPeerValue,
      summary.results['tiny']?.['trellis-cypher']?.baseline?.queries.point?.opsPerSec,
    );
    for (const key of ['cypher/tree point', 'http cypher/tree two_hop_count']) assert.ok(summary.ratios['tiny']?.[key], key);
    assert.ok(summary.targets.some((t) => t.target.startsWith('cypher/tree point')));
    assert.ok(embedded.loadMs > 0 && embedded.maxRssMb > 0);
    // Three loads into fresh stores (over HTTP: fresh servers); the reported time is their median.
    for (const [report, where] of [
      [embedded, 'stores'],
      [http, 'servers'],
    ] as const) {
      const trials = new RegExp(`median of 3 loads into fresh ${where} \\(([\\d, ]+) ms\\)`).exec(report.notes.join(' '));
      assert.ok(trials, `no load note in ${JSON.stringify(report.notes)}`);
      const times = trials[1]!
        .split(', ')
        .map(Number)
        .sort((a, b) => a - b);
      assert.equal(report.loadMs, times[1]);
    }
  },
);
