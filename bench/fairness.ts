/**
 * Fairness (issue 9, the starvation check): the p99 latency of cheap reads (point reads,
 * a few clients) while heavy reads run on other connections, against their p99 when the
 * server is otherwise idle. Target: at most 10x. Two heavy reads run back to back, each on
 * its own connection:
 *  - the report's example: a `for_each` over 100,000 parameter rows, each sorting a
 *    50-node label scan (a body of about 1.5 MB);
 *  - a compact one: counting every two-hop path of the graph (a short body, so it starts
 *    in the short lane and is moved out of it when it outruns the slice).
 * The same phases run against a server started with `--query-slice-ms 0` (long reads stay
 * in the short lane) for contrast.
 *
 *   node dist/bench/fairness.js [--size small|medium] [--duration S] [--cheap N] [--loop-rows N]
 *
 * Prints one JSON object on stdout; progress goes to stderr.
 */
import { fileURLToPath } from 'node:url';
import { DEFAULT_SEED, SIZES } from './lib/dataset.js';
import { startChild } from './lib/child.js';
import { machine, parseBenchArgs, positiveInt, positiveNumber, progress, runBench } from './lib/cli.js';
import { prepareDatabase } from './lib/prepare.js';
import { RawConnection, timedLoad, type TimedRun } from './lib/raw-client.js';
import { readScenarios } from './lib/scenarios.js';
import { percentile, round } from './lib/stats.js';
import { buildTruth } from './lib/truth.js';

const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const TAGS = 50;
const LOOP_ROWS = 100_000;

const read = (entries: unknown[], returns: string[], parameters?: object) =>
  JSON.stringify({ request_type: 'read', query: { read: { entries, returns } }, ...(parameters ? { parameters } : {}) });

/** The report's example: 100,000 iterations, each sorting the 50 Tag nodes and keeping 3. */
const loopRead = (rows: number) =>
  read(
    [
      {
        for_each: {
          param: 'rows',
          body: [
            {
              query: {
                name: 'top',
                root: {
                  values: {
                    properties: ['rank'],
                    input: {
                      range: {
                        start: { literal: 0 },
                        end: { literal: 3 },
                        input: {
                          order_by: {
                            property: 'rank',
                            order: 'desc',
                            input: {
                              nodes_where: { predicate: { eq: { left: { property: '$label' }, right: { constant: { string: 'Tag' } } } } },
                            },
                          },
                        },
                      },
                    },
                  },
                },
              },
            },
          ],
        },
      },
    ],
    ['top'],
    { rows: Array.from({ length: rows }, (_, k) => ({ k })) },
  );

/** Every two-hop path of the graph, counted. */
const twoHopsRead = read(
  [
    {
      query: {
        name: 'paths',
        root: {
          count: { input: { out: { label: 'FOLLOWS', input: { out: { label: 'FOLLOWS', input: { nodes: { reference: 'all' } } } } } } },
        },
      },
    },
  ],
  ['paths'],
);

interface Phase {
  cheap_p50_us: number;
  cheap_p99_us: number;
  cheap_requests: number;
  heavy_done?: Record<string, number>;
  heavy_ms?: Record<string, number>;
}

function phase(run: TimedRun): Phase {
  if (run.failures > 0) throw new Error(`${run.failures} cheap reads were not answered 200`);
  return {
    cheap_p50_us: round(percentile(run.latenciesUs, 50)),
    cheap_p99_us: round(percentile(run.latenciesUs, 99)),
    cheap_requests: run.requests,
  };
}

/** Sends `body` back to back on one connection until `stop`; returns the count and mean time. */
async function heavyLoop(port: number, body: string, stop: Promise<void>): Promise<{ done: number; ms: number }> {
  const c = await RawConnection.open(port);
  let stopped = false;
  void stop.then(() => (stopped = true));
  let done = 0;
  let total = 0;
  while (!stopped) {
    const t = performance.now();
    const answer = await c.post(body);
    if (answer.status !== 200) throw new Error(`a heavy read failed: ${answer.status} ${answer.body.slice(0, 300)}`);
    total += performance.now() - t;
    done++;
  }
  c.close();
  return { done, ms: done === 0 ? 0 : round(total / done) };
}

