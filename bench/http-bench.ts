/**
 * HTTP benchmark: the dataset loaded embedded into a temp folder, then the real server
 * (`dist/src/cli.js`) started on it as a child process and driven by autocannon. The same
 * point-read load also runs against a bare uWebSockets.js server (bench/bare-uws.ts) that
 * answers every request with Trellis's own response bytes; the two point-read series are
 * interleaved run by run (trellis, bare, trellis, bare, ...) so that the ratio trellis / bare
 * compares medians taken under the same machine conditions.
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
import { machine, parseBenchArgs, positiveInt, positiveNumber, progress, runBench } from './lib/cli.js';
import { runLoad, type HttpFigures, type LoadOptions } from './lib/load.js';
import { prepareDatabase } from './lib/prepare.js';
import { insertScenario, readScenarios, type Scenario } from './lib/scenarios.js';
import { medianOfRuns, round } from './lib/stats.js';
import { buildTruth } from './lib/truth.js';
import { messageOf } from '../src/core/errors.js';

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
      throw new Error(`scenario ${s.name} gave a wrong answer to request ${i}: ${messageOf(err)}`, {
        cause: err,
      });
    }
  }
}

async function measure(
  port: number,
  s: Pick<Scenario, 'name' | 'requests'>,
  load: LoadOptions,
  warmup: number,
  repeat: number,
  label: string,
): Promise<HttpFigures> {
  const [figures] = await measureInterleaved([port], s, load, warmup, repeat, [label]);
  return figures!;
}

/** Alternates runs between servers so each median sees the same spread of machine noise. */
async function measureInterleaved(
  ports: number[],
  s: Pick<Scenario, 'name' | 'requests'>,
  load: LoadOptions,
  warmup: number,
  repeat: number,
  labels: string[],
): Promise<HttpFigures[]> {
  const runs: HttpFigures[][] = ports.map(() => []);
  if (warmup > 0) for (const port of ports) await runLoad(`http://127.0.0.1:${port}`, s, { ...load, duration: warmup });
  for (let r = 0; r < repeat; r++) {
    for (let i = 0; i < ports.length; i++) {
      const f = await runLoad(`http://127.0.0.1:${ports[i]}`, s, load);
      progress(`${labels[i]} run ${r + 1}/${repeat}: ${f.requests_per_s} req/s, p50 ${f.p50_ms} ms, p99 ${f.p99_ms} ms`);
      runs[i]!.push(f);
    }
  }
  return runs.map((r) => medianOfRuns(r, ['errors', 'non2xx']));
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
    const server = await startChild(
      'trellis',
      nodeArgs,
      CLI,
      ['--port', '0', '--data', prepared.dir, '--workers', String(workers)],
      /listening on http:\/\/[^:]+:(\d+)/,
      /trellis ready/,
    );
    children.push(server);
    for (const s of reads) await check(server.port, s);

    const pointRead = reads.find((s) => s.name === 'point_read');
    const sampleBody = pointRead === undefined ? undefined : await post(server.port, pointRead.requests[0]!);
    const bare =
      sampleBody === undefined ? undefined : await startChild('bare-uws', [], BARE, [sampleBody], /listening on (\d+)/, /bare-uws ready/);
    if (bare !== undefined) children.push(bare);

    const scenarios: Record<string, HttpFigures & { nodes_per_s?: number }> = {};
    let baseline: { bare_uws_point_read: HttpFigures; body_bytes: number } | undefined;
    let ratios: Record<string, number> | undefined;
    for (const s of reads) {
      if (s === pointRead && bare !== undefined) {
        const [trellisFigures, bareFigures] = (await measureInterleaved([server.port, bare.port], s, load, warmup, args.repeat, [
          'point_read',
          'bare_uws point_read',
        ])) as [HttpFigures, HttpFigures];
        scenarios[s.name] = trellisFigures;
        baseline = { bare_uws_point_read: bareFigures, body_bytes: Buffer.byteLength(sampleBody!) };
        ratios = { trellis_point_read_rps_over_bare_rps: round(trellisFigures.requests_per_s / bareFigures.requests_per_s, 3) };
      } else {
        scenarios[s.name] = await measure(server.port, s, load, warmup, args.repeat, s.name);
      }
    }
    if (bare !== undefined) await bare.stop();
    if (selected(insert.name)) {
      // Inserts run last: they grow the graph the read scenarios were checked against.
      await check(server.port, insert);
      const f = await measure(server.port, insert, load, warmup, args.repeat, insert.name);
      scenarios[insert.name] = { ...f, nodes_per_s: f.requests_per_s * insert.nodesPerRequest! };
    }
    await server.stop();

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

await runBench(main);
