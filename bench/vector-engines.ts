/**
 * Vector search through Trellis's whole pipeline against the libraries a user would
 * otherwise pick, bare, on the same vectors in one run (issue 31): hnswlib-node 3.0 and
 * usearch 2.25 (both from bench/peers: npm ci --prefix bench/peers).
 *
 *   node dist/bench/vector-engines.js [--n 100000] [--dim 128] [--queries 300]
 *        [--filtered-queries 60] [--data clustered|uniform] [--filters 0.01,0.1,0.5]
 *        [--rounds 3] [--seed 1]
 *        [--engines trellis,hnswlib,usearch] [--prebuilt true] [--tenants true]
 *        [--ef-construction 200]
 *
 * - **Build**: Trellis as a user loads it: the documented index DDL (a cosine
 *   `node_vector` index and a `node_range` index on `bucket`), then `for_each` inserts of
 *   1,000 rows, timed from the first insert until `get_index_operation` says every vector
 *   is in the index (`backlog.queued` "0"), not merely searchable through the exact scan
 *   of the queue; with `--prebuilt`, also the index created over vectors already stored.
 *   A batch refused with 429 `index_backpressure` (the queue full: inserts outran the
 *   builder, as at 1M) is sent again after 50 ms, as a client should; the retries and the
 *   time waited are reported with the build. Queries wait (untimed) until the builder's
 *   reach sweep has ended after the last add (`backlog.reach_checked`, reported as
 *   `reachCheckedAfterMs`): until then it runs on both cores, and timings taken meanwhile
 *   measure the machine's sharing, not a search (every engine's, as rounds interleave).
 *   hnswlib: `addPoint` one at a time (single thread, as the issue's target names);
 *   usearch: one `add` with 1 thread.
 * - **Queries** (k 10, one at a time, single thread): Trellis through `Database.queryText`
 *   (the JSON request parsed, planned, searched and the answer encoded) with the
 *   documented `ef`; hnswlib `searchKnn` after `setEf`; usearch `search` of max(k, ef)
 *   (how a per-query beam is had from its binding). Each engine's beam is swept; for each
 *   recall target the smallest beam that reaches it is timed again in `--rounds`
 *   interleaved rounds, and the median q/s is reported.
 * - **Filtered** (`--filters`, shares of the elements): Trellis's
 *   `vector_search_nodes_within` over `nodes_where bucket < X` (the candidate set made
 *   by the query itself, as a user would), and the store's search given the candidate set
 *   directly (`trellis-search-only`, what the search itself costs); hnswlib's `searchKnn`
 *   with a filter callback. usearch's binding has no filter.
 * - **Tenant partitions** (`--tenants`, on by default with trellis): a second database
 *   whose index has a `tenant_property`, each node's tenant picked so that partitions of
 *   the same shares are disjoint ranges of buckets (1%: bucket 0; 10%: 1 to 10; 50%: 11
 *   to 60; the rest one more tenant); Trellis's `vector_search_nodes` with `tenant_value`
 *   (`trellis-tenant`, its build timed as the main one's) against hnswlib's callback over
 *   the same elements.
 *
 * Recall@10 against brute force (cosine). Settings: M 16 and a build beam of 200
 * (`--ef-construction`; hnswlib's ef_construction, usearch's expansion_add, the Trellis
 * index spec's `ef_construction`, whose default is 128) for every engine.
 * Prints one JSON document; progress goes to stderr.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { cpus, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { open, type Database } from '../src/index.js';
import { median, round } from './lib/stats.js';
import {
  backpressure,
  BATCH,
  CENTRES,
  createIndex,
  draw,
  entry,
  insertAll,
  RANGE,
  reachChecked,
  seeded,
  settled,
  SPEC,
  TENANT_SPEC,
  type LoadedIds,
} from './lib/vector-data.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const K = 10;
const M = 16;
/**
 * The build beam of every engine unless `--ef-construction` says otherwise: hnswlib's own
 * default, given to Trellis's index spec (`ef_construction`; its default is HelixDB's 128)
 * and usearch's `expansion_add` too, so the graphs compared are built alike.
 */
