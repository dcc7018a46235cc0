/**
 * Weighted shortest path, Trellis against Kùzu (issue 27), both embedded. The dataset of
 * `--size` with a float weight on every FOLLOWS edge (dataset.ts edgeWeight: seeded
 * uniform in [1, 10), three decimals; the other benchmarks load no weights) is written
 * once as CSV files; Trellis loads them by the offline `trellis import`, Kùzu by COPY FROM
 * in a child process (bench/peers/kuzu-wpath.ts, its own build next to its node_modules).
 *
 * The queries: `--pairs` (200) seeded (source, target) pairs of distinct users, the path
 * of least total weight over FOLLOWS edges in their direction.
 *
 * - Trellis: a `weighted_shortest_path` request (`weight: {"property": "weight"}`, Dijkstra),
 *   its text built beforehand, sent through `db.queryText` as bench/embedded-bench.ts does.
 *   It answers the whole path (nodes, edges, length, weight).
 * - Kùzu: a prepared statement, `MATCH (a:User {uid: $a})-[e:FOLLOWS* WSHORTEST(weight)]->
 *   (b:User {uid: $b}) RETURN cost(e)`, answering the cost alone. Kùzu bounds the hops of
 *   the pattern by its `var_length_extend_max_depth` (30 unless `--kuzu-max-depth`);
 *   Trellis has no bound, so the report gives the most hops of any path found.
 *
 * Correctness first: every pair's cost from both systems, and from a plain Dijkstra over
 * the generator's edges in this process, must agree (to 1e-9 relative; sums of the same
 * weights in another order may differ in the last bits), and so must the pairs with no
 * path. Any disagreement is listed and the bench fails before timing anything.
 *
 * Then `--rounds` (3) interleaved rounds, the first system alternating: in each, every pair
 * once per system, one query at a time, each timed (Kùzu's in its own process, so the pipe
 * is not counted). Per round and system: queries/s and median latency; the ratio is
 * Trellis's q/s over Kùzu's (above 1: Trellis is faster).
 *
 *   node dist/bench/weighted-path.js [--size small|medium] [--pairs 200] [--rounds 3] [--seed N]
 *        [--kuzu-max-depth N] [--markdown FILE]
 *
 * Prints one JSON object on stdout; progress on stderr.
 */
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { open, type Database } from '../src/index.js';
import { MinHeap } from '../src/search/heap.js';
import { DEFAULT_SEED, edgeWeight, generateEdges, SIZES, type DatasetSize } from './lib/dataset.js';
import { writeDatasetCsv } from './lib/import-files.js';
import { machine, parseBenchArgs, positiveInt, progress, runBench } from './lib/cli.js';
import { seededSequence } from './lib/scenarios.js';
import { median, percentile, round } from './lib/stats.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const KUZU_WPATH = join(ROOT, 'bench/peers/dist/peers/kuzu-wpath.js');
const TOLERANCE = 1e-9;

type Pair = readonly [number, number];

/** `count` pairs of distinct users, the same for every run of (seed, size). */
export function drawPairs(seed: number, nodes: number, count: number): Pair[] {
  const next = seededSequence(seed ^ 0x77a7);
  const pairs: Pair[] = [];
  while (pairs.length < count) {
    const a = Math.floor(next() * nodes);
    const b = Math.floor(next() * nodes);
    if (a !== b) pairs.push([a, b]);
  }
  return pairs;
}

/** The request Trellis answers for one pair (node i of the import is user i). */
export function wpathRequest(source: number, target: number): string {
  return JSON.stringify({
    request_type: 'read',
    query: {
      read: {
        entries: [
          {
            query: {
              name: 'p',
              root: {
                weighted_shortest_path: {
                  source: { ids: [source] },
                  target: { ids: [target] },
                  label: 'FOLLOWS',
                  direction: 'out',
                  weight: { property: 'weight' },
                },
              },
            },
          },
        ],
        returns: ['p'],
      },
    },
  });
}

interface Found {
  readonly cost: number | null;
  readonly hops: number | null;
}

function trellisAnswer(text: string): Found {
  const { p } = JSON.parse(text) as { p: { length: number; weight: number }[] };
  const path = p[0];
  return path === undefined ? { cost: null, hops: null } : { cost: path.weight, hops: path.length };
}

