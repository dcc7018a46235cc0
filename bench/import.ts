/**
 * `trellis import` against Kùzu's COPY FROM of the same CSV files (issue 30), interleaved:
 * the dataset's files are written once per size (bench/lib/import-files.ts), then every
 * round runs each system once, in an order that rotates from round to round:
 *
 * - kuzu: CREATE TABLE x2 + COPY FROM x2 in a child (bench/peers/kuzu-copy.ts), timed
 *   inside it (its process start and module load excluded);
 * - trellis: `trellis import --data <new folder> --mapping ...` as a child process, timed
 *   from its spawn to its exit (node's start included): files to a database ready to query;
 * - trellis-http: the same files through `trellis import --url` into a fresh server
 *   (started before the clock starts), timed from the import's spawn to its exit.
 *
 * Each Trellis database is checked after its load (counts, and the out-neighbours of ten
 * users against the generator). Prints one JSON document (medians, each round's figures,
 * ratios to Kùzu, peak RSS) on stdout; progress on stderr.
 *
 *   node dist/bench/import.js [--sizes medium,large] [--rounds 3] [--systems kuzu,trellis,trellis-http]
 *        [--markdown FILE]
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { cpus, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { open } from '../src/index.js';
import { DEFAULT_SEED, generateEdges, SIZES, type SizeName } from './lib/dataset.js';
import { writeDatasetCsv, type DatasetFiles } from './lib/import-files.js';
import { median } from './lib/stats.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CLI = fileURLToPath(new URL('../src/cli.js', import.meta.url));
const KUZU_COPY = join(ROOT, 'bench/peers/dist/peers/kuzu-copy.js');

interface Run {
  readonly ms: number;
  readonly rssMb: number;
  readonly detail: Record<string, number>;
}

function child(args: string[], cwd?: string): Promise<{ code: number | null; out: string; ms: number; pid: number }> {
  return new Promise((resolve) => {
    const t0 = performance.now();
    const proc = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], ...(cwd ? { cwd } : {}) });
    let out = '';
    proc.stdout.on('data', (d: Buffer) => (out += d.toString()));
    proc.stderr.on('data', (d: Buffer) => (out += d.toString()));
    proc.once('exit', (code) => resolve({ code, out, ms: performance.now() - t0, pid: proc.pid ?? 0 }));
  });
}

/** The import's own summary line: its time and peak RSS. */
function summaryOf(out: string): { ms: number; rssMb: number } {
  const m = /in ([\d.]+) s .*peak RSS (\d+) MiB/.exec(out);
  if (m === null) throw new Error(`no summary in the import's output:\n${out}`);
  return { ms: Math.round(Number(m[1]) * 1000), rssMb: Number(m[2]) };
}

/** Counts and ten users' out-neighbours against the generator. */
async function check(path: string, size: SizeName, seed: number): Promise<void> {
  const db = await open(path, { readOnly: true });
  try {
    const { nodes, edges } = SIZES[size];
    const list = generateEdges(seed, SIZES[size]);
    const expected = new Map<number, number[]>();
    for (let k = 0; k < list.from.length; k++)
      if (list.from[k]! < 10) (expected.get(list.from[k]!) ?? expected.set(list.from[k]!, []).get(list.from[k]!)!).push(list.to[k]!);
    db.store.read((r) => {
      if (r.nodeCount() !== nodes || r.edgeCount() !== edges) throw new Error(`${path}: ${r.nodeCount()} nodes, ${r.edgeCount()} edges`);
      for (let uid = 0; uid < 10; uid++) {
        const got = r.neighbourIds(uid, 'out', 'FOLLOWS').map((id) => Number(r.getNode(id)!.props.uid));
        const want = [...new Set(expected.get(uid) ?? [])].sort((a, b) => a - b);
        if (JSON.stringify(got.sort((a, b) => a - b)) !== JSON.stringify(want))
          throw new Error(`${path}: user ${uid} follows ${got}, expected ${want}`);
      }
    });
  } finally {
    await db.close();
  }
}

async function kuzu(files: DatasetFiles): Promise<Run> {
  const r = await child([KUZU_COPY, '--users', files.users, '--follows', files.follows]);
  if (r.code !== 0) throw new Error(`kuzu-copy failed: ${r.out}`);
  const line = JSON.parse(r.out.trim().split('\n').pop()!) as Record<string, number>;
  return {
    ms: line.copyFrom!,
    rssMb: line.rssMb!,
    detail: { copyNodes: line.copyNodes!, copyEdges: line.copyEdges!, processMs: Math.round(r.ms) },
  };
}