const EF_CONSTRUCTION = 200;
const WARMUP = 30;
const BUCKETS = 100;
const EFS = [10, 12, 16, 20, 24, 32, 40, 48, 56, 64, 72, 80, 96, 112, 128, 160, 192, 256, 320, 384, 512, 768, 1024];
const TARGETS = [0.95, 0.99];

interface Args {
  n: number;
  dim: number;
  queries: number;
  filteredQueries: number;
  data: 'uniform' | 'clustered';
  filters: number[];
  rounds: number;
  seed: number;
  engines: string[];
  prebuilt: boolean;
  tenants: boolean;
  efConstruction: number;
}

function parseArgs(argv: string[]): Args {
  const args: Args = {
    n: 100_000,
    dim: 128,
    queries: 300,
    filteredQueries: 60,
    data: 'clustered',
    filters: [0.01, 0.1, 0.5],
    rounds: 3,
    seed: 1,
    engines: ['trellis', 'hnswlib', 'usearch'],
    prebuilt: true,
    tenants: true,
    efConstruction: EF_CONSTRUCTION,
  };
  for (let i = 0; i < argv.length; i += 2) {
    const value = argv[i + 1] ?? '';
    switch (argv[i]) {
      case '--n':
        args.n = Number(value);
        break;
      case '--dim':
        args.dim = Number(value);
        break;
      case '--filtered-queries':
        args.filteredQueries = Number(value);
        break;
      case '--queries':
        args.queries = Number(value);
        break;
      case '--data':
        if (value !== 'uniform' && value !== 'clustered') throw new Error('--data is uniform or clustered');
        args.data = value;
        break;
      case '--filters':
        args.filters = value === '' ? [] : value.split(',').map(Number);
        break;
      case '--rounds':
        args.rounds = Number(value);
        break;
      case '--seed':
        args.seed = Number(value);
        break;
      case '--engines':
        args.engines = value.split(',');
        break;
      case '--prebuilt':
        args.prebuilt = value === 'true';
        break;
      case '--tenants':
        args.tenants = value === 'true';
        break;
      case '--ef-construction':
        args.efConstruction = Number(value);
        break;
      default:
        throw new Error(`unknown option ${argv[i]}`);
    }
  }
  return args;
}

// ---- data -----------------------------------------------------------------------------

/** Which elements a search may answer: those whose bucket is in [lo, hi). */
interface Filter {
  /** Its name in the progress lines: `none`, `within 0.1`, `tenant 0.1`. */
  readonly name: string;
  /** Unfiltered, a `_within` candidate set, or one partition of a tenant index. */
  readonly kind: 'none' | 'within' | 'tenant';
  readonly share: number;
  readonly lo: number;
  readonly hi: number;
}

const UNFILTERED: Filter = { name: 'none', kind: 'none', share: 1, lo: 0, hi: BUCKETS };

/**
 * The filters a run measures: unfiltered, `_within` candidate sets of each share (bucket
 * below 100 x share, nested), and with `tenants`, tenant partitions of the same shares
 * (consecutive, disjoint ranges of buckets).
 */
function filtersOf(args: Args): Filter[] {
  const within = args.filters.map((share): Filter => ({
    name: `within ${share}`,
    kind: 'within',
    share,
    lo: 0,
    hi: Math.round(share * BUCKETS),
  }));
  if (!args.tenants) return [UNFILTERED, ...within];
  let lo = 0;
  const tenants = args.filters.map((share): Filter => {
    const hi = lo + Math.round(share * BUCKETS);
    if (hi > BUCKETS) throw new Error('--filters: tenant partitions of these shares take more than every element');
    const f: Filter = { name: `tenant ${share}`, kind: 'tenant', share, lo, hi };
    lo = hi;
    return f;
  });
  return [UNFILTERED, ...within, ...tenants];
}

