/**
 * The cross-system benchmark contract: what every system (Trellis and its peers) answers,
 * the reference answers computed straight from the dataset, and the child-process driver
 * that loads, cross-checks, times and reports one system. Each system runs this driver in
 * its own process, so peak RSS is per system. Imported by bench/compare.ts (main build)
 * and by bench/peers/*.ts (their own build, next to their own node_modules).
 */
import { writeFileSync } from 'node:fs';
import { median, medianOfRuns } from './stats.js';
import { DEFAULT_SEED, generateEdges, SIZES, userProps, type DatasetSize, type SizeName, type UserProps } from './dataset.js';

export const READ_QUERIES = ['point', 'one_hop', 'two_hop_count', 'filtered_count', 'top_k'] as const;
export type ReadQuery = (typeof READ_QUERIES)[number];
export const ALL_QUERIES = [...READ_QUERIES, 'mixed'] as const;
export type QueryName = (typeof ALL_QUERIES)[number];
export const TOP_K = 10;
export const MIXED_OPS = 5_000;

/** The read side every system implements; answers are plain values, compared exactly. */
export interface Reader {
  point(uid: number): Promise<UserProps | null>;
  /** Out-neighbour uids over FOLLOWS, any order (compared sorted). */
  oneHop(uid: number): Promise<number[]>;
  /** Two-hop FOLLOWS paths from uid, counted with multiplicity. */
  twoHopCount(uid: number): Promise<number>;
  /** Users with age >= 30 and status = "active". */
  filteredCount(): Promise<number>;
  /** The k highest scores' uids, ties by ascending uid. */
  topK(k: number): Promise<number[]>;
}

export interface Adapter extends Reader {
  readonly system: string;
  readonly version: string;
  /** Bulk-loads the dataset into a fresh store; returns named phase times (ms) for the report. */
  load(seed: number, size: DatasetSize): Promise<Record<string, number>>;
  insert(user: UserProps): Promise<void>;
  close(): Promise<void>;
}

export interface QueryStats {
  ops: number;
  seconds: number;
  opsPerSec: number;
  p50Ms: number;
  p99Ms: number;
}

export interface SystemReport {
  system: string;
  version: string;
  size: SizeName;
  nodes: number;
  edges: number;
  loadMs: number;
  loadPhasesMs: Record<string, number>;
  queries: Partial<Record<QueryName, QueryStats>>;
  maxRssMb: number;
  notes: string[];
  /**
   * The operation-tree route's figures measured in alternating rounds with this report's
   * (the Cypher reports, measurePaired): the Cypher/tree ratios divide by these.
   */
  baseline?: { system: string; queries: Partial<Record<QueryName, QueryStats>> };
}

export interface ChildArgs {
  size: SizeName;
  seed: number;
  out: string;
  budgetMs: number;
  maxOps: number;
  /** Loads per system (each into a fresh store); the report keeps each phase's median. */
  loadRepeat: number;
}

export function parseChildArgs(argv: readonly string[]): ChildArgs {
  const get = (flag: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? argv[i + 1] : undefined;
  };
  const size = (get('--size') ?? 'tiny') as SizeName;
  if (!(size in SIZES)) throw new Error(`unknown size ${size} (expected ${Object.keys(SIZES).join(', ')})`);
  const out = get('--out');
  if (!out) throw new Error('--out FILE is required');
  const loadRepeat = Number(get('--load-repeat') ?? 1);
  if (!Number.isInteger(loadRepeat) || loadRepeat < 1)
    throw new Error(`--load-repeat must be a positive integer, got ${get('--load-repeat')}`);
  return {
    size,
    seed: Number(get('--seed') ?? DEFAULT_SEED),
    out,
    budgetMs: Number(get('--budget-ms') ?? 3000),
    maxOps: Number(get('--max-ops') ?? 20_000),
    loadRepeat,
  };
}

/** A deterministic uid stream (mulberry32), the same for every system. */
export function sampleUids(seed: number, n: number, count: number): number[] {
  let a = seed >>> 0;
  const out: number[] = [];
  for (let i = 0; i < count; i++) {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    out.push(Math.floor((((t ^ (t >>> 14)) >>> 0) / 4294967296) * n));
  }
  return out;
}

