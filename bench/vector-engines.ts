/**
 * The vector-search engine decision for issue 10, measured: the TypeScript HNSW
 * (src/search/hnsw.ts) on its LMDB records (src/store/hnsw-records.ts), as the database
 * would run it, against usearch and hnswlib-node in memory, on the same random vectors.
 * The TypeScript HNSW over a plain Map is measured too, to separate the algorithm's cost
 * from the storage's.
 *
 *   node dist/bench/vector-engines.js [--sizes 10000,50000] [--dim 128] [--queries 200]
 *        [--removes 200] [--seed 1] [--engines trellis-lmdb,trellis-memory,usearch,hnswlib]
 *        [--data uniform|clustered]
 *
 * Uniform vectors (components uniform in [-1, 1)) are close to the hardest case for any
 * HNSW: in 128 dimensions the nearest neighbours are hardly nearer than the rest, so every
 * engine reaches the same low recall at ef = 100 and visits many elements. `clustered`
 * draws points around 64 random centres (Gaussian, sigma 0.15 per component), closer to
 * real embeddings.
 *
 * Per engine and size: build time (the LMDB index inserts in write transactions of 1,000
 * elements, each committed), query latency (k = 10, ef = 100; the LMDB index searches in a
 * fresh read transaction per query, as Store.read does), recall@10 against brute force,
 * and for the TypeScript HNSW the time of a single remove with its repair. Every engine runs
 * single-threaded (usearch is told threads = 1). Prints one JSON document; progress goes
 * to stderr. usearch and hnswlib-node live in bench/peers (npm ci --prefix bench/peers),
 * never in Trellis's own dependencies.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { open } from 'lmdb';
import { hnswConfig, insert, remove, search, type HnswRecord, type HnswStorage, type Neighbour } from '../src/search/hnsw.js';
import { cosine } from '../src/search/vector-math.js';
import { HNSW_DB_OPTIONS, HnswRecords } from '../src/store/hnsw-records.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const K = 10;
const EF = 100;
const M = 16;
const EF_CONSTRUCTION = 200;
const BATCH = 1000;
const WARMUP = 20;

interface Args {
  sizes: number[];
  dim: number;
  queries: number;
  removes: number;
  seed: number;
  engines: string[];
  data: 'uniform' | 'clustered';
}

function parseArgs(argv: string[]): Args {
  const args: Args = {
    sizes: [10_000, 50_000],
    dim: 128,
    queries: 200,
    removes: 200,
    seed: 1,
    engines: ['trellis-lmdb', 'trellis-memory', 'usearch', 'hnswlib'],
    data: 'uniform',
  };
  for (let i = 0; i < argv.length; i += 2) {
    const value = argv[i + 1] ?? '';
    switch (argv[i]) {
      case '--sizes':
        args.sizes = value.split(',').map(Number);
        break;
      case '--dim':
        args.dim = Number(value);
        break;
      case '--queries':
        args.queries = Number(value);
        break;
      case '--removes':
        args.removes = Number(value);
        break;
      case '--seed':
        args.seed = Number(value);
        break;
      case '--engines':
        args.engines = value.split(',');
        break;
      case '--data':
        if (value !== 'uniform' && value !== 'clustered') throw new Error('--data is uniform or clustered');
        args.data = value;
        break;
      default:
        throw new Error(`unknown option ${argv[i]}`);
    }
  }
  return args;
}

/** mulberry32: a seeded uniform source in [0, 1), the same vectors for every engine. */
function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let t = s;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

function randomVectors(random: () => number, n: number, dim: number): Float32Array[] {
  const out: Float32Array[] = [];
  for (let i = 0; i < n; i++) {
    const v = new Float32Array(dim);
    for (let j = 0; j < dim; j++) v[j] = random() * 2 - 1;
    out.push(v);
  }
  return out;
}

const CENTRES = 64;
const SIGMA = 0.15;

/** Points around random centres, Gaussian per component (Box-Muller). */
function clusteredVectors(random: () => number, centres: Float32Array[], n: number, dim: number): Float32Array[] {
  const out: Float32Array[] = [];
  for (let i = 0; i < n; i++) {
    const c = centres[Math.floor(random() * centres.length)]!;
    const v = new Float32Array(dim);
    for (let j = 0; j < dim; j++) v[j] = c[j]! + SIGMA * Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    out.push(v);
  }
  return out;
}

function exactNearest(vectors: Float32Array[], query: Float32Array): number[] {
  const all: Neighbour[] = vectors.map((v, id) => ({ id, distance: cosine(query, v) }));
  all.sort((a, b) => a.distance - b.distance || a.id - b.id);
  return all.slice(0, K).map((n) => n.id);
}

const percentile = (sorted: number[], p: number): number => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))]!;
const round = (x: number, digits = 1): number => Math.round(x * 10 ** digits) / 10 ** digits;