/** The tenant value of a tenant filter's partition: the nodes hold it, the searches name it. */
const tenantName = (filter: Filter): string => `tenant ${filter.share}`;

/** The tenant of an element of `bucket`: the partition whose range holds it, else `rest`. */
function tenantOfBucket(filters: readonly Filter[], bucket: number): string {
  const partition = filters.find((f) => f.kind === 'tenant' && bucket >= f.lo && bucket < f.hi);
  return partition === undefined ? 'rest' : tenantName(partition);
}

function normalised(v: Float32Array): Float32Array {
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]! * v[i]!;
  const f = 1 / Math.sqrt(s);
  return v.map((x) => x * f);
}

interface Workload {
  n: number;
  dim: number;
  vectors: Float32Array[];
  queries: Float32Array[];
  warmup: Float32Array[];
  /** Each element's bucket, 0..99: a filter keeps those in its range. */
  bucket: Uint8Array;
  filters: Filter[];
  /** Exact top 10 per query, per filter (by name). */
  truth: Map<string, number[][]>;
  /** How many of the queries a filtered search runs. */
  filteredQueries: number;
  /** Every engine's build beam (hnswlib's ef_construction). */
  efConstruction: number;
}

/** Brute force: the exact top 10 of every query per filter, in one pass over the distances. */
function exactTruth(vectors: Float32Array[], queries: Float32Array[], bucket: Uint8Array, all: Filter[]): Map<string, number[][]> {
  const units = vectors.map(normalised);
  const truth = new Map<string, number[][]>(all.map((f) => [f.name, []]));
  for (const q of queries) {
    const u = normalised(q);
    const best = all.map(() => ({ ids: [] as number[], dist: [] as number[] }));
    for (let id = 0; id < units.length; id++) {
      const v = units[id]!;
      let dot = 0;
      for (let j = 0; j < v.length; j++) dot += u[j]! * v[j]!;
      const d = 1 - dot;
      all.forEach((filter, f) => {
        if (bucket[id]! < filter.lo || bucket[id]! >= filter.hi) return;
        const b = best[f]!;
        if (b.ids.length === K && d >= b.dist[K - 1]!) return;
        let at = b.ids.length;
        while (at > 0 && b.dist[at - 1]! > d) at--;
        b.ids.splice(at, 0, id);
        b.dist.splice(at, 0, d);
        if (b.ids.length > K) {
          b.ids.pop();
          b.dist.pop();
        }
      });
    }
    all.forEach((filter, f) => truth.get(filter.name)!.push(best[f]!.ids));
  }
  return truth;
}

function workload(args: Args): Workload {
  const random = seeded(args.seed * 1000 + args.n);
  const centres = draw(random, [], CENTRES, args.dim, false);
  const clustered = args.data === 'clustered';
  const vectors = draw(random, centres, args.n, args.dim, clustered);
  const queries = draw(random, centres, args.queries, args.dim, clustered);
  const warmup = draw(random, centres, WARMUP, args.dim, clustered);
  const bucket = Uint8Array.from({ length: args.n }, () => Math.floor(random() * BUCKETS));
  const started = performance.now();
  const filters = filtersOf(args);
  const truth = exactTruth(vectors, queries, bucket, filters);
  progress(`brute force for ${args.queries} queries over ${args.n}: ${Math.round(performance.now() - started)} ms`);
  return {
    n: args.n,
    dim: args.dim,
    vectors,
    queries,
    warmup,
    bucket,
    filters,
    truth,
    filteredQueries: args.filteredQueries,
    efConstruction: args.efConstruction,
  };
}

const progress = (line: string) => process.stderr.write(`${line}\n`);

// ---- engines --------------------------------------------------------------------------

/** One engine, built: a search at a beam (null: its default) under a filter, answering indexes into the vectors. */
interface Engine {
  readonly name: string;
  readonly build: Record<string, number>;
  /** Prepares a batch of queries (outside the clock); answers a function that runs query i. */
  prepare(queries: Float32Array[], ef: number | null, filter: Filter): (i: number) => Promise<unknown> | unknown;
  /** What a run answered, as indexes into the vectors (after the clock). */
  answer(result: unknown): number[];
  /** Whether it searches under this kind of filter. */
  serves(filter: Filter): boolean;
  readonly defaultEf: boolean;
  close(): Promise<void>;
}