/** The reference: Dijkstra over the generator's edges, stopping at the target. */
function referenceCosts(seed: number, size: DatasetSize, pairs: readonly Pair[]): (number | null)[] {
  const { from, to } = generateEdges(seed, size);
  const n = size.nodes;
  const start = new Uint32Array(n + 1);
  for (let k = 0; k < from.length; k++) start[from[k]! + 1]!++;
  for (let i = 0; i < n; i++) start[i + 1]! += start[i]!;
  const fill = start.slice(0, n);
  const head = new Uint32Array(from.length);
  const weight = new Float64Array(from.length);
  for (let k = 0; k < from.length; k++) {
    const at = fill[from[k]!]!++;
    head[at] = to[k]!;
    weight[at] = edgeWeight(seed, k);
  }
  const dist = new Float64Array(n);
  const done = new Uint8Array(n);
  return pairs.map(([source, target]) => {
    dist.fill(Infinity);
    done.fill(0);
    dist[source] = 0;
    const queue = new MinHeap();
    queue.push(0, source);
    while (queue.size > 0) {
      const u = queue.topId();
      queue.pop();
      if (done[u] === 1) continue;
      done[u] = 1;
      if (u === target) return dist[u]!;
      for (let e = start[u]!; e < start[u + 1]!; e++) {
        const v = head[e]!;
        const d = dist[u]! + weight[e]!;
        if (d < dist[v]!) {
          dist[v] = d;
          queue.push(d, v);
        }
      }
    }
    return null;
  });
}

const same = (a: number | null, b: number | null) =>
  a === null || b === null ? a === b : Math.abs(a - b) <= TOLERANCE * Math.max(1, Math.abs(a), Math.abs(b));

/** The Kùzu child: one JSON line per command. */
class KuzuChild {
  private readonly lines: AsyncIterator<string>;
  private constructor(private readonly proc: ReturnType<typeof spawn>) {
    this.lines = createInterface({ input: proc.stdout! })[Symbol.asyncIterator]();
  }

  static async start(args: string[]): Promise<{ child: KuzuChild; ready: Record<string, unknown> }> {
    const proc = spawn(process.execPath, [KUZU_WPATH, ...args], { stdio: ['pipe', 'pipe', 'inherit'] });
    const child = new KuzuChild(proc);
    return { child, ready: await child.next() };
  }

  private async next(): Promise<Record<string, unknown>> {
    const { value, done } = await this.lines.next();
    if (done === true) throw new Error('the Kùzu child exited');
    const message = JSON.parse(value) as Record<string, unknown>;
    if (typeof message.error === 'string') throw new Error(`kuzu: ${message.error}`);
    return message;
  }

  async ask(command: string): Promise<Record<string, unknown>> {
    this.proc.stdin!.write(command + '\n');
    return this.next();
  }

  async quit(): Promise<number> {
    if (this.proc.exitCode !== null) return 0;
    const exited = new Promise((resolve) => this.proc.once('exit', resolve));
    const closed = await this.ask('quit').catch(() => ({ rssMb: 0 }));
    this.proc.stdin!.end();
    await exited;
    return Number(closed.rssMb ?? 0);
  }

  kill(): void {
    if (this.proc.exitCode === null) this.proc.kill('SIGKILL');
  }
}

interface RoundFigures {
  q_per_s: number;
  p50_ms: number;
  p99_ms: number;
  total_s: number;
}

function figures(lat: readonly number[], totalMs: number): RoundFigures {
  const sorted = [...lat].sort((a, b) => a - b);
  return {
    q_per_s: round(lat.length / (totalMs / 1000), 3),
    p50_ms: round(median(sorted), 2),
    p99_ms: round(percentile(sorted, 99), 2),
    total_s: round(totalMs / 1000, 3),
  };
}

async function trellisRound(db: Database, requests: readonly string[]): Promise<RoundFigures> {
  const lat: number[] = [];
  const start = performance.now();
  for (const text of requests) {
    const s = performance.now();
    await db.queryText(text);
    lat.push(performance.now() - s);
  }
  return figures(lat, performance.now() - start);
}

