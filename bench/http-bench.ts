/**
 * HTTP benchmark: the dataset loaded embedded into a temp folder, then the real server
 * (`dist/src/cli.js`) started on it as a child process and driven by autocannon. The same
 * point-read load then runs against a bare uWebSockets.js server (bench/bare-uws.ts) in
 * the same run, for the ratio trellis / bare.
 *
 *   node dist/bench/http-bench.js [--size tiny|small|medium] [--duration S] [--warmup S]
 *        [--connections N] [--workers N] [--repeat N] [--only point_read,...] [--profile DIR]
 *
 * autocannon stops on its 1 s sampling tick, so durations are effectively whole seconds;
 * `--warmup 0` skips the warmup run. `--profile DIR` runs the server under `node --cpu-prof` and writes its profiles to DIR.
 * Prints one JSON object on stdout; progress goes to stderr. Exits non-zero on any wrong
 * answer, error or non-2xx response.
 */
import { availableParallelism } from 'node:os';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SEED, SIZES } from './lib/dataset.js';
import { startChild, type Child } from './lib/child.js';
import { machine, parseBenchArgs, positiveInt, positiveNumber, progress } from './lib/cli.js';
import { runLoad, type HttpFigures, type LoadOptions } from './lib/load.js';
import { prepareDatabase } from './lib/prepare.js';
import { insertScenario, readScenarios, type Scenario } from './lib/scenarios.js';
import { medianOfRuns, round } from './lib/stats.js';
import { buildTruth } from './lib/truth.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const BARE = fileURLToPath(new URL('./bare-uws.js', import.meta.url));

async function post(port: number, body: string): Promise<string> {
  const res = await fetch(`http://127.0.0.1:${port}/v2/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  const text = await res.text();
  if (res.status !== 200) throw new Error(`expected 200, got ${res.status}: ${text.slice(0, 300)}`);
  return text;
}

/** Checks the first responses of a scenario; a wrong answer is a bug, not a data point. */
async function check(port: number, s: Scenario): Promise<void> {
  for (let i = 0; i < Math.min(3, s.requests.length); i++) {
    try {
      s.check(await post(port, s.requests[i]!), i);
    } catch (err) {
      throw new Error(`scenario ${s.name} gave a wrong answer to request ${i}: ${err instanceof Error ? err.message : String(err)}`);
    }
  }
}

async function measure(port: number, s: Pick<Scenario, 'name' | 'requests'>, load: LoadOptions, warmup: number, repeat: number, label: string): Promise<HttpFigures> {
  const url = `http://127.0.0.1:${port}`;
  if (warmup > 0) await runLoad(url, s, { ...load, duration: warmup });
  const runs: HttpFigures[] = [];
  for (let r = 0; r < repeat; r++) {
    const f = await runLoad(url, s, load);
    progress(`${label} run ${r + 1}/${repeat}: ${f.requests_per_s} req/s, p50 ${f.p50_ms} ms, p99 ${f.p99_ms} ms`);
    runs.push(f);
  }
  return medianOfRuns(runs, ['errors', 'non2xx']);
}

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2), ['duration', 'warmup', 'connections', 'workers', 'profile']);
  const load: LoadOptions = {
    connections: positiveInt(args.values.connections, 32, 'connections'),
    duration: positiveNumber(args.values.duration, 10, 'duration'),
  };
  const warmup = args.values.warmup === '0' ? 0 : positiveNumber(args.values.warmup, 2, 'warmup');
  const workers = positiveInt(args.values.workers, Math.max(1, availableParallelism() - 1), 'workers');
  const profile = args.values.profile;
  const seed = DEFAULT_SEED;
  const selected = (name: string) => args.only === null || args.only.includes(name);

  const prepared = await prepareDatabase(args.size, seed);
  const children: Child[] = [];
  try {
    await prepared.close();
    const truth = buildTruth(seed, SIZES[args.size]);
    const reads = readScenarios(truth, seed).filter((s) => selected(s.name));
    const insert = insertScenario(truth, seed);

    const nodeArgs = profile === undefined ? [] : ['--cpu-prof', `--cpu-prof-dir=${profile}`];
    const server = await startChild('trellis', nodeArgs, CLI, ['--port', '0', '--data', prepared.dir, '--workers', String(workers)], /listening on http:\/\/[^:]+:(\d+)/, /trellis ready/);
    children.push(server);
    for (const s of reads) await check(server.port, s);

    const scenarios: Record<string, HttpFigures & { nodes_per_s?: number }> = {};
    for (const s of reads) scenarios[s.name] = await measure(server.port, s, load, warmup, args.repeat, s.name);
    if (selected(insert.name)) {
      // Inserts run last: they grow the graph the read scenarios were checked against.
      await check(server.port, insert);
      const f = await measure(server.port, insert, load, warmup, args.repeat, insert.name);
      scenarios[insert.name] = { ...f, nodes_per_s: f.requests_per_s * insert.nodesPerRequest! };
    }
    const pointRead = reads.find((s) => s.name === 'point_read');
    const sampleBody = pointRead === undefined ? undefined : await post(server.port, pointRead.requests[0]!);
    await server.stop();

    let baseline: { bare_uws_point_read: HttpFigures; body_bytes: number } | undefined;
    let ratios: Record<string, number> | undefined;
    if (pointRead !== undefined && sampleBody !== undefined) {
      const bare = await startChild('bare-uws', [], BARE, [sampleBody], /listening on (\d+)/, /bare-uws ready/);
      children.push(bare);
      const figures = await measure(bare.port, pointRead, load, warmup, args.repeat, 'bare_uws point_read');
      await bare.stop();
      baseline = { bare_uws_point_read: figures, body_bytes: Buffer.byteLength(sampleBody) };
      ratios = { trellis_point_read_rps_over_bare_rps: round(scenarios.point_read!.requests_per_s / figures.requests_per_s, 3) };
    }

    const report = {
      bench: 'http',
      machine: machine(),
      dataset: { size: args.size, ...SIZES[args.size], seed },
      load: prepared.load,
      server: { workers, connections: load.connections, duration_s: load.duration, warmup_s: warmup, repeat: args.repeat },
      scenarios,
      baseline,
      ratios,
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    for (const c of children) await c.stop();
    await prepared.remove();
  }
}

try {
  await main();
} catch (err) {
  console.error(`[bench] FAILED: ${err instanceof Error ? err.message : String(err)}`);
  process.exit(1);
}