const peers = createRequire(join(ROOT, 'bench/peers/package.json'));

interface HnswlibIndex {
  initIndex(maxElements: number, m?: number, efConstruction?: number, randomSeed?: number): void;
  addPoint(point: number[], label: number): void;
  setEf(ef: number): void;
  searchKnn(query: number[], k: number, filter?: (label: number) => boolean): { neighbors: number[] };
}

function hnswlib(w: Workload, seed: number): Engine {
  const { HierarchicalNSW } = peers('hnswlib-node') as { HierarchicalNSW: new (space: string, dim: number) => HnswlibIndex };
  const index = new HierarchicalNSW('cosine', w.dim);
  index.initIndex(w.n, M, w.efConstruction, seed);
  // hnswlib-node takes plain arrays: converted before the clock starts.
  const points = w.vectors.map((v) => Array.from(v));
  const started = performance.now();
  points.forEach((p, id) => index.addPoint(p, id));
  const buildMs = performance.now() - started;
  const callbacks = new Map<string, (label: number) => boolean>();
  return {
    name: 'hnswlib',
    build: { buildMs: round(buildMs) },
    serves: () => true,
    defaultEf: false,
    prepare(queries, ef, filter) {
      index.setEf(ef ?? 10);
      const arrays = queries.map((q) => Array.from(q));
      if (filter.kind === 'none') return (i) => index.searchKnn(arrays[i]!, K).neighbors;
      let callback = callbacks.get(filter.name);
      if (callback === undefined) {
        const { lo, hi } = filter;
        callbacks.set(filter.name, (callback = (label: number) => w.bucket[label]! >= lo && w.bucket[label]! < hi));
      }
      const f = callback;
      return (i) => index.searchKnn(arrays[i]!, K, f).neighbors;
    },
    answer: (r) => r as number[],
    close: async () => undefined,
  };
}

interface UsearchIndex {
  add(keys: BigUint64Array, vectors: Float32Array, threads?: number): void;
  search(vector: Float32Array, k: number, threads: number): { keys: BigUint64Array };
}

/** usearch as Trellis configures it: inner product of normalised vectors, f16, M 16, expansion_add the build beam. */
function usearch(w: Workload): Engine {
  const { Index } = peers('usearch') as { Index: new (config: Record<string, unknown>) => UsearchIndex };
  const index = new Index({
    dimensions: w.dim,
    metric: 'ip',
    quantization: 'f16',
    connectivity: M,
    expansion_add: w.efConstruction,
    expansion_search: 1,
    multi: false,
  });
  const flat = new Float32Array(w.n * w.dim);
  w.vectors.forEach((v, i) => flat.set(normalised(v), i * w.dim));
  const keys = BigUint64Array.from({ length: w.n }, (_, i) => BigInt(i));
  const started = performance.now();
  index.add(keys, flat, 1);
  const buildMs = performance.now() - started;
  return {
    name: 'usearch',
    build: { buildMs: round(buildMs) },
    serves: (filter) => filter.kind === 'none',
    defaultEf: false,
    prepare(queries, ef) {
      const units = queries.map(normalised);
      const count = Math.max(K, ef ?? K);
      return (i) => Array.from(index.search(units[i]!, count, 1).keys.subarray(0, K), Number);
    },
    answer: (r) => r as number[],
    close: async () => undefined,
  };
}

async function trellis(w: Workload, prebuilt: boolean): Promise<Engine[]> {
  const engines = await trellisWithin(w, prebuilt);
  if (w.filters.some((f) => f.kind === 'tenant')) engines.push(await trellisTenants(w));
  return engines;
}