export type Answers = Record<string, unknown>;
const CHECK_UIDS = 12;

/** Answers already worked out, by seed and size: a child checks several readers of one store. */
const REFERENCES = new Map<string, Answers>();

/** The ground truth, computed from the generator alone (once per seed and size). */
export function referenceAnswers(seed: number, size: DatasetSize): Answers {
  const key = `${seed} ${size.nodes} ${size.edges}`;
  let answers = REFERENCES.get(key);
  if (answers === undefined) REFERENCES.set(key, (answers = computeReferenceAnswers(seed, size)));
  return answers;
}

function computeReferenceAnswers(seed: number, size: DatasetSize): Answers {
  const { from, to } = generateEdges(seed, size);
  const outs: number[][] = Array.from({ length: size.nodes }, () => []);
  for (let k = 0; k < from.length; k++) outs[from[k]!]!.push(to[k]!);
  const users = Array.from({ length: size.nodes }, (_, i) => userProps(seed, i));
  const answers: Answers = {};
  for (const uid of [0, ...sampleUids(seed ^ 0x5eed, size.nodes, CHECK_UIDS)]) {
    answers[`point ${uid}`] = users[uid];
    answers[`one_hop ${uid}`] = [...outs[uid]!].sort((x, y) => x - y);
    answers[`two_hop_count ${uid}`] = outs[uid]!.reduce((s, m) => s + outs[m]!.length, 0);
  }
  answers['filtered_count'] = users.filter((u) => u.age >= 30 && u.status === 'active').length;
  answers['top_k'] = [...users]
    .sort((x, y) => y.score - x.score || x.uid - y.uid)
    .slice(0, TOP_K)
    .map((u) => u.uid);
  return answers;
}

export async function systemAnswers(reader: Reader, reference: Answers): Promise<Answers> {
  const got: Answers = {};
  for (const key of Object.keys(reference)) {
    const [query, arg] = key.split(' ');
    const uid = Number(arg);
    if (query === 'point') got[key] = await reader.point(uid);
    else if (query === 'one_hop') got[key] = (await reader.oneHop(uid)).sort((x, y) => x - y);
    else if (query === 'two_hop_count') got[key] = await reader.twoHopCount(uid);
    else if (query === 'filtered_count') got[key] = await reader.filteredCount();
    else got[key] = await reader.topK(TOP_K);
  }
  return got;
}

/** Throws with both answers when a system disagrees with the reference. */
export async function crossCheck(system: string, reader: Reader, reference: Answers): Promise<void> {
  const got = await systemAnswers(reader, reference);
  const bad = Object.keys(reference).filter((k) => JSON.stringify(got[k]) !== JSON.stringify(reference[k]));
  if (bad.length) {
    const lines = bad.map((k) => `  ${k}\n    reference: ${JSON.stringify(reference[k])}\n    ${system}: ${JSON.stringify(got[k])}`);
    throw new Error(`${system} answers differ from the reference on ${bad.length} check(s):\n${lines.join('\n')}`);
  }
}

function stats(lat: number[], totalMs: number): QueryStats {
  const sorted = Float64Array.from(lat).sort();
  const at = (p: number) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))] ?? 0;
  const r3 = (x: number) => Math.round(x * 1000) / 1000;
  return {
    ops: lat.length,
    seconds: r3(totalMs / 1000),
    opsPerSec: Math.round((lat.length / totalMs) * 1000 * 10) / 10,
    p50Ms: r3(at(0.5)),
    p99Ms: r3(at(0.99)),
  };
}

/** Runs op(i) sequentially: a short warm-up, then until maxOps or the time budget (at least 5 ops). */
export async function measure(op: (i: number) => Promise<unknown>, budgetMs: number, maxOps: number): Promise<QueryStats> {
  const { lat, totalMs } = await sample(op, budgetMs, maxOps);
  return stats(lat, totalMs);
}

