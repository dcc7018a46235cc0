/**
 * What answering plain writes at commit (before the flush) gains, measured against
 * `X-Svc-Await-Durable: true`, which waits for the flush the way every write did before
 * (issue 9, defect 7). Runs alternate between the two so each median sees the same noise:
 *  - sequential small writes: one client, one single-node write after another;
 *  - the mixed 90/10 stream: one client, 90% point reads and 10% single-node writes;
 *  - concurrent small writes: `--connections` clients (their commits group);
 *  - embedded sequential writes (Database.queryText, no HTTP).
 *
 *   node dist/bench/durability.js [--size tiny|small] [--duration S] [--repeat N] [--connections N]
 *
 * Prints one JSON object on stdout; progress goes to stderr.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { open } from '../src/index.js';
import { DEFAULT_SEED, SIZES } from './lib/dataset.js';
import { startChild } from './lib/child.js';
import { machine, parseBenchArgs, positiveInt, positiveNumber, progress, runBench } from './lib/cli.js';
import { prepareDatabase } from './lib/prepare.js';
import { timedLoad, type Outgoing } from './lib/raw-client.js';
import { readScenarios, seededSequence } from './lib/scenarios.js';
import { median, percentile, round } from './lib/stats.js';
import { buildTruth } from './lib/truth.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const DURABLE = 'X-Svc-Await-Durable: true\r\n';

interface Figures {
  per_s: number;
  p50_us: number;
  p99_us: number;
}

let counter = 0;
const write = () =>
  JSON.stringify({
    request_type: 'write',
    query: {
      write: {
        entries: [{ query: { name: 'n', root: { add_n: { label: 'W', properties: [['i', { value: { i64: counter++ } }]] } } } }],
        returns: ['n'],
      },
    },
  });

function summarize(runs: Figures[]): Figures {
  return {
    per_s: Math.round(median(runs.map((r) => r.per_s))),
    p50_us: round(median(runs.map((r) => r.p50_us))),
    p99_us: round(median(runs.map((r) => r.p99_us))),
  };
}

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2), ['duration', 'connections']);
  const duration = positiveNumber(args.values.duration, 5, 'duration');
  const repeat = args.repeat === 1 ? 3 : args.repeat;
  const connections = positiveInt(args.values.connections, 8, 'connections');
  const prepared = await prepareDatabase(args.size, DEFAULT_SEED);
  const results: Record<string, { plain: Figures; durable: Figures; plain_gain: number }> = {};
  try {
    await prepared.close();
    const truth = buildTruth(DEFAULT_SEED, SIZES[args.size]);
    const point = readScenarios(truth, DEFAULT_SEED).find((s) => s.name === 'point_read')!;
    const random = seededSequence(DEFAULT_SEED);
    let i = 0;
    // Await-durable applies to writes only (on a read it is 400 invalid_request_option).
    const mixed = (headers: string) => () => (random() < 0.1 ? { body: write(), headers } : point.requests[i++ % point.requests.length]!);
    const writes = (headers: string) => () => ({ body: write(), headers });
    const server = await startChild(
      'trellis',
      [],
      CLI,
      ['--port', '0', '--data', prepared.dir],
      /listening on http:\/\/[^:]+:(\d+)/,
      /trellis ready/,
    );
    try {
      const workloads: [string, number, (headers: string) => () => Outgoing][] = [
        ['sequential_writes', 1, writes],
        ['mixed_90_10', 1, mixed],
        [`concurrent_writes_${connections}`, connections, writes],
      ];
      for (const [name, conns, next] of workloads) {
        const runs: Record<'plain' | 'durable', Figures[]> = { plain: [], durable: [] };
        for (let r = 0; r < repeat; r++) {
          for (const kind of ['plain', 'durable'] as const) {
            const run = await timedLoad(server.port, conns, duration, next(kind === 'durable' ? DURABLE : ''));
            if (run.failures > 0) throw new Error(`${name} ${kind}: ${run.failures} answers were not 200`);
            const f = {
              per_s: Math.round(run.requests / run.seconds),
              p50_us: round(percentile(run.latenciesUs, 50)),
              p99_us: round(percentile(run.latenciesUs, 99)),
            };
            progress(`${name} ${kind} run ${r + 1}/${repeat}: ${f.per_s}/s, p50 ${f.p50_us} µs, p99 ${f.p99_us} µs`);
            runs[kind].push(f);
          }
        }
        const plain = summarize(runs.plain);
        const durable = summarize(runs.durable);
        results[name] = { plain, durable, plain_gain: round(plain.per_s / durable.per_s, 2) };
      }
    } finally {
      await server.stop();
    }

    const dir = mkdtempSync(join(tmpdir(), 'trellis-durability-'));
    try {
      const db = await open(dir);
      const runs: Record<'plain' | 'durable', Figures[]> = { plain: [], durable: [] };
      for (let r = 0; r < repeat; r++) {
        for (const kind of ['plain', 'durable'] as const) {
          const latencies: number[] = [];
          const until = performance.now() + duration * 1000;
          const start = performance.now();
          while (performance.now() < until) {
            const t = performance.now();
            await db.queryText(write(), { awaitDurable: kind === 'durable' });
            latencies.push((performance.now() - t) * 1000);
          }
          latencies.sort((a, b) => a - b);
          const f = {
            per_s: Math.round(latencies.length / ((performance.now() - start) / 1000)),
            p50_us: round(percentile(latencies, 50)),
            p99_us: round(percentile(latencies, 99)),
          };
          progress(`embedded_sequential_writes ${kind} run ${r + 1}/${repeat}: ${f.per_s}/s, p50 ${f.p50_us} µs`);
          runs[kind].push(f);
        }
      }
      await db.close();
      const plain = summarize(runs.plain);
      const durable = summarize(runs.durable);
      results.embedded_sequential_writes = { plain, durable, plain_gain: round(plain.per_s / durable.per_s, 2) };
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }

    process.stdout.write(
      `${JSON.stringify({ bench: 'durability', machine: machine(), dataset: { size: args.size, ...SIZES[args.size] }, load: { duration_s: duration, repeat, connections }, results }, null, 2)}\n`,
    );
  } finally {
    await prepared.remove();
  }
}

await runBench(main);