async function trellisWithin(w: Workload, prebuilt: boolean): Promise<Engine[]> {
  const build: Record<string, number> = {};
  const dir = mkdtempSync(join(tmpdir(), 'trellis-vector-bench-'));
  let db = await open(dir);
  await settled(db, await createIndex(db, RANGE));
  const operation = await createIndex(db, SPEC(w.dim, w.efConstruction));
  await settled(db, operation);
  let started = performance.now();
  let loaded = await insertAll(db, w);
  build['ackMs'] = round(performance.now() - started);
  // Writes refused while the index's queue was full, and sent again (insertAll).
  build['backpressureRetries'] = backpressure.retries;
  build['backpressureWaitMs'] = round(backpressure.waitedMs);
  await settled(db, operation);
  build['buildMs'] = round(performance.now() - started);
  if (prebuilt) {
    // The same vectors stored first, then the index created over them.
    const dir2 = mkdtempSync(join(tmpdir(), 'trellis-vector-bench-'));
    const db2 = await open(dir2);
    await settled(db2, await createIndex(db2, RANGE));
    started = performance.now();
    const loaded2 = await insertAll(db2, w);
    build['storeMs'] = round(performance.now() - started);
    started = performance.now();
    const operation2 = await createIndex(db2, SPEC(w.dim, w.efConstruction));
    await settled(db2, operation2);
    build['prebuiltBuildMs'] = round(performance.now() - started);
    // Queries run against the database built over stored vectors; the other one goes.
    await db.close();
    rmSync(dir, { recursive: true, force: true });
    db = db2;
    loaded = loaded2;
    started = performance.now();
    await db.close();
    db = await open(dir2);
    build['reopenMs'] = round(performance.now() - started);
    build['reachCheckedAfterMs'] = round(await reachChecked(db, operation2));
    return [trellisEngine(db, dir2, loaded, w, build), trellisSearchOnly(db, loaded, w)];
  }
  build['reachCheckedAfterMs'] = round(await reachChecked(db, operation));
  return [trellisEngine(db, dir, loaded, w, build), trellisSearchOnly(db, loaded, w)];
}

/**
 * The store's search alone, given the candidate set (a Set of node ids): what the search
 * costs without the query that makes the set, nor parsing or encoding.
 */
function trellisSearchOnly(db: Database, loaded: LoadedIds, w: Workload): Engine {
  const sets = new Map<string, Set<number>>();
  const def = db.store.read((r) => r.indexCatalog().active('node_vector', 'Doc', 'emb'))!;
  return {
    name: 'trellis-search-only',
    build: {},
    serves: (filter) => filter.kind !== 'tenant',
    defaultEf: true,
    prepare(queries, ef, filter) {
      let candidates: Set<number> | null = null;
      if (filter.kind !== 'none') {
        candidates = sets.get(filter.name) ?? null;
        if (candidates === null) {
          candidates = new Set();
          for (let i = 0; i < w.n; i++) if (w.bucket[i]! >= filter.lo && w.bucket[i]! < filter.hi) candidates.add(loaded.idOf(i));
          sets.set(filter.name, candidates);
        }
      }
      const c = candidates;
      return (i) => db.store.read((r) => r.vectorSearch(def, { tenant: null, vector: queries[i]!, k: K, candidates: c, ef }));
    },
    answer: (r) => (r as { id: number }[]).map((h) => loaded.indexOf(h.id)),
    close: async () => undefined,
  };
}