/** Latency percentiles in µs and recall@10 of `run` over the queries (after a warm-up). */
function measureQueries(queries: Float32Array[], truth: number[][], warmup: Float32Array[], run: (q: Float32Array) => number[]) {
  for (const q of warmup) run(q);
  const micros: number[] = [];
  let hits = 0;
  queries.forEach((q, i) => {
    const start = process.hrtime.bigint();
    const ids = run(q);
    micros.push(Number(process.hrtime.bigint() - start) / 1000);
    const want = new Set(truth[i]);
    for (const id of ids) if (want.has(id)) hits++;
  });
  micros.sort((a, b) => a - b);
  return {
    queryP50Us: round(percentile(micros, 0.5)),
    queryP99Us: round(percentile(micros, 0.99)),
    recallAt10: round(hits / (queries.length * K), 4),
  };
}

interface RemoveTimes {
  removeP50Us: number;
  removeMeanUs: number;
  removeMaxUs: number;
}

function removeTimes(micros: number[]): RemoveTimes {
  const sorted = [...micros].sort((a, b) => a - b);
  return {
    removeP50Us: round(percentile(sorted, 0.5)),
    removeMeanUs: round(sorted.reduce((s, x) => s + x, 0) / sorted.length),
    removeMaxUs: round(sorted[sorted.length - 1]!),
  };
}

interface Workload {
  n: number;
  dim: number;
  vectors: Float32Array[];
  queries: Float32Array[];
  warmup: Float32Array[];
  truth: number[][];
  /** Elements the remove measurement takes out, in this order. */
  doomed: number[];
  seed: number;
}

const elapsedMs = (start: bigint): number => Number(process.hrtime.bigint() - start) / 1e6;

