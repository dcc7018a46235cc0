/**
 * Idle latency: one keep-alive client sending point reads one after another, against the
 * real server and against a bare uWebSockets.js server answering the same bytes
 * (bench/bare-uws.ts), interleaved run by run so both medians see the same machine noise.
 * Latencies are timed per request in microseconds (bench/lib/raw-client.ts).
 * Target (issue 9): Trellis p50 at most 2x the bare server's.
 *
 *   node dist/bench/latency.js [--size tiny|small|medium] [--duration S] [--repeat N]
 *
 * Prints one JSON object on stdout; progress goes to stderr.
 */
import { fileURLToPath } from 'node:url';
import { DEFAULT_SEED, SIZES } from './lib/dataset.js';
import { startChild, type Child } from './lib/child.js';
import { machine, parseBenchArgs, positiveNumber, progress, runBench } from './lib/cli.js';
import { prepareDatabase } from './lib/prepare.js';
import { timedLoad, type TimedRun } from './lib/raw-client.js';
import { readScenarios } from './lib/scenarios.js';
import { median, percentile, round } from './lib/stats.js';
import { buildTruth } from './lib/truth.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const BARE = fileURLToPath(new URL('./bare-uws.js', import.meta.url));

interface Figures {
  p50_us: number;
  p90_us: number;
  p99_us: number;
  requests_per_s: number;
}

function figures(run: TimedRun): Figures {
  if (run.failures > 0) throw new Error(`${run.failures} answers were not 200`);
  return {
    p50_us: round(percentile(run.latenciesUs, 50)),
    p90_us: round(percentile(run.latenciesUs, 90)),
    p99_us: round(percentile(run.latenciesUs, 99)),
    requests_per_s: Math.round(run.requests / run.seconds),
  };
}

function medians(runs: Figures[]): Figures {
  const pick = (k: keyof Figures) => round(median(runs.map((r) => r[k])));
  return { p50_us: pick('p50_us'), p90_us: pick('p90_us'), p99_us: pick('p99_us'), requests_per_s: pick('requests_per_s') };
}

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2), ['duration']);
  const duration = positiveNumber(args.values.duration, 5, 'duration');
  const repeat = args.repeat === 1 ? 5 : args.repeat;
  const prepared = await prepareDatabase(args.size, DEFAULT_SEED);
  const children: Child[] = [];
  try {
    await prepared.close();
    const truth = buildTruth(DEFAULT_SEED, SIZES[args.size]);
    const point = readScenarios(truth, DEFAULT_SEED).find((s) => s.name === 'point_read')!;
    let i = 0;
    const next = () => point.requests[i++ % point.requests.length]!;
    const server = await startChild(
      'trellis',
      [],
      CLI,
      ['--port', '0', '--data', prepared.dir],
      /listening on http:\/\/[^:]+:(\d+)/,
      /trellis ready/,
    );
    children.push(server);
    const sample = await timedLoad(server.port, 1, 0.2, next);
    if (sample.failures > 0) throw new Error('point reads failed');
    const firstAnswer = await (await fetch(`http://127.0.0.1:${server.port}/v2/query`, { method: 'POST', body: point.requests[0] })).text();
    point.check(firstAnswer, 0);
    const bare = await startChild('bare-uws', [], BARE, [firstAnswer], /listening on (\d+)/, /bare-uws ready/);
    children.push(bare);

    const runs: Record<'trellis' | 'bare', Figures[]> = { trellis: [], bare: [] };
    for (let r = 0; r < repeat; r++) {
      for (const [name, port] of [
        ['trellis', server.port],
        ['bare', bare.port],
      ] as const) {
        const f = figures(await timedLoad(port, 1, duration, next));
        progress(`${name} run ${r + 1}/${repeat}: p50 ${f.p50_us} µs, p99 ${f.p99_us} µs, ${f.requests_per_s} req/s`);
        runs[name].push(f);
      }
    }
    const trellis = medians(runs.trellis);
    const bareFigures = medians(runs.bare);
    const report = {
      bench: 'latency',
      machine: machine(),
      dataset: { size: args.size, ...SIZES[args.size] },
      load: { connections: 1, duration_s: duration, repeat },
      trellis_point_read: trellis,
      bare_uws: bareFigures,
      ratios: {
        p50_trellis_over_bare: round(trellis.p50_us / bareFigures.p50_us, 2),
        p99_trellis_over_bare: round(trellis.p99_us / bareFigures.p99_us, 2),
      },
      target: 'p50_trellis_over_bare <= 2',
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    for (const c of children) await c.stop();
    await prepared.remove();
  }
}

await runBench(main);