/** Node i is user i, and a few edges carry the generator's weights. */
async function checkLoad(db: Database, seed: number, size: DatasetSize): Promise<void> {
  const { from, to } = generateEdges(seed, size);
  db.store.read((r) => {
    if (r.nodeCount() !== size.nodes || r.edgeCount() !== size.edges)
      throw new Error(`trellis holds ${r.nodeCount()} nodes, ${r.edgeCount()} edges`);
    for (const id of [0, 1, size.nodes >> 1, size.nodes - 1]) {
      if (Number(r.getNode(id)?.props.uid) !== id) throw new Error(`trellis node ${id} is not user ${id}`);
    }
  });
  // The first edge of the generator, through a weighted path of one hop.
  const answer = trellisAnswer(await db.queryText(wpathRequest(from[0]!, to[0]!)));
  if (answer.cost === null || answer.cost > edgeWeight(seed, 0)) throw new Error(`trellis: edge 0 gives ${JSON.stringify(answer)}`);
}

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2), ['pairs', 'rounds', 'seed', 'kuzu-max-depth', 'markdown']);
  const size = SIZES[args.size];
  const seed = args.values.seed === undefined ? DEFAULT_SEED : Number(args.values.seed);
  const pairCount = positiveInt(args.values.pairs, 200, 'pairs');
  const rounds = positiveInt(args.values.rounds, 3, 'rounds');
  if (!existsSync(KUZU_WPATH)) throw new Error(`${KUZU_WPATH} is missing: build the peers (tsc -p bench/peers/tsconfig.json)`);

  const dir = mkdtempSync(join(tmpdir(), 'bench-wpath-'));
  let kuzu: KuzuChild | null = null;
  let db: Database | null = null;
  try {
    progress(`${args.size}: writing the CSV files with edge weights`);
    const files = await writeDatasetCsv(dir, seed, size, { weights: true });
    const pairs = drawPairs(seed, size.nodes, pairCount);
    const pairsFile = join(dir, 'pairs.json');
    writeFileSync(pairsFile, JSON.stringify(pairs));

    progress('trellis import');
    const t0 = performance.now();
    const imported = spawnSync(
      process.execPath,
      [CLI, 'import', '--data', join(dir, 'db'), '--mapping', files.mapping, '--progress', 'none'],
      {
        encoding: 'utf8',
      },
    );
    if (imported.status !== 0) throw new Error(`trellis import failed: ${imported.stdout}${imported.stderr}`);
    const importMs = Math.round(performance.now() - t0);
    db = await open(join(dir, 'db'));
    await checkLoad(db, seed, size);

    progress('kuzu COPY FROM');
    const maxDepth = args.values['kuzu-max-depth'];
    const started = await KuzuChild.start([
      '--users',
      files.users,
      '--follows',
      files.follows,
      '--pairs',
      pairsFile,
      ...(maxDepth === undefined ? [] : ['--max-depth', String(positiveInt(maxDepth, 30, 'kuzu-max-depth'))]),
    ]);
    kuzu = started.child;
    const kuzuInfo = started.ready;
    if (kuzuInfo.edges !== size.edges) throw new Error(`kuzu holds ${String(kuzuInfo.edges)} edges`);
    progress(`kuzu ${String(kuzuInfo.version)} loaded in ${String(kuzuInfo.copyMs)} ms (max depth ${String(kuzuInfo.maxDepth)})`);

    // Correctness (also the warm-up of both systems).
    progress('checking every pair against the reference');
    const requests = pairs.map(([a, b]) => wpathRequest(a, b));
    const trellis: Found[] = [];
    for (const text of requests) trellis.push(trellisAnswer(await db.queryText(text)));
    const kuzuCosts = (await kuzu.ask('costs')).costs as (number | null)[];
    const reference = referenceCosts(seed, size, pairs);
    const mismatches = pairs.flatMap(([a, b], i) =>
      same(trellis[i]!.cost, reference[i]!) && same(kuzuCosts[i]!, reference[i]!)
        ? []
        : [
            {
              source: a,
              target: b,
              reference: reference[i],
              trellis: trellis[i]!.cost,
              trellis_hops: trellis[i]!.hops,
              kuzu: kuzuCosts[i],
            },
          ],
    );
    const hops = trellis.flatMap((f) => (f.hops === null ? [] : [f.hops]));
    const correctness = {
      pairs: pairs.length,
      mismatches: mismatches.length,
      unreachable: {
        reference: reference.filter((c) => c === null).length,
        trellis: trellis.filter((f) => f.cost === null).length,
        kuzu: kuzuCosts.filter((c) => c === null).length,
      },
      hops: { median: median(hops), max: Math.max(...hops) },
      cost: { median: round(median(reference.flatMap((c) => (c === null ? [] : [c]))), 3) },
    };
    progress(`correctness: ${JSON.stringify(correctness)}`);
    if (mismatches.length > 0) {
      for (const m of mismatches.slice(0, 20)) progress(`MISMATCH ${JSON.stringify(m)}`);
      throw new Error(`${mismatches.length} of ${pairs.length} pairs disagree (listed above)`);
    }

    const perRound: { trellis: RoundFigures; kuzu: RoundFigures; ratio: number; load: number }[] = [];
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? ['trellis', 'kuzu'] : ['kuzu', 'trellis'];
      const got: Record<string, RoundFigures> = {};
      for (const system of order) {
        if (system === 'trellis') got.trellis = await trellisRound(db, requests);
        else {
          const answer = await kuzu.ask('round');
          got.kuzu = figures(answer.lat as number[], answer.totalMs as number);
        }
      }
      // Both ran the same pairs: the ratio of their times (q/s under a second lose digits when rounded).
      const ratio = round(got.kuzu!.total_s / got.trellis!.total_s, 2);
      perRound.push({ trellis: got.trellis!, kuzu: got.kuzu!, ratio, load: round(loadavg()[0]!, 2) });
      progress(
        `round ${r + 1}/${rounds} (${order.join(' then ')}): trellis ${got.trellis!.q_per_s} q/s (p50 ${got.trellis!.p50_ms} ms), ` +
          `kuzu ${got.kuzu!.q_per_s} q/s (p50 ${got.kuzu!.p50_ms} ms), ratio ${ratio}, load ${perRound.at(-1)!.load}`,
      );
    }
    const kuzuRssMb = await kuzu.quit();
    kuzu = null;
    const report = {
      bench: 'weighted-path',
      machine: machine(),
      dataset: { size: args.size, ...size, seed, weights: 'uniform [1, 10), 3 decimals' },
      load: { trellis_import_ms: importMs, kuzu_copy_ms: kuzuInfo.copyMs },
      kuzu: { version: kuzuInfo.version, var_length_extend_max_depth: kuzuInfo.maxDepth, threads: kuzuInfo.threads, rss_mb: kuzuRssMb },
      correctness,
      rounds: perRound,
      median: {
        trellis_q_per_s: round(median(perRound.map((r) => r.trellis.q_per_s)), 3),
        kuzu_q_per_s: round(median(perRound.map((r) => r.kuzu.q_per_s)), 3),
        trellis_p50_ms: round(median(perRound.map((r) => r.trellis.p50_ms)), 2),
        kuzu_p50_ms: round(median(perRound.map((r) => r.kuzu.p50_ms)), 2),
        ratio: round(median(perRound.map((r) => r.ratio)), 2),
      },
      loadavg_end: loadavg().map((l) => round(l, 2)),
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
    if (args.values.markdown !== undefined) {
      const lines = [
        '| round | Trellis q/s | Trellis p50 ms | Kùzu q/s | Kùzu p50 ms | Trellis / Kùzu |',
        '|---|---:|---:|---:|---:|---:|',
        ...perRound.map(
          (r, i) => `| ${i + 1} | ${r.trellis.q_per_s} | ${r.trellis.p50_ms} | ${r.kuzu.q_per_s} | ${r.kuzu.p50_ms} | ${r.ratio} |`,
        ),
        `| median | ${report.median.trellis_q_per_s} | ${report.median.trellis_p50_ms} | ${report.median.kuzu_q_per_s} | ${report.median.kuzu_p50_ms} | **${report.median.ratio}** |`,
      ];
      writeFileSync(args.values.markdown, lines.join('\n') + '\n');
    }
  } finally {
    kuzu?.kill();
    await db?.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

await runBench(main);
