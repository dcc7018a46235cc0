/**
 * Embedded benchmark: the dataset loaded into a fresh temp database, then each read
 * scenario run in-process through `db.queryText`, one request at a time.
 *
 *   node dist/bench/embedded-bench.js [--size tiny|small|medium] [--iterations N | --seconds S]
 *                                     [--repeat N] [--only point_read,two_hop_count]
 *
 * Prints one JSON object on stdout; progress goes to stderr.
 */
import type { Database } from '../src/index.js';
import { DEFAULT_SEED, SIZES } from './lib/dataset.js';
import { machine, parseBenchArgs, positiveInt, positiveNumber, progress, runBench } from './lib/cli.js';
import { prepareDatabase } from './lib/prepare.js';
import { readScenarios, type Scenario } from './lib/scenarios.js';
import { medianOfRuns, percentile, round } from './lib/stats.js';
import { buildTruth } from './lib/truth.js';

type Limit = { iterations: number } | { seconds: number };

interface Figures extends Record<string, number> {
  ops_per_s: number;
  p50_us: number;
  p99_us: number;
  iterations: number;
}

/** Runs `scenario` for a fixed count, or until `seconds` have passed. */
async function measure(db: Database, scenario: Scenario, limit: Limit): Promise<Figures> {
  const latencies: number[] = [];
  const { requests } = scenario;
  const deadline = 'seconds' in limit ? performance.now() + limit.seconds * 1000 : Infinity;
  const count = 'iterations' in limit ? limit.iterations : Infinity;
  const t0 = performance.now();
  for (let i = 0; i < count && performance.now() < deadline; i++) {
    const start = performance.now();
    await db.queryText(requests[i % requests.length]!);
    latencies.push(performance.now() - start);
  }
  const elapsed = performance.now() - t0;
  latencies.sort((a, b) => a - b);
  return {
    ops_per_s: round(latencies.length / (elapsed / 1000)),
    p50_us: round(percentile(latencies, 50) * 1000),
    p99_us: round(percentile(latencies, 99) * 1000),
    iterations: latencies.length,
  };
}

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2), ['iterations', 'seconds']);
  const iterations = args.values.iterations === undefined ? undefined : positiveInt(args.values.iterations, 1, 'iterations');
  const limit: Limit = iterations !== undefined ? { iterations } : { seconds: positiveNumber(args.values.seconds, 3, 'seconds') };
  const seed = DEFAULT_SEED;

  const prepared = await prepareDatabase(args.size, seed);
  try {
    const truth = buildTruth(seed, SIZES[args.size]);
    const scenarios = readScenarios(truth, seed).filter((s) => args.only === null || args.only.includes(s.name));
    // A wrong answer is a bug, not a data point: check before timing anything.
    for (const s of scenarios) for (let i = 0; i < 3; i++) s.check(await prepared.db.queryText(s.requests[i % s.requests.length]!), i);

    const results: Record<string, Figures> = {};
    for (const s of scenarios) {
      const warmup: Limit =
        'iterations' in limit ? { iterations: Math.min(100, limit.iterations) } : { seconds: Math.min(1, limit.seconds / 3) };
      await measure(prepared.db, s, warmup);
      const runs: Figures[] = [];
      for (let r = 0; r < args.repeat; r++) {
        runs.push(await measure(prepared.db, s, limit));
        progress(`${s.name} run ${r + 1}/${args.repeat}: ${runs.at(-1)!.ops_per_s} ops/s, p50 ${runs.at(-1)!.p50_us} µs`);
      }
      results[s.name] = medianOfRuns(runs);
    }
    const report = {
      bench: 'embedded',
      machine: machine(),
      dataset: { size: args.size, ...SIZES[args.size], seed },
      load: prepared.load,
      repeat: args.repeat,
      limit,
      scenarios: results,
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    await prepared.remove();
  }
}

await runBench(main);