async function measure(
  dir: string,
  extra: string[],
  cheap: number,
  duration: number,
  next: () => string,
  loop: string,
): Promise<Record<string, Phase | number>> {
  const server = await startChild(
    'trellis',
    [],
    CLI,
    ['--port', '0', '--data', dir, ...extra],
    /listening on http:\/\/[^:]+:(\d+)/,
    /trellis ready/,
  );
  try {
    await timedLoad(server.port, cheap, 1, next); // warm-up
    const idle = phase(await timedLoad(server.port, cheap, duration, next));
    progress(`${extra.join(' ') || 'default'}: idle cheap p50 ${idle.cheap_p50_us} µs, p99 ${idle.cheap_p99_us} µs`);
    let stop!: () => void;
    const stopped = new Promise<void>((resolve) => (stop = resolve));
    const heavy = [heavyLoop(server.port, loop, stopped), heavyLoop(server.port, twoHopsRead, stopped)];
    await new Promise((resolve) => setTimeout(resolve, 500));
    const loaded = phase(await timedLoad(server.port, cheap, duration, next));
    stop();
    const [loops, twoHops] = await Promise.all(heavy);
    loaded.heavy_done = { for_each_100k: loops!.done, two_hop_paths: twoHops!.done };
    loaded.heavy_ms = { for_each_100k: loops!.ms, two_hop_paths: twoHops!.ms };
    progress(
      `${extra.join(' ') || 'default'}: cheap under heavy load p50 ${loaded.cheap_p50_us} µs, p99 ${loaded.cheap_p99_us} µs; heavy ${JSON.stringify(loaded.heavy_ms)} ms each`,
    );
    return { idle, under_heavy_load: loaded, p99_ratio: round(loaded.cheap_p99_us / idle.cheap_p99_us, 2) };
  } finally {
    await server.stop();
  }
}

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2), ['duration', 'cheap', 'loop-rows']);
  const loopRows = positiveInt(args.values['loop-rows'], LOOP_ROWS, 'loop-rows');
  const loop = loopRead(loopRows);
  const duration = positiveNumber(args.values.duration, 10, 'duration');
  const cheap = positiveInt(args.values.cheap, 4, 'cheap');
  const prepared = await prepareDatabase(args.size, DEFAULT_SEED);
  try {
    await prepared.db.query({
      request_type: 'write',
      query: {
        write: {
          entries: [
            {
              for_each: {
                param: 'tags',
                body: [{ query: { root: { add_n: { label: 'Tag', properties: [['rank', { expr: { param: 'rank' } }]] } } } }],
              },
            },
          ],
        },
      },
      parameters: { tags: Array.from({ length: TAGS }, (_, i) => ({ rank: (i * 37) % TAGS })) },
    });
    await prepared.close();
    const truth = buildTruth(DEFAULT_SEED, SIZES[args.size]);
    const point = readScenarios(truth, DEFAULT_SEED).find((s) => s.name === 'point_read')!;
    let i = 0;
    const next = () => point.requests[i++ % point.requests.length]!;
    const withSlice = await measure(prepared.dir, [], cheap, duration, next, loop);
    const withoutSlice = await measure(prepared.dir, ['--query-slice-ms', '0'], cheap, duration, next, loop);
    const report = {
      bench: 'fairness',
      machine: machine(),
      dataset: { size: args.size, ...SIZES[args.size], tags: TAGS },
      load: { cheap_connections: cheap, heavy_connections: 2, duration_s: duration, loop_rows: loopRows },
      default_server: withSlice,
      slice_disabled: withoutSlice,
      target: 'default_server.p99_ratio <= 10',
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    await prepared.remove();
  }
}

await runBench(main);