function trellisLmdb(w: Workload) {
  const dir = mkdtempSync(join(tmpdir(), 'trellis-vectors-'));
  // The store's own environment options (src/store/open.ts).
  const env = open({ path: dir, noSubdir: false, maxDbs: 8, pageSize: 16384, eventTurnBatching: false });
  try {
    const db = env.openDB<Buffer, Buffer>('hnsw', HNSW_DB_OPTIONS);
    const records = new HnswRecords(db, 1);
    const config = hnswConfig('cosine', { random: seeded(w.seed + 1) });
    const start = process.hrtime.bigint();
    for (let from = 0; from < w.n; from += BATCH) {
      env.transactionSync(() => {
        for (let id = from; id < Math.min(w.n, from + BATCH); id++) insert(records, config, id, w.vectors[id]!);
      });
      if (from % 10_000 === 0) process.stderr.write(`  trellis-lmdb ${from}/${w.n} ${Math.round(elapsedMs(start) / 1000)} s\n`);
    }
    const buildMs = elapsedMs(start);
    const fileBytes = statSync(join(dir, 'data.mdb')).size;
    const queries = measureQueries(w.queries, w.truth, w.warmup, (q) => {
      env.resetReadTxn();
      const found = search(records, config, q, K, EF);
      env.resetReadTxn();
      return found.map((n) => n.id);
    });
    // A single remove with its repair, each in its own write transaction: the call, and
    // the transaction with its commit.
    const calls: number[] = [];
    const transactions: number[] = [];
    for (const id of w.doomed) {
      const txStart = process.hrtime.bigint();
      env.transactionSync(() => {
        const callStart = process.hrtime.bigint();
        remove(records, config, id);
        calls.push(Number(process.hrtime.bigint() - callStart) / 1000);
      });
      transactions.push(Number(process.hrtime.bigint() - txStart) / 1000);
    }
    const tx = removeTimes(transactions);
    return {
      buildMs: round(buildMs),
      ...queries,
      ...removeTimes(calls),
      removeTransactionP50Us: tx.removeP50Us,
      fileMiB: round(fileBytes / 2 ** 20),
    };
  } finally {
    env.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

class MapStorage implements HnswStorage {
  private readonly records = new Map<number, HnswRecord>();
  private top: { id: number; level: number } | undefined;
  get = (id: number) => this.records.get(id);
  put = (id: number, r: HnswRecord) => void this.records.set(id, r);
  remove = (id: number) => void this.records.delete(id);
  entry = () => this.top;
  setEntry = (e: { id: number; level: number } | undefined) => void (this.top = e);
  ids = () => this.records.keys();
}

function trellisMemory(w: Workload) {
  const storage = new MapStorage();
  const config = hnswConfig('cosine', { random: seeded(w.seed + 1) });
  const start = process.hrtime.bigint();
  for (let id = 0; id < w.n; id++) insert(storage, config, id, w.vectors[id]!);
  const buildMs = elapsedMs(start);
  const queries = measureQueries(w.queries, w.truth, w.warmup, (q) => search(storage, config, q, K, EF).map((n) => n.id));
  const calls: number[] = [];
  for (const id of w.doomed) {
    const callStart = process.hrtime.bigint();
    remove(storage, config, id);
    calls.push(Number(process.hrtime.bigint() - callStart) / 1000);
  }
  return { buildMs: round(buildMs), ...queries, ...removeTimes(calls) };
}

const peers = createRequire(join(ROOT, 'bench/peers/package.json'));

interface UsearchIndex {
  add(keys: BigUint64Array, vectors: Float32Array, threads?: number): void;
  search(vector: Float32Array, k: number, threads: number): { keys: BigUint64Array };
}
type UsearchModule = { Index: new (config: Record<string, unknown>) => UsearchIndex };

function usearch(w: Workload) {
  const { Index } = peers('usearch') as UsearchModule;
  const index = new Index({
    dimensions: w.dim,
    metric: 'cos',
    quantization: 'f32',
    connectivity: M,
    expansion_add: EF_CONSTRUCTION,
    expansion_search: EF,
    multi: false,
  });
  const flat = new Float32Array(w.n * w.dim);
  w.vectors.forEach((v, i) => flat.set(v, i * w.dim));
  const keys = BigUint64Array.from({ length: w.n }, (_, i) => BigInt(i));
  const start = process.hrtime.bigint();
  index.add(keys, flat, 1);
  const buildMs = elapsedMs(start);
  const queries = measureQueries(w.queries, w.truth, w.warmup, (q) => Array.from(index.search(q, K, 1).keys, Number));
  return { buildMs: round(buildMs), ...queries };
}

interface HnswlibIndex {
  initIndex(maxElements: number, m?: number, efConstruction?: number, randomSeed?: number): void;
  addPoint(point: number[], label: number): void;
  setEf(ef: number): void;
  searchKnn(query: number[], k: number): { neighbors: number[] };
}
type HnswlibModule = { HierarchicalNSW: new (space: string, dim: number) => HnswlibIndex };

function hnswlib(w: Workload) {
  const { HierarchicalNSW } = peers('hnswlib-node') as HnswlibModule;
  const index = new HierarchicalNSW('cosine', w.dim);
  index.initIndex(w.n, M, EF_CONSTRUCTION, w.seed);
  // hnswlib-node takes plain arrays: converted before the clock starts.
  const points = w.vectors.map((v) => Array.from(v));
  const start = process.hrtime.bigint();
  points.forEach((p, id) => index.addPoint(p, id));
  const buildMs = elapsedMs(start);
  index.setEf(EF);
  const arrays = new Map<Float32Array, number[]>();
  for (const q of [...w.warmup, ...w.queries]) arrays.set(q, Array.from(q));
  const queries = measureQueries(w.queries, w.truth, w.warmup, (q) => index.searchKnn(arrays.get(q)!, K).neighbors);
  return { buildMs: round(buildMs), ...queries };
}

const ENGINES: Record<string, (w: Workload) => Record<string, number>> = {
  'trellis-lmdb': trellisLmdb,
  'trellis-memory': trellisMemory,
  usearch,
  hnswlib,
};

function workload(n: number, args: Args): Workload {
  const random = seeded(args.seed * 1000 + n);
  const centres = randomVectors(random, CENTRES, args.dim);
  const draw = (count: number) =>
    args.data === 'uniform' ? randomVectors(random, count, args.dim) : clusteredVectors(random, centres, count, args.dim);
  const vectors = draw(n);
  const queries = draw(args.queries);
  const warmup = draw(WARMUP);
  const start = process.hrtime.bigint();
  const truth = queries.map((q) => exactNearest(vectors, q));
  process.stderr.write(`  brute force for ${args.queries} queries over ${n}: ${Math.round(elapsedMs(start))} ms\n`);
  const doomed: number[] = [];
  const taken = new Set<number>();
  while (doomed.length < Math.min(args.removes, n)) {
    const id = Math.floor(random() * n);
    if (!taken.has(id)) {
      taken.add(id);
      doomed.push(id);
    }
  }
  return { n, dim: args.dim, vectors, queries, warmup, truth, doomed, seed: args.seed };
}

function main(): void {
  const args = parseArgs(process.argv.slice(2));
  const results: Record<string, unknown>[] = [];
  const loadBefore = loadavg();
  for (const n of args.sizes) {
    process.stderr.write(`n = ${n}, dimension ${args.dim}, cosine, ${args.data} vectors\n`);
    const w = workload(n, args);
    for (const engine of args.engines) {
      const run = ENGINES[engine];
      if (run === undefined) throw new Error(`unknown engine ${engine}; known: ${Object.keys(ENGINES).join(', ')}`);
      process.stderr.write(` ${engine}\n`);
      const load = loadavg()[0]!;
      const result = run(w);
      results.push({ engine, n, dim: args.dim, ...result, load1mBefore: round(load, 2) });
      process.stderr.write(`  ${JSON.stringify(result)}\n`);
    }
  }
  const report = {
    when: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, loadavgBefore: loadBefore, loadavgAfter: loadavg() },
    settings: {
      data: args.data,
      metric: 'cosine',
      k: K,
      ef: EF,
      m: M,
      m0: 2 * M,
      efConstruction: EF_CONSTRUCTION,
      batch: BATCH,
      queries: args.queries,
      removes: args.removes,
      seed: args.seed,
    },
    results,
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

main();
