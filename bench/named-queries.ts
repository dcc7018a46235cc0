/**
 * Named queries against their hand-written /v2/query equivalents (issue 11: the ratio of
 * the named query's throughput to the equivalent's must be at least 0.9). One server holds
 * the benchmark dataset and a project whose queries read it; the two forms of each query
 * run interleaved, run by run, so both see the same machine noise.
 *
 *   node dist/bench/named-queries.js [--size tiny|small|medium] [--duration S] [--repeat N] [--connections C]
 *
 * Prints one JSON object on stdout; progress goes to stderr.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DEFAULT_SEED, SIZES } from './lib/dataset.js';
import { startChild, type Child } from './lib/child.js';
import { machine, parseBenchArgs, positiveNumber, progress, runBench } from './lib/cli.js';
import { prepareDatabase } from './lib/prepare.js';
import { timedLoad, type Outgoing, type TimedRun } from './lib/raw-client.js';
import { requestFor, seededSequence } from './lib/scenarios.js';
import { median, percentile, round } from './lib/stats.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));

/** The dataset's schema (bench/lib/dataset.ts) and the queries measured. */
const PROJECT = `
N::User { uid: I64, name: String, age: I64, status: String, score: F64 }
E::FOLLOWS { From: User, To: User, Properties: { since: I64 } }

QUERY pointRead(id: ID) =>
    user <- N<User>(id)
    RETURN user

QUERY followCount(id: ID) =>
    n <- N<User>(id)::Out<FOLLOWS>::COUNT
    RETURN n
`;

interface Pair {
  readonly name: string;
  readonly named: (id: number) => Outgoing;
  readonly handWritten: (id: number) => Outgoing;
}

const PAIRS: readonly Pair[] = [
  {
    name: 'point_read',
    named: (id) => ({ body: `{"id":${id}}`, headers: '', path: '/pointRead' }),
    handWritten: (id) => requestFor.point_read(id),
  },
  {
    name: 'one_hop_count',
    named: (id) => ({ body: `{"id":${id}}`, headers: '', path: '/followCount' }),
    handWritten: (id) =>
      JSON.stringify({
        request_type: 'read',
        query_name: null,
        query: {
          read: {
            entries: [
              {
                query: {
                  name: 'n',
                  root: { count: { input: { out: { input: { nodes: { reference: { ids: [id] } } }, label: 'FOLLOWS' } } } },
                },
              },
            ],
            returns: ['n'],
          },
        },
      }),
  },
];

interface Figures {
  p50_us: number;
  requests_per_s: number;
}

function figures(run: TimedRun): Figures {
  if (run.failures > 0) throw new Error(`${run.failures} answers were not 200`);
  return { p50_us: round(percentile(run.latenciesUs, 50)), requests_per_s: Math.round(run.requests / run.seconds) };
}

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2), ['duration', 'connections']);
  const duration = positiveNumber(args.values.duration, 3, 'duration');
  const connections = positiveNumber(args.values.connections, 8, 'connections');
  const repeat = args.repeat === 1 ? 5 : args.repeat;
  const prepared = await prepareDatabase(args.size, DEFAULT_SEED);
  const project = mkdtempSync(join(tmpdir(), 'trellis-bench-project-'));
  const children: Child[] = [];
  try {
    await prepared.close();
    writeFileSync(join(project, 'trellis.json'), '{}');
    writeFileSync(join(project, 'bench.hx'), PROJECT);
    const server = await startChild(
      'trellis',
      [],
      CLI,
      ['--port', '0', '--data', prepared.dir, '--project', project],
      /listening on http:\/\/[^:]+:(\d+)/,
      /trellis ready/,
    );
    children.push(server);
    const nodes = SIZES[args.size].nodes;
    const results: Record<string, unknown> = {};
    for (const pair of PAIRS) {
      const runs: Record<'named' | 'hand_written', Figures[]> = { named: [], hand_written: [] };
      for (let r = 0; r < repeat; r++) {
        for (const form of ['named', 'hand_written'] as const) {
          const next = seededSequence(DEFAULT_SEED + r);
          const build = form === 'named' ? pair.named : pair.handWritten;
          const f = figures(await timedLoad(server.port, connections, duration, () => build(Math.floor(next() * nodes))));
          progress(`${pair.name} ${form} run ${r + 1}/${repeat}: ${f.requests_per_s} req/s, p50 ${f.p50_us} µs`);
          runs[form].push(f);
        }
      }
      const ratios = runs.named.map((n, i) => n.requests_per_s / runs.hand_written[i]!.requests_per_s);
      results[pair.name] = {
        named: { requests_per_s: median(runs.named.map((f) => f.requests_per_s)), p50_us: median(runs.named.map((f) => f.p50_us)) },
        hand_written: {
          requests_per_s: median(runs.hand_written.map((f) => f.requests_per_s)),
          p50_us: median(runs.hand_written.map((f) => f.p50_us)),
        },
        throughput_ratio_per_run: ratios.map((x) => round(x, 3)),
        throughput_ratio_median: round(median(ratios), 3),
      };
    }
    const report = {
      bench: 'named-queries',
      machine: machine(),
      dataset: { size: args.size, ...SIZES[args.size] },
      load: { connections, duration_s: duration, repeat },
      results,
      target: 'throughput_ratio_median >= 0.9 for every query',
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    for (const c of children) await c.stop();
    await prepared.remove();
    rmSync(project, { recursive: true, force: true });
  }
}

await runBench(main);