async function trellisOffline(files: DatasetFiles, size: SizeName, seed: number): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-import-'));
  try {
    const r = await child([CLI, 'import', '--data', join(dir, 'db'), '--mapping', files.mapping, '--progress', 'none']);
    if (r.code !== 0) throw new Error(`trellis import failed: ${r.out}`);
    const summary = summaryOf(r.out);
    await check(join(dir, 'db'), size, seed);
    return { ms: Math.round(r.ms), rssMb: summary.rssMb, detail: { reported: summary.ms } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A server on a fresh folder; stop() returns its peak RSS (MB). */
async function server(dir: string): Promise<{ url: string; stop(): Promise<number> }> {
  const proc = spawn(process.execPath, [CLI, '--port', '0', '--data', dir], { stdio: ['ignore', 'pipe', 'inherit'] });
  const url = await new Promise<string>((resolve, reject) => {
    let text = '';
    proc.stdout.on('data', (d: Buffer) => {
      text += d.toString();
      const port = /listening on http:\/\/[^:]+:(\d+)/.exec(text)?.[1];
      if (port && text.includes('trellis ready')) resolve(`http://127.0.0.1:${port}`);
    });
    proc.once('exit', (code) => reject(new Error(`the server exited with ${code}: ${text}`)));
  });
  return {
    url,
    async stop() {
      const hwm = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${proc.pid}/status`, 'utf8'))?.[1];
      const exited = new Promise((r) => proc.once('exit', r));
      proc.kill('SIGTERM');
      await exited;
      return Math.round(Number(hwm ?? 0) / 1024);
    },
  };
}

async function trellisOnline(files: DatasetFiles, size: SizeName, seed: number): Promise<Run> {
  const dir = mkdtempSync(join(tmpdir(), 'bench-import-http-'));
  try {
    const s = await server(join(dir, 'db'));
    let r: Awaited<ReturnType<typeof child>>;
    let serverRss: number;
    try {
      r = await child([CLI, 'import', '--url', s.url, '--mapping', files.mapping, '--progress', 'none']);
    } finally {
      serverRss = await s.stop();
    }
    if (r.code !== 0) throw new Error(`trellis import --url failed: ${r.out}`);
    const summary = summaryOf(r.out);
    await check(join(dir, 'db'), size, seed);
    return { ms: Math.round(r.ms), rssMb: summary.rssMb, detail: { reported: summary.ms, serverRssMb: serverRss } };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function main(argv: string[]): Promise<void> {
  const get = (flag: string, dflt: string) => {
    const i = argv.indexOf(flag);
    return i >= 0 ? (argv[i + 1] ?? dflt) : dflt;
  };
  const sizes = get('--sizes', 'medium').split(',') as SizeName[];
  const rounds = Number(get('--rounds', '3'));
  const systems = get('--systems', 'kuzu,trellis,trellis-http').split(',');
  const seed = Number(get('--seed', String(DEFAULT_SEED)));
  if (systems.includes('kuzu') && !existsSync(KUZU_COPY))
    throw new Error(`${KUZU_COPY} is missing: run npm run bench:peers once (it installs and builds bench/peers)`);
  const results: Record<string, Record<string, { medianMs: number; medianRssMb: number; runs: Run[] }>> = {};
  for (const size of sizes) {
    const dir = mkdtempSync(join(tmpdir(), 'bench-import-files-'));
    try {
      process.stderr.write(`[${size}] writing the CSV files\n`);
      const files = await writeDatasetCsv(dir, seed, SIZES[size]);
      const runs: Record<string, Run[]> = {};
      for (let round = 0; round < rounds; round++) {
        // The order rotates, so no system always runs first on a cold cache.
        const order = systems.map((_, i) => systems[(i + round) % systems.length]!);
        for (const system of order) {
          const run =
            system === 'kuzu'
              ? await kuzu(files)
              : system === 'trellis'
                ? await trellisOffline(files, size, seed)
                : await trellisOnline(files, size, seed);
          (runs[system] ??= []).push(run);
          process.stderr.write(
            `[${size} round ${round + 1}] ${system}: ${run.ms} ms, peak RSS ${run.rssMb} MB ${JSON.stringify(run.detail)}\n`,
          );
        }
      }
      results[size] = Object.fromEntries(
        Object.entries(runs).map(([system, list]) => [
          system,
          { medianMs: Math.round(median(list.map((r) => r.ms))), medianRssMb: Math.round(median(list.map((r) => r.rssMb))), runs: list },
        ]),
      );
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }
  const ratios: Record<string, Record<string, number>> = {};
  for (const [size, bySystem] of Object.entries(results)) {
    const k = bySystem['kuzu'];
    if (k === undefined) continue;
    for (const [system, r] of Object.entries(bySystem)) {
      if (system === 'kuzu') continue;
      // The median of each round's ratio (the systems of a round ran minutes apart at most).
      const perRound = r.runs.map((run, i) => run.ms / k.runs[i]!.ms);
      (ratios[size] ??= {})[`${system} / kuzu`] = Math.round(median(perRound) * 100) / 100;
    }
  }
  const growth: Record<string, number> = {};
  for (const system of ['trellis', 'trellis-http']) {
    const m = results['medium']?.[system];
    const l = results['large']?.[system];
    if (m && l) growth[`${system} large / medium`] = Math.round((l.medianMs / m.medianMs) * 100) / 100;
  }
  const machine = { cpu: cpus()[0]?.model, cores: cpus().length, memGiB: Math.round(totalmem() / 2 ** 30), node: process.version };
  const summary = { machine, rounds, results, ratios, growth };
  process.stdout.write(JSON.stringify(summary, null, 2) + '\n');
  const md = get('--markdown', '');
  if (md) {
    const lines = ['| size | system | median ms | each round, ms | peak RSS MB (median) |', '|---|---|---:|---|---:|'];
    for (const [size, bySystem] of Object.entries(results)) {
      for (const [system, r] of Object.entries(bySystem)) {
        lines.push(`| ${size} | ${system} | ${r.medianMs} | ${r.runs.map((x) => x.ms).join(', ')} | ${r.medianRssMb} |`);
      }
    }
    lines.push('', '| ratio | value |', '|---|---:|');
    for (const [size, row] of Object.entries(ratios)) for (const [k, v] of Object.entries(row)) lines.push(`| ${size} ${k} | ${v} |`);
    for (const [k, v] of Object.entries(growth)) lines.push(`| ${k} | ${v} |`);
    writeFileSync(md, lines.join('\n') + '\n');
  }
}

try {
  await main(process.argv.slice(2));
  process.exit(0);
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  process.exit(1);
}
