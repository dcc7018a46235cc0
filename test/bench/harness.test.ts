/**
 * The comparison harness's own logic, without running any database: the dataset is the
 * deterministic power-law graph the docs describe, the cross-check rejects a system that
 * answers differently, and the summary computes ratios, cost growth and targets the way
 * docs/benchmarks.md reads them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { generateEdges, SIZES, userProps } from '../../bench/lib/dataset.js';
import { crossCheck, referenceAnswers, summarize, toMarkdown, type Reader, type SystemReport } from '../../bench/lib/peer-types.js';
import { medianInterval } from '../../bench/lib/stats.js';

test('the dataset is a pure function of the seed: a simple graph with power-law in-degrees', () => {
  const size = SIZES.small;
  const a = generateEdges(7, size);
  const b = generateEdges(7, size);
  assert.deepEqual(a, b);
  assert.notDeepEqual(generateEdges(8, size).from, a.from);
  assert.deepEqual(userProps(7, 123), userProps(7, 123));
  assert.equal(a.from.length, size.edges);
  const pairs = new Set<number>();
  const inDegree = new Uint32Array(size.nodes);
  for (let k = 0; k < size.edges; k++) {
    assert.notEqual(a.from[k], a.to[k], `edge ${k} is a self-loop`);
    pairs.add(a.from[k]! * size.nodes + a.to[k]!);
    inDegree[a.to[k]!]!++;
  }
  assert.equal(pairs.size, size.edges, 'no parallel edges');
  // A few users have huge in-degrees: the largest is far above the mean of 10.
  assert.ok(Math.max(...inDegree) > 20 * (size.edges / size.nodes));
});

/** A reader that answers from the generator, optionally wrong on the two-hop count of one user. */
function truthReader(seed: number, wrongTwoHopOf?: number): Reader {
  const size = SIZES.tiny;
  const { from, to } = generateEdges(seed, size);
  const outs: number[][] = Array.from({ length: size.nodes }, () => []);
  for (let k = 0; k < from.length; k++) outs[from[k]!]!.push(to[k]!);
  const users = Array.from({ length: size.nodes }, (_, i) => userProps(seed, i));
  return {
    point: async (uid) => users[uid] ?? null,
    oneHop: async (uid) => [...outs[uid]!].reverse(), // any order is accepted
    twoHopCount: async (uid) => outs[uid]!.reduce((s, m) => s + outs[m]!.length, 0) + (uid === wrongTwoHopOf ? 1 : 0),
    filteredCount: async () => users.filter((u) => u.age >= 30 && u.status === 'active').length,
    topK: async (k) =>
      [...users]
        .sort((x, y) => y.score - x.score || x.uid - y.uid)
        .slice(0, k)
        .map((u) => u.uid),
  };
}

test('the cross-check accepts the right answers and rejects a system that differs, naming the check', async () => {
  const reference = referenceAnswers(7, SIZES.tiny);
  await crossCheck('truth', truthReader(7), reference);
  await assert.rejects(
    crossCheck('off-by-one', truthReader(7, 0), reference),
    /off-by-one answers differ from the reference on 1 check\(s\):\n {2}two_hop_count 0\n/,
  );
});

const report = (system: string, size: 'small' | 'medium', opsPerSec: number, loadPhasesMs: Record<string, number>): SystemReport => ({
  system,
  version: '1',
  size,
  nodes: SIZES[size].nodes,
  edges: SIZES[size].edges,
  loadMs: 1,
  loadPhasesMs,
  maxRssMb: 1,
  notes: [],
  queries: Object.fromEntries(
    ['point', 'one_hop', 'two_hop_count', 'filtered_count', 'top_k', 'mixed'].map((q) => [
      q,
      { ops: 10, seconds: 1, opsPerSec, p50Ms: 1, p99Ms: 2 },
    ]),
  ),
});

