/**
 * What the change log (docs/replication.md) costs a writer that does not replicate: write
 * throughput of this build against another build (`--against DIR`, the `dist` folder of,
 * say, main), embedded (Database.queryText, no HTTP), in one process. Runs alternate
 * between the two builds, so each median sees the same noise; each build writes into a
 * database of its own that grows alike.
 *
 *   node dist/bench/replication-cost.js --against /tmp/main/dist [--duration S] [--repeat N] [--only a,b]
 *
 * Workloads: one-node writes one after another (commit-bound), 32 one-node writes in
 * flight (their commits group: CPU-bound), and for_each batches of 1,000 nodes with five
 * properties, and of 1,000 edges. Prints one JSON object on stdout; progress on stderr.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import * as here from '../src/index.js';
import { edgeBatchRequest, nodeBatchRequest, nodeRows } from './lib/load-trellis.js';
import { DEFAULT_SEED } from './lib/dataset.js';
import { machine, parseBenchArgs, positiveNumber, progress, runBench } from './lib/cli.js';
import { median, round } from './lib/stats.js';

type Db = Awaited<ReturnType<typeof here.open>>;
type Open = (path: string) => Promise<Db>;

interface Variant {
  readonly name: string;
  readonly db: Db;
  /** Nodes this variant's database holds (edges connect them). */
  nodes: number;
}

const one = (i: number) =>
  JSON.stringify({
    request_type: 'write',
    query: {
      write: {
        entries: [{ query: { root: { add_n: { label: 'W', properties: [['i', { value: { i64: i } }]] } } } }],
        returns: [],
      },
    },
  });

/** A workload: sends requests until `until`, returns how many rows it wrote. */
type Workload = (v: Variant, until: number) => Promise<number>;

/** One write request; an error answer throws (queryText rejects with it). */
async function check(v: Variant, text: string): Promise<void> {
  await v.db.queryText(text);
}

const WORKLOADS: Record<string, Workload> = {
  single_sequential: async (v, until) => {
    let n = 0;
    while (performance.now() < until) await check(v, one(n++));
    return n;
  },
  single_concurrent_32: async (v, until) => {
    let n = 0;
    const lane = async () => {
      while (performance.now() < until) await check(v, one(n++));
    };
    await Promise.all(Array.from({ length: 32 }, lane));
    return n;
  },
  nodes_1000: async (v, until) => {
    let n = 0;
    while (performance.now() < until) {
      await check(v, JSON.stringify(nodeBatchRequest(nodeRows(DEFAULT_SEED, v.nodes, v.nodes + 1000))));
      v.nodes += 1000;
      n += 1000;
    }
    return n;
  },
  edges_1000: async (v, until) => {
    let n = 0;
    let x = 12345;
    const pick = () => {
      x = (x * 1103515245 + 12345) >>> 0;
      return x % v.nodes;
    };
    while (performance.now() < until) {
      const rows = Array.from({ length: 1000 }, () => ({ from: pick(), to: pick(), since: 2000 }));
      await check(v, JSON.stringify(edgeBatchRequest(rows)));
      n += 1000;
    }
    return n;
  },
};

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2), ['duration', 'against']);
  const against = args.values.against;
  if (against === undefined) throw new Error('give --against DIR: the dist folder of the build to compare with');
  const duration = positiveNumber(args.values.duration, 4, 'duration');
  const repeat = args.repeat === 1 ? 5 : args.repeat;
  const other = (await import(pathToFileURL(join(resolve(against), 'src/index.js')).href)) as { open: Open };
  const dirs = [mkdtempSync(join(tmpdir(), 'trellis-cost-a-')), mkdtempSync(join(tmpdir(), 'trellis-cost-b-'))];
  const variants: Variant[] = [
    { name: 'this', db: await here.open(dirs[0]!), nodes: 0 },
    { name: 'against', db: await other.open(dirs[1]!), nodes: 0 },
  ];
  try {
    // Both databases start with the same nodes, so the edge workload has endpoints.
    for (const v of variants) {
      await check(v, JSON.stringify(nodeBatchRequest(nodeRows(DEFAULT_SEED, 0, 10_000))));
      v.nodes = 10_000;
    }
    const results: Record<string, object> = {};
    for (const [name, workload] of Object.entries(WORKLOADS)) {
      if (args.only !== null && !args.only.includes(name)) continue;
      const perS: Record<string, number[]> = { this: [], against: [] };
      for (let r = 0; r < repeat; r++) {
        // Alternate which build goes first.
        const order = r % 2 === 0 ? variants : [...variants].reverse();
        for (const v of order) {
          const start = performance.now();
          const rows = await workload(v, start + duration * 1000);
          const rate = rows / ((performance.now() - start) / 1000);
          perS[v.name]!.push(rate);
          progress(`${name} ${v.name} run ${r + 1}/${repeat}: ${Math.round(rate)} rows/s`);
        }
      }
      const ratios = perS.this!.map((t, i) => t / perS.against![i]!);
      results[name] = {
        this_rows_per_s: Math.round(median(perS.this!)),
        against_rows_per_s: Math.round(median(perS.against!)),
        ratio_median: round(median(ratios), 3),
        ratio_min: round(Math.min(...ratios), 3),
        ratio_max: round(Math.max(...ratios), 3),
      };
    }
    return void console.log(JSON.stringify({ machine: machine(), duration_s: duration, repeat, against, results }, null, 2));
  } finally {
    for (const v of variants) await v.db.close();
    for (const d of dirs) rmSync(d, { recursive: true, force: true });
  }
}

runBench(main);