/** The latencies of measure(), and the time they took. */
async function sample(op: (i: number) => Promise<unknown>, budgetMs: number, maxOps: number): Promise<{ lat: number[]; totalMs: number }> {
  const warmEnd = performance.now() + Math.min(300, budgetMs / 10);
  for (let i = 0; i < 50 && performance.now() < warmEnd; i++) await op(i + 1_000_000);
  const lat: number[] = [];
  const t0 = performance.now();
  let now = t0;
  for (let i = 0; i < maxOps && (now - t0 < budgetMs || i < 5); i++) {
    const s = now;
    await op(i);
    now = performance.now();
    lat.push(now - s);
  }
  return { lat, totalMs: now - t0 };
}

export function readOps(reader: Reader, uids: readonly number[]): Record<ReadQuery, (i: number) => Promise<unknown>> {
  const u = (i: number) => uids[i % uids.length]!;
  return {
    point: (i) => reader.point(u(i)),
    one_hop: (i) => reader.oneHop(u(i)),
    two_hop_count: (i) => reader.twoHopCount(u(i)),
    filtered_count: () => reader.filteredCount(),
    top_k: () => reader.topK(TOP_K),
  };
}

export async function measureReads(reader: Reader, args: ChildArgs, n: number): Promise<Partial<Record<QueryName, QueryStats>>> {
  const ops = readOps(reader, sampleUids(args.seed, n, 4096));
  const out: Partial<Record<QueryName, QueryStats>> = {};
  for (const q of READ_QUERIES) {
    out[q] = await measure(ops[q], args.budgetMs, args.maxOps);
    process.stderr.write(`  ${q}: ${out[q]!.opsPerSec} ops/s, p50 ${out[q]!.p50Ms} ms\n`);
  }
  return out;
}

/** Rounds per query in measurePaired: enough alternations that drift of the host falls on both sides. */
const PAIRED_ROUNDS = 8;

/**
 * Two readers of the same store timed in alternating rounds (a then b, then b then a, ...),
 * each round an eighth of the budget and of maxOps: a ratio of the two is measured in
 * one stretch of time, so the drift of a shared host does not land on one side only, as
 * it does when one reader runs all its queries after the other's.
 */
export async function measurePaired(
  a: Reader,
  b: Reader,
  args: ChildArgs,
  n: number,
): Promise<[Partial<Record<QueryName, QueryStats>>, Partial<Record<QueryName, QueryStats>>]> {
  const uids = sampleUids(args.seed, n, 4096);
  const ops = [readOps(a, uids), readOps(b, uids)] as const;
  const out: [Partial<Record<QueryName, QueryStats>>, Partial<Record<QueryName, QueryStats>>] = [{}, {}];
  for (const q of READ_QUERIES) {
    const runs = [
      { lat: [] as number[], totalMs: 0 },
      { lat: [] as number[], totalMs: 0 },
    ];
    for (let round = 0; round < PAIRED_ROUNDS; round++) {
      for (const side of round % 2 === 0 ? [0, 1] : [1, 0]) {
        const got = await sample(ops[side]![q], args.budgetMs / PAIRED_ROUNDS, Math.ceil(args.maxOps / PAIRED_ROUNDS));
        runs[side]!.lat.push(...got.lat);
        runs[side]!.totalMs += got.totalMs;
      }
    }
    out[0][q] = stats(runs[0]!.lat, runs[0]!.totalMs);
    out[1][q] = stats(runs[1]!.lat, runs[1]!.totalMs);
    process.stderr.write(`  ${q}: ${out[0][q]!.opsPerSec} against ${out[1][q]!.opsPerSec} ops/s (alternating rounds)\n`);
  }
  return out;
}

/** 90% point reads, 10% single-node inserts of fresh uids n, n+1, ... (MIXED_OPS ops). */
export async function measureMixed(adapter: Adapter, args: ChildArgs, n: number): Promise<QueryStats> {
  const uids = sampleUids(args.seed + 1, n, 4096);
  let next = n;
  const op = async (i: number) => {
    if (i % 10 === 9) await adapter.insert({ ...userProps(args.seed, next), uid: next++ });
    else await adapter.point(uids[i % uids.length]!);
  };
  return measure(op, Math.max(args.budgetMs, 60_000), MIXED_OPS);
}

