/**
 * What a vector index costs in memory and on disk (issue 31: resident memory per vector).
 *
 *   node dist/bench/vector-memory.js [--n 1000000] [--dim 128] [--queries 2000] [--rounds 3]
 *        [--linger 0]
 *
 * 1. **Build**, in this process: clustered vectors (bench/lib/vector-data.ts) into a fresh
 *    folder as a user loads them (the index first, `for_each` inserts of 1,000 rows, until
 *    `backlog.queued` is 0); the process's memory before (the generated vectors alone)
 *    and at the end, and its peak RSS. `--linger S` keeps the database open S seconds
 *    more before closing it, for the builder's reach sweep to end its last pass (docs/
 *    architecture.md, "The reach sweep"; a close cuts the pass short).
 * 2. **Serve**, in a fresh child process: open the folder, run `--rounds` passes of
 *    `--queries` searches (the default beam) through `Database.queryText` (q/s per pass);
 *    its memory at
 *    the start, after the open, and after the searches, with the resident share of each
 *    mapping (`/proc/self/smaps`: the data file, the segment, anonymous memory).
 * 3. The files: data.mdb, and the segment folder.
 *
 * Resident memory includes pages of the mapped files that searches touched (the page
 * cache, shared with every process that maps them and given back under pressure) and
 * what the process allocated itself (anonymous). Prints one JSON document.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { open } from '../src/index.js';
import { progress } from './lib/cli.js';
import { CENTRES, createIndex, draw, insertAll, searchText, seeded, settled, SPEC } from './lib/vector-data.js';

const MIB = 2 ** 20;
const mib = (bytes: number) => Math.round(bytes / MIB);

/** The process's memory now, in MiB. */
function memory(): Record<string, number> {
  const m = process.memoryUsage();
  return {
    rss: mib(m.rss),
    heapUsed: mib(m.heapUsed),
    external: mib(m.external),
    peakRss: Math.round(process.resourceUsage().maxRSS / 1024),
  };
}

/** Resident MiB per mapping of this process (the files by name, anonymous memory summed). */
function residentByMapping(): Record<string, number> {
  const out: Record<string, number> = {};
  let current = 'anonymous';
  for (const line of readFileSync('/proc/self/smaps', 'utf8').split('\n')) {
    const head = /^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$/.exec(line);
    if (head !== null) {
      const name = head[1]!;
      current =
        name === '' || name.startsWith('[')
          ? 'anonymous'
          : name.endsWith('data.mdb')
            ? 'data.mdb'
            : name.endsWith('.usearch')
              ? 'segment'
              : 'other files';
      continue;
    }
    const rss = /^Rss:\s+(\d+) kB/.exec(line);
    if (rss !== null) out[current] = (out[current] ?? 0) + Number(rss[1]) / 1024;
  }
  return Object.fromEntries(Object.entries(out).map(([k, v]) => [k, Math.round(v)]));
}

async function serve(dir: string, dim: number, queries: number, rounds: number): Promise<void> {
  const random = seeded(99);
  const requests = draw(random, draw(random, [], CENTRES, dim, false), queries, dim, true).map((v) => searchText(v));
  const start = memory();
  const began = performance.now();
  const db = await open(dir);
  const openMs = performance.now() - began;
  const opened = memory();
  // q/s per round at the default beam (the first round includes the orphans' graph build: orphan-search.ts).
  const qps: number[] = [];
  for (let r = 0; r < rounds; r++) {
    const t = performance.now();
    for (const request of requests) await db.queryText(request);
    qps.push(Math.round((requests.length / (performance.now() - t)) * 1000));
  }
  const searched = memory();
  const mappings = residentByMapping();
  await db.close();
  process.stdout.write(`${JSON.stringify({ openMs: Math.round(openMs), qps, start, opened, searched, residentMiBByMapping: mappings })}\n`);
}

function filesOf(dir: string): { dataMdbMiB: number; segmentFolderMiB: number } {
  const segments = join(dir, 'vectors');
  const segmentBytes = readdirSync(segments).reduce((sum, f) => sum + statSync(join(segments, f)).size, 0);
  return { dataMdbMiB: mib(statSync(join(dir, 'data.mdb')).size), segmentFolderMiB: mib(segmentBytes) };
}

async function main(): Promise<void> {
  const { values } = parseArgs({
    options: {
      n: { type: 'string', default: '1000000' },
      dim: { type: 'string', default: '128' },
      queries: { type: 'string', default: '2000' },
      rounds: { type: 'string', default: '3' },
      linger: { type: 'string', default: '0' },
      serve: { type: 'string' },
    },
  });
  const n = Number(values.n);
  const dim = Number(values.dim);
  if (values.serve !== undefined) return serve(values.serve, dim, Number(values.queries), Number(values.rounds));

  const random = seeded(7);
  const vectors = draw(random, draw(random, [], CENTRES, dim, false), n, dim, true);
  const generated = memory();
  const dir = mkdtempSync(join(tmpdir(), 'trellis-vector-memory-'));
  try {
    progress(`building ${n} x ${dim} in ${dir}`);
    const began = performance.now();
    const db = await open(dir);
    const operation = await createIndex(db, SPEC(dim));
    await settled(db, operation);
    await insertAll(db, { n, vectors, bucket: new Uint8Array(n) });
    await settled(db, operation);
    const buildMs = performance.now() - began;
    const built = memory();
    await new Promise((resolve) => setTimeout(resolve, Number(values.linger) * 1000));
    await db.close();
    progress(`built in ${Math.round(buildMs)} ms; serving in a fresh process`);
    const script = fileURLToPath(import.meta.url);
    const served = JSON.parse(
      execFileSync(
        process.execPath,
        [script, '--serve', dir, '--dim', String(dim), '--queries', String(values.queries), '--rounds', String(values.rounds)],
        {
          encoding: 'utf8',
          maxBuffer: 1 << 20,
        },
      ),
    ) as { searched: { rss: number }; opened: { rss: number } };
    const files = filesOf(dir);
    const report = {
      when: new Date().toISOString(),
      settings: { n, dim, queries: Number(values.queries), rounds: Number(values.rounds), lingerS: Number(values.linger) },
      build: { ms: Math.round(buildMs), generatedVectorsOnly: generated, atEnd: built },
      serve: served,
      files,
      perVector: {
        diskBytes: Math.round(((files.dataMdbMiB + files.segmentFolderMiB) * MIB) / n),
        servingRssGrowthBytes: Math.round(((served.searched.rss - served.opened.rss) * MIB) / n),
      },
    };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
