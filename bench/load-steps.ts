/**
 * Times every request of the embedded bulk load separately, with the data file's size
 * after each: shows whether a load's cost per transaction grows with the database
 * (docs/benchmarks.md, "Large load per transaction").
 *
 *   node dist/bench/load-steps.js [--size tiny|small|medium|large] [--edges-per-request N]
 *        [--profile-edges FILE]
 *
 * `--profile-edges FILE` records a CPU profile (the inspector's sampling profiler, 200 µs,
 * what `node --cpu-prof` records) of the edge requests only and writes it to FILE;
 * `node dist/bench/lib/profile-summary.js FILE` summarises it.
 */
import { mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { Session } from 'node:inspector/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { open } from '../src/index.js';
import { machine, parseBenchArgs, positiveInt, progress, runBench } from './lib/cli.js';
import { DEFAULT_SEED, SIZES } from './lib/dataset.js';
import { EMBEDDED_BATCHES, loadRequests } from './lib/load-trellis.js';
import { round } from './lib/stats.js';

interface Step {
  rows: 'nodes' | 'edges';
  ms: number;
  file_mb: number;
}

async function main(): Promise<void> {
  const args = parseBenchArgs(process.argv.slice(2), ['edges-per-request', 'profile-edges']);
  const size = SIZES[args.size];
  const batches = {
    ...EMBEDDED_BATCHES,
    edges: positiveInt(args.values['edges-per-request'], EMBEDDED_BATCHES.edges, 'edges-per-request'),
  };
  const dir = mkdtempSync(join(tmpdir(), 'bench-load-steps-'));
  try {
    progress(`building the load requests of ${args.size}`);
    const requests = loadRequests(DEFAULT_SEED, size, batches);
    const db = await open(dir);
    const steps: Step[] = [];
    const run = async (rows: Step['rows'], text: string) => {
      const t = performance.now();
      await db.queryText(text);
      steps.push({ rows, ms: round(performance.now() - t, 1), file_mb: round(statSync(join(dir, 'data.mdb')).size / 1e6, 1) });
      progress(`${rows} request ${steps.length}: ${steps.at(-1)!.ms} ms, file ${steps.at(-1)!.file_mb} MB`);
    };
    for (const text of requests.nodes) await run('nodes', text);
    const profileFile = args.values['profile-edges'];
    const session = profileFile === undefined ? null : new Session();
    if (session !== null) {
      session.connect();
      await session.post('Profiler.enable');
      await session.post('Profiler.setSamplingInterval', { interval: 200 });
      await session.post('Profiler.start');
    }
    for (const text of requests.edges) await run('edges', text);
    if (session !== null) {
      const { profile } = await session.post('Profiler.stop');
      writeFileSync(profileFile!, JSON.stringify(profile));
      session.disconnect();
    }
    await db.close();
    const report = { bench: 'load-steps', machine: machine(), dataset: { size: args.size, ...size, seed: DEFAULT_SEED }, batches, steps };
    process.stdout.write(`${JSON.stringify(report, null, 2)}\n`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

await runBench(main);