test('the summary: ratios to the faster peer, cost growth between sizes, load targets against COPY FROM, and the Markdown of all three', () => {
  const reports = [
    report('trellis', 'small', 1000, { database: 100 }),
    report('kuzu', 'small', 200, { copyFrom: 50 }),
    report('surrealdb', 'small', 250, { nodes: 10, edges: 900 }),
    report('trellis', 'medium', 500, { database: 2000 }),
    report('trellis-http', 'medium', 100, { database: 4000 }),
    report('kuzu', 'medium', 100, { copyFrom: 1000 }),
  ];
  const s = summarize(reports, [], {});
  assert.equal(s.ratios['small']!['point']!.ratio, 4); // 1000 over SurrealDB's 250, the faster peer
  assert.equal(s.ratios['small']!['point']!.bestPeer, 'surrealdb');
  assert.equal(s.ratios['medium']!['http point']!.ratio, 1);
  assert.equal(s.growth['point']!['trellis']!['small->medium'], 2); // twice the time per op
  assert.equal(s.growth['load']!['trellis']!['small->medium'], 20);
  const load = s.targets.filter((t) => t.target.startsWith('bulk load'));
  assert.deepEqual(
    load.map((t) => [t.target, t.got, t.met]),
    [
      ['bulk load vs kuzu (Trellis time / peer time)', 2, true],
      ['bulk load over HTTP vs kuzu (Trellis time / peer time)', 4, false],
    ],
  );
  const md = toMarkdown(s);
  assert.match(md, /### small \(10,000 nodes \/ 100,000 edges\)/);
  assert.match(md, /\| point \| 1000 \(1 \/ 2\) \| 200 \(1 \/ 2\) \| 250 \(1 \/ 2\) \| 4 \| - \|/);
  assert.match(md, /Load over HTTP: Trellis 4000 ms \(4x kuzu's time\)\./);
  assert.match(md, /\| bulk load over HTTP vs kuzu \(Trellis time \/ peer time\) \| medium \| <= 3x \| 4 \| NO \|/);
  assert.match(md, /### Cost growth/);
});

test('Cypher/tree ratios divide by the tree figures of the alternation (baseline), not by the tree report timed on its own', () => {
  const cypher = {
    ...report('trellis-cypher', 'small', 900, {}),
    baseline: { system: 'trellis', queries: report('trellis', 'small', 1000, {}).queries },
  };
  const http = report('trellis-cypher-http', 'small', 300, {});
  const reports = [report('trellis', 'small', 600, { database: 1 }), report('trellis-http', 'small', 200, { database: 1 }), cypher, http];
  const s = summarize(reports, [], {});
  // 900 over the alternation's 1000, not over the lone report's 600.
  assert.equal(s.ratios['small']!['cypher/tree point']!.ratio, 0.9);
  assert.equal(s.ratios['small']!['cypher/tree point']!.bestPeerValue, 1000);
  // Without a baseline, the tree report of the same route.
  assert.equal(s.ratios['small']!['http cypher/tree point']!.ratio, 1.5);
  const point = s.targets.find((t) => t.target === 'cypher/tree point (Cypher vs /v2/query)');
  assert.deepEqual([point?.got, point?.met], [0.9, true]);
});

test('the median interval: order statistics around the median, wider for fewer rounds, none under six', () => {
  const values = Array.from({ length: 40 }, (_, i) => 39 - i); // 0..39 in reverse: the helper sorts
  // n = 40: ranks floor((40 - 1.96 * √40) / 2) = 13 and ceil(1 + (40 + 1.96 * √40) / 2) = 28.
  assert.deepEqual(medianInterval(values), [12, 27]);
  // n = 10: ranks 1 and 10, the whole range: ten rounds say little about the median.
  assert.deepEqual(medianInterval(values.slice(30)), [0, 9]);
  assert.deepEqual(medianInterval([1, 2, 3, 4, 5]), [Number.NaN, Number.NaN]);
});