export const maxRssMb = () => Math.round(process.resourceUsage().maxRSS / 1024);

/** A repeated load stops adding trials once one load has taken this long. */
const LOAD_TRIAL_CAP_MS = 30_000;

/** What repeated loads leave: the last target (kept open), and medians of the trials. */
export interface RepeatedLoads<T> {
  readonly kept: T;
  readonly loadMs: number;
  readonly loadPhasesMs: Record<string, number>;
  readonly trialsMs: number[];
}

/**
 * Loads the dataset `args.loadRepeat` times, each into a fresh target (`start`), so the
 * load figures are medians like every other figure. Every trial's target but the last is
 * dropped; the last one stays for the queries. Loads that take over 30 s are not repeated.
 */
export async function repeatLoads<T>(
  label: (target: T) => string,
  args: ChildArgs,
  start: () => Promise<T>,
  load: (target: T) => Promise<Record<string, number>>,
  drop: (target: T) => Promise<void>,
): Promise<RepeatedLoads<T>> {
  const size = SIZES[args.size];
  const trials: { loadMs: number; phases: Record<string, number> }[] = [];
  for (;;) {
    const target = await start();
    process.stderr.write(
      `[${label(target)} ${args.size}] loading ${size.nodes} nodes / ${size.edges} edges (load ${trials.length + 1} of ${args.loadRepeat})\n`,
    );
    const t0 = performance.now();
    const phases = await load(target);
    const loadMs = Math.round(performance.now() - t0);
    trials.push({ loadMs, phases });
    process.stderr.write(`[${label(target)} ${args.size}] loaded in ${loadMs} ms ${JSON.stringify(phases)}\n`);
    if (trials.length >= args.loadRepeat || loadMs > LOAD_TRIAL_CAP_MS) {
      const phaseMedians = Object.entries(medianOfRuns(trials.map((t) => t.phases)));
      const loadPhasesMs = Object.fromEntries(phaseMedians.map(([phase, ms]) => [phase, Math.round(ms)]));
      return { kept: target, loadMs: Math.round(median(trials.map((t) => t.loadMs))), loadPhasesMs, trialsMs: trials.map((t) => t.loadMs) };
    }
    await drop(target);
  }
}

/**
 * The whole child run for one embedded system; writes a JSON array of SystemReports to
 * args.out: this system's, then any that `extra` returns (it runs after the reads, before
 * the mixed stream changes the data).
 */
export async function runEmbedded(
  open: () => Promise<Adapter>,
  args: ChildArgs,
  extra?: (adapter: Adapter) => Promise<SystemReport[]>,
): Promise<void> {
  const size = SIZES[args.size];
  const {
    kept: adapter,
    loadMs,
    loadPhasesMs,
    trialsMs,
  } = await repeatLoads(
    (a) => a.system,
    args,
    open,
    (a) => a.load(args.seed, size),
    (a) => a.close(),
  );
  process.stderr.write(`[${adapter.system} ${args.size}] cross-checking\n`);
  await crossCheck(adapter.system, adapter, referenceAnswers(args.seed, size));
  const report: SystemReport = {
    system: adapter.system,
    version: adapter.version,
    size: args.size,
    nodes: size.nodes,
    edges: size.edges,
    loadMs,
    loadPhasesMs,
    queries: await measureReads(adapter, args, size.nodes),
    maxRssMb: 0,
    notes: trialsMs.length > 1 ? [`load: median of ${trialsMs.length} loads into fresh stores (${trialsMs.join(', ')} ms)`] : [],
  };
  const extras = extra ? await extra(adapter) : [];
  report.queries.mixed = await measureMixed(adapter, args, size.nodes);
  process.stderr.write(`  mixed: ${report.queries.mixed.opsPerSec} ops/s\n`);
  await adapter.close();
  report.maxRssMb = maxRssMb();
  writeFileSync(args.out, JSON.stringify([report, ...extras]));
}

// The report: ratios measured in one run, cost growth across sizes, the issue's targets.