function trellisEngine(db: Database, dir: string, loaded: LoadedIds, w: Workload, build: Record<string, number>): Engine {
  const toIndexes = (text: string) => (JSON.parse(text).x as { $id: number }[]).map((h) => loaded.indexOf(h.$id));
  return {
    name: 'trellis',
    build,
    serves: (filter) => filter.kind !== 'tenant',
    defaultEf: true,
    prepare(queries, ef, filter) {
      const body = (q: Float32Array) => ({
        label: 'Doc',
        property: 'emb',
        query_vector: { value: { f32_array: Array.from(q) } },
        k: { literal: K },
        ...(ef === null ? {} : { ef: { literal: ef } }),
      });
      const within = (q: Float32Array) => ({
        vector_search_nodes_within: {
          input: {
            nodes_where: {
              predicate: {
                and: {
                  predicates: [
                    { eq: { left: { property: '$label' }, right: { constant: { string: 'Doc' } } } },
                    { lt: { left: { property: 'bucket' }, right: { constant: { i64: filter.hi } } } },
                  ],
                },
              },
            },
          },
          ...body(q),
        },
      });
      const requests = queries.map((q) =>
        JSON.stringify({
          request_type: 'read',
          query: { read: { entries: [entry('x', filter.kind === 'none' ? { vector_search_nodes: body(q) } : within(q))], returns: ['x'] } },
        }),
      );
      // Timed: the request's text in, the answer's text out (parsed after the clock).
      return async (i) => db.queryText(requests[i]!);
    },
    answer: (r) => toIndexes(r as string),
    close: async () => {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * A second database whose index is partitioned by tenant (each node's from its bucket,
 * tenantOfBucket): `vector_search_nodes` with `tenant_value` searches one partition's
 * own graph. Built as the main one is (the index first, then `for_each` inserts), timed.
 */
async function trellisTenants(w: Workload): Promise<Engine> {
  const dir = mkdtempSync(join(tmpdir(), 'trellis-vector-bench-'));
  const db = await open(dir);
  const operation = await createIndex(db, TENANT_SPEC(w.dim, w.efConstruction));
  await settled(db, operation);
  const started = performance.now();
  const loaded = await insertAll(db, w, (i) => tenantOfBucket(w.filters, w.bucket[i]!));
  const build: Record<string, number> = { ackMs: round(performance.now() - started) };
  await settled(db, operation);
  build['buildMs'] = round(performance.now() - started);
  build['reachCheckedAfterMs'] = round(await reachChecked(db, operation));
  const toIndexes = (text: string) => (JSON.parse(text).x as { $id: number }[]).map((h) => loaded.indexOf(h.$id));
  return {
    name: 'trellis-tenant',
    build,
    serves: (filter) => filter.kind === 'tenant',
    defaultEf: true,
    prepare(queries, ef, filter) {
      const tenant = tenantName(filter);
      const requests = queries.map((q) =>
        JSON.stringify({
          request_type: 'read',
          query: {
            read: {
              entries: [
                entry('x', {
                  vector_search_nodes: {
                    label: 'Doc',
                    property: 'emb',
                    query_vector: { value: { f32_array: Array.from(q) } },
                    k: { literal: K },
                    tenant_value: { value: { string: tenant } },
                    ...(ef === null ? {} : { ef: { literal: ef } }),
                  },
                }),
              ],
              returns: ['x'],
            },
          },
        }),
      );
      return async (i) => db.queryText(requests[i]!);
    },
    answer: (r) => toIndexes(r as string),
    close: async () => {
      await db.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}

// ---- measuring ------------------------------------------------------------------------

interface Point {
  ef: number | null;
  recall: number;
  qps: number;
}

async function measure(engine: Engine, w: Workload, ef: number | null, filter: Filter): Promise<Point> {
  const unfiltered = filter.kind === 'none';
  const warmup = unfiltered ? w.warmup : w.warmup.slice(0, 5);
  const run = engine.prepare(warmup, ef, filter);
  for (let i = 0; i < warmup.length; i++) await run(i);
  // Filtered searches run the first `filteredQueries` queries only (an exact `_within` costs milliseconds).
  const queries = unfiltered ? w.queries : w.queries.slice(0, w.filteredQueries);
  const timed = engine.prepare(queries, ef, filter);
  const truth = w.truth.get(filter.name)!;
  const raw: unknown[] = [];
  const started = performance.now();
  for (let i = 0; i < queries.length; i++) raw.push(await timed(i));
  const ms = performance.now() - started;
  let hits = 0;
  let wanted = 0;
  raw
    .map((r) => engine.answer(r))
    .forEach((ids, i) => {
      const want = new Set(truth[i]);
      wanted += want.size;
      for (const id of ids) if (want.has(id)) hits++;
    });
  return { ef, recall: round(hits / Math.max(1, wanted), 4), qps: round((queries.length / ms) * 1000) };
}

async function main(): Promise<void> {
  const args = parseArgs(process.argv.slice(2));
  const loadBefore = loadavg();
  progress(`n = ${args.n}, dimension ${args.dim}, cosine, ${args.data} vectors`);
  const w = workload(args);
  const engines: Engine[] = [];
  for (const name of args.engines) {
    progress(`building ${name}`);
    const rss = process.memoryUsage().rss;
    const made = name === 'trellis' ? await trellis(w, args.prebuilt) : name === 'hnswlib' ? [hnswlib(w, args.seed)] : [usearch(w)];
    made[0]!.build['rssGrowthMiB'] = round((process.memoryUsage().rss - rss) / 2 ** 20);
    progress(`  ${JSON.stringify(made[0]!.build)}`);
    engines.push(...made);
  }
  const results: Record<string, unknown>[] = [];
  for (const filter of w.filters) {
    const targets = filter.kind === 'none' ? TARGETS : [0.95];
    // Sweep: each engine's smallest beam per target.
    const chosen = new Map<Engine, Map<number, number>>();
    const sweeps = new Map<Engine, Point[]>();
    for (const engine of engines) {
      if (!engine.serves(filter)) continue;
      const points: Point[] = [];
      const picks = new Map<number, number>();
      if (engine.defaultEf) points.push(await measure(engine, w, null, filter));
      for (const ef of EFS) {
        const p = await measure(engine, w, ef, filter);
        points.push(p);
        for (const t of targets) if (!picks.has(t) && p.recall >= t) picks.set(t, ef);
        if (targets.every((t) => picks.has(t))) break;
      }
      progress(`  ${engine.name} ${filter.name}: ${points.map((p) => `ef ${p.ef ?? 'default'} ${p.recall} ${p.qps} q/s`).join('; ')}`);
      chosen.set(engine, picks);
      sweeps.set(engine, points);
    }
    // Interleaved rounds at the chosen beams: median q/s.
    const qps = new Map<string, number[]>();
    const recalls = new Map<string, number>();
    for (let r = 0; r < args.rounds; r++) {
      for (const [engine, picks] of chosen) {
        for (const [t, ef] of picks) {
          const p = await measure(engine, w, ef, filter);
          const key = `${engine.name}@${t}`;
          qps.set(key, [...(qps.get(key) ?? []), p.qps]);
          recalls.set(key, p.recall);
        }
      }
    }
    for (const [engine, picks] of chosen) {
      for (const t of targets) {
        const ef = picks.get(t);
        const key = `${engine.name}@${t}`;
        results.push({
          engine: engine.name,
          filter: filter.share,
          kind: filter.kind,
          target: t,
          ef: ef ?? null,
          recall: recalls.get(key) ?? null,
          qps: ef === undefined ? null : median(qps.get(key)!),
          qpsRounds: qps.get(key) ?? [],
        });
      }
      const def = sweeps.get(engine)!.find((p) => p.ef === null);
      if (def !== undefined) {
        results.push({
          engine: engine.name,
          filter: filter.share,
          kind: filter.kind,
          target: 'default ef',
          recall: def.recall,
          qps: def.qps,
        });
      }
    }
    progress(`  ${JSON.stringify(results.filter((r) => r['filter'] === filter.share && r['kind'] === filter.kind))}`);
  }
  for (const engine of engines) await engine.close();
  const report = {
    when: new Date().toISOString(),
    machine: { cpus: cpus().length, model: cpus()[0]?.model, node: process.version, loadavgBefore: loadBefore, loadavgAfter: loadavg() },
    settings: {
      ...args,
      k: K,
      m: M,
      batch: BATCH,
    },
    builds: Object.fromEntries(engines.filter((e) => Object.keys(e.build).length > 0).map((e) => [e.name, e.build])),
    results,
  };
  process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
}

await main();