export interface Failure {
  system: string;
  size: string;
  error: string;
}
export interface Ratio {
  trellis: number;
  bestPeer: string;
  bestPeerValue: number;
  ratio: number;
}
export interface Target {
  target: string;
  size: string;
  need: string;
  got: number | null;
  met: boolean | null;
}
export interface Summary {
  /** How to read the figures. */
  note: string;
  machine: Record<string, unknown>;
  results: Record<string, Record<string, SystemReport>>;
  ratios: Record<string, Record<string, Ratio>>;
  growth: Record<string, Record<string, Record<string, number>>>;
  targets: Target[];
  failures: Failure[];
}

const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d;
/** Ratios keep three significant digits: some are far below 0.01. */
const sig = (x: number) => Number(x.toPrecision(3));
/**
 * The database's own share of a load: Kùzu's COPY FROM (CSV writing excluded), Trellis's
 * requests (building their text excluded, as the CSV writing is), else the whole load.
 */
export const loadCost = (r: SystemReport) => r.loadPhasesMs['copyFrom'] ?? r.loadPhasesMs['database'] ?? r.loadMs;

export function summarize(reports: SystemReport[], failures: Failure[], machine: Record<string, unknown>): Summary {
  const results: Summary['results'] = {};
  for (const r of reports) (results[r.size] ??= {})[r.system] = r;
  const ratios: Summary['ratios'] = {};
  for (const [size, bySystem] of Object.entries(results)) {
    const peers = Object.values(bySystem).filter((r) => !r.system.startsWith('trellis'));
    const ratioFor = (trellis: SystemReport | undefined, q: QueryName): Ratio | undefined => {
      const t = trellis?.queries[q]?.opsPerSec;
      const best = peers.filter((p) => p.queries[q]).sort((a, b) => b.queries[q]!.opsPerSec - a.queries[q]!.opsPerSec)[0];
      if (t === undefined || !best) return undefined;
      return { trellis: t, bestPeer: best.system, bestPeerValue: best.queries[q]!.opsPerSec, ratio: sig(t / best.queries[q]!.opsPerSec) };
    };
    const row: Record<string, Ratio> = {};
    for (const q of ALL_QUERIES) {
      const e = ratioFor(bySystem['trellis'], q);
      if (e) row[q] = e;
      const h = q === 'mixed' ? undefined : ratioFor(bySystem['trellis-http'], q);
      if (h) row[`http ${q}`] = h;
      const c = q === 'mixed' ? undefined : ratioFor(bySystem['trellis-cypher-kuzu-text'], q);
      if (c) row[`cypher ${q}`] = c;
      // Cypher against the operation-tree route on the same store: "bestPeer" is /v2/query here.
      for (const [cypher, tree, label] of [
        ['trellis-cypher', 'trellis', 'cypher/tree'],
        ['trellis-cypher-http', 'trellis-http', 'http cypher/tree'],
      ] as const) {
        const a = bySystem[cypher]?.queries[q]?.opsPerSec;
        const b = (bySystem[cypher]?.baseline ?? bySystem[tree])?.queries[q]?.opsPerSec;
        if (q !== 'mixed' && a !== undefined && b !== undefined)
          row[`${label} ${q}`] = { trellis: a, bestPeer: tree, bestPeerValue: b, ratio: sig(a / b) };
      }
    }
    const t = bySystem['trellis'];
    // The issue's yardstick is Kùzu's COPY FROM; without Kùzu, the fastest-loading peer.
    const bestLoad = bySystem['kuzu'] ?? [...peers].sort((a, b) => loadCost(a) - loadCost(b))[0];
    // For load the ratio is peer time / Trellis time, so above 1 means Trellis is faster, as for queries.
    if (t && bestLoad)
      row['load'] = {
        trellis: loadCost(t),
        bestPeer: bestLoad.system,
        bestPeerValue: loadCost(bestLoad),
        ratio: sig(loadCost(bestLoad) / loadCost(t)),
      };
    for (const [system, key] of [
      ['trellis-import', 'import'],
      ['trellis-import-http', 'http import'],
    ] as const) {
      const i = bySystem[system];
      if (i?.loadMs && bestLoad)
        row[key] = {
          trellis: loadCost(i),
          bestPeer: bestLoad.system,
          bestPeerValue: loadCost(bestLoad),
          ratio: sig(loadCost(bestLoad) / loadCost(i)),
        };
    }
    const h = bySystem['trellis-http'];
    if (h?.loadMs && bestLoad)
      row['http load'] = {
        trellis: loadCost(h),
        bestPeer: bestLoad.system,
        bestPeerValue: loadCost(bestLoad),
        ratio: sig(loadCost(bestLoad) / loadCost(h)),
      };
    ratios[size] = row;
  }
  const growth: Summary['growth'] = {};
  const order = Object.keys(SIZES).filter((s) => results[s]);
  for (const q of [...ALL_QUERIES, 'load'] as const) {
    for (let i = 1; i < order.length; i++) {
      const [from, to] = [order[i - 1]!, order[i]!];
      for (const [system, r] of Object.entries(results[to]!)) {
        const prev = results[from]![system];
        if (!prev) continue;
        const factor =
          q === 'load'
            ? loadCost(r) && loadCost(prev)
              ? loadCost(r) / loadCost(prev)
              : NaN
            : prev.queries[q] && r.queries[q]
              ? prev.queries[q]!.opsPerSec / r.queries[q]!.opsPerSec
              : NaN;
        if (!Number.isNaN(factor)) ((growth[q] ??= {})[system] ??= {})[`${from}->${to}`] = round(factor);
      }
    }
  }
  const targets: Target[] = [];
  for (const size of Object.keys(ratios)) {
    const r = ratios[size]!;
    for (const [q, need] of [
      ['point', 5],
      ['one_hop', 5],
      ['two_hop_count', 1],
      ['filtered_count', 1],
    ] as const) {
      targets.push({
        target: `embedded ${q} vs faster peer`,
        size,
        need: `>= ${need}x`,
        got: r[q]?.ratio ?? null,
        met: r[q] ? r[q]!.ratio >= need : null,
      });
    }
    for (const q of ['point', 'one_hop', 'two_hop_count'] as const) {
      for (const route of ['cypher/tree', 'http cypher/tree'] as const) {
        const got = r[`${route} ${q}`];
        if (got)
          targets.push({ target: `${route} ${q} (Cypher vs /v2/query)`, size, need: '>= 0.9x', got: got.ratio, met: got.ratio >= 0.9 });
      }
      const kuzu = r[`cypher ${q}`];
      if (kuzu)
        targets.push({
          target: `Cypher ${q} vs ${kuzu.bestPeer} on the same text`,
          size,
          need: '> 1x',
          got: kuzu.ratio,
          met: kuzu.ratio > 1,
        });
    }
    if (size === 'medium' && r['load']) {
      const slower = sig(r['load'].trellis / r['load'].bestPeerValue);
      targets.push({
        target: `bulk load vs ${r['load'].bestPeer} (Trellis time / peer time)`,
        size,
        need: '<= 3x',
        got: slower,
        met: slower <= 3,
      });
    }
    for (const [key, label, need] of [
      ['import', 'trellis import', 1],
      ['http import', 'trellis import --url', 1.5],
    ] as const) {
      const got = r[key];
      if (size !== 'medium' || !got) continue;
      const slower = sig(got.trellis / got.bestPeerValue);
      targets.push({
        target: `${label} vs ${got.bestPeer} COPY FROM (Trellis time / peer time)`,
        size,
        need: `<= ${need}x`,
        got: slower,
        met: slower <= need,
      });
    }
    if (size === 'medium' && r['http load']) {
      const slower = sig(r['http load'].trellis / r['http load'].bestPeerValue);
      targets.push({
        target: `bulk load over HTTP vs ${r['http load'].bestPeer} (Trellis time / peer time)`,
        size,
        need: '<= 3x',
        got: slower,
        met: slower <= 3,
      });
    }
  }
  targets.push({ target: 'HTTP point reads vs bare uWS server', size: '-', need: '>= 0.6x', got: null, met: null });
  return {
    note: 'one run on one machine: ratios compare systems measured minutes apart on the same cores; absolute figures vary between runs',
    machine,
    results,
    ratios,
    growth,
    targets,
    failures,
  };
}

const fmt = (x: number | undefined) => (x === undefined ? '-' : x >= 100 ? String(Math.round(x)) : String(round(x, x >= 10 ? 1 : 2)));

export function toMarkdown(s: Summary): string {
  const lines: string[] = [];
  for (const [size, bySystem] of Object.entries(s.results)) {
    const systems = Object.keys(bySystem);
    const r0 = Object.values(bySystem)[0]!;
    lines.push(`### ${size} (${r0.nodes.toLocaleString('en')} nodes / ${r0.edges.toLocaleString('en')} edges)`, '');
    lines.push(`| query | ${systems.map((x) => `${x} ops/s (p50 / p99 ms)`).join(' | ')} | Trellis / faster peer | HTTP / faster peer |`);
    lines.push(`|---|${systems.map(() => '---:').join('|')}|---:|---:|`);
    for (const q of ALL_QUERIES) {
      const cells = systems.map((x) => {
        const st = bySystem[x]!.queries[q];
        return st ? `${fmt(st.opsPerSec)} (${st.p50Ms} / ${st.p99Ms})` : '-';
      });
      lines.push(`| ${q} | ${cells.join(' | ')} | ${s.ratios[size]?.[q]?.ratio ?? '-'} | ${s.ratios[size]?.[`http ${q}`]?.ratio ?? '-'} |`);
    }
    lines.push('', '| system | load ms (phases) | peak RSS MB |', '|---|---|---:|');
    for (const x of systems) {
      const r = bySystem[x]!;
      lines.push(`| ${x} ${r.version} | ${r.loadMs ? `${r.loadMs} ${JSON.stringify(r.loadPhasesMs)}` : '-'} | ${r.maxRssMb} |`);
    }
    const load = s.ratios[size]?.['load'];
    if (load)
      lines.push(
        '',
        `Load: Trellis ${load.trellis} ms vs ${load.bestPeer} ${load.bestPeerValue} ms (Trellis takes ${fmt(load.trellis / load.bestPeerValue)}x as long).`,
      );
    const httpLoad = s.ratios[size]?.['http load'];
    if (httpLoad)
      lines.push(
        `Load over HTTP: Trellis ${httpLoad.trellis} ms (${fmt(httpLoad.trellis / httpLoad.bestPeerValue)}x ${httpLoad.bestPeer}'s time).`,
      );
    for (const x of systems) for (const note of bySystem[x]!.notes.filter((n) => n.startsWith('load:'))) lines.push(`${x} ${note}.`);
    lines.push('');
  }
  const steps = [...new Set(Object.values(s.growth).flatMap((bySys) => Object.values(bySys).flatMap((g) => Object.keys(g))))];
  const systems = [...new Set(Object.values(s.growth).flatMap((bySys) => Object.keys(bySys)))];
  lines.push('### Cost growth (time per op at the larger size / at the smaller)', '');
  lines.push(`| query | ${systems.flatMap((x) => steps.map((st) => `${x} ${st}`)).join(' | ')} |`);
  lines.push(`|---|${systems.flatMap(() => steps.map(() => '---:')).join('|')}|`);
  for (const [q, bySys] of Object.entries(s.growth))
    lines.push(`| ${q} | ${systems.flatMap((x) => steps.map((st) => fmt(bySys[x]?.[st]))).join(' | ')} |`);
  lines.push('', '### Targets', '', '| target | size | need | got | met |', '|---|---|---|---:|---|');
  for (const t of s.targets)
    lines.push(
      `| ${t.target} | ${t.size} | ${t.need} | ${t.got ?? '-'} | ${t.met === null ? 'not measured here' : t.met ? 'yes' : 'NO'} |`,
    );
  if (s.failures.length)
    lines.push('', 'Failures:', '', ...s.failures.map((f) => `- ${f.system} ${f.size}: ${f.error.replace(/\n/g, ' ')}`));
  return lines.join('\n') + '\n';
}
