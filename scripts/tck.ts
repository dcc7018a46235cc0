/**
 * The openCypher TCK (../shared/tck) against Trellis's Cypher (Database.cypherText): every
 * case, Scenario Outlines expanded, run on a fresh embedded database, with a verdict (pass,
 * fail, skip) and whether the case is in scope (scripts/tck/scope.ts). Prints figures per
 * folder and totals over the in-scope cases and over all; the gate
 * (test/cypher/tck-gate.test.ts) holds the in-scope pass count at the figure in docs/cypher.md.
 *
 * Run: npm run build && npm run tck -- [options]
 *   --tck <dir>        the TCK (default: ../shared/tck beside the repository)
 *   --filter <text>    only cases whose feature path or scenario name contains <text>
 *   --json <file>      write every case {feature, scenario, index, inScope, status, reason, ms}
 *   --group <g>        group figures by 'top' (clauses, ...), 'folder' (clauses/match: the
 *                      default; --folder says the same) or 'feature' (one line per file)
 *   --reuse            one database emptied between cases instead of a fresh folder per case
 *   --tmp <dir>        where the per-case database folders go (default: /dev/shm when it is
 *                      writable, else the OS temporary folder: opening a database on disk
 *                      costs ~10-40 ms, on tmpfs ~5)
 *   --verbose          list every in-scope failure (the first 50 otherwise)
 * The exit code is 0 whatever the figures: the gate is the test.
 */
import { writeFileSync } from 'node:fs';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { DEFAULT_TCK, loadTck } from './tck/load.js';
import { formatReport, summarise, type CaseResult, type Grouping, type TckReport } from './tck/report.js';
import { defaultTmp, freshDatabases, reusedDatabase, runCase } from './tck/run.js';
import { classify } from './tck/scope.js';

export { DEFAULT_TCK };

export interface TckOptions {
  readonly tck?: string;
  readonly filter?: string;
  readonly grouping?: Grouping;
  readonly reuse?: boolean;
  /** Where the per-case database folders go (default: /dev/shm when writable, else the OS temporary folder). */
  readonly tmp?: string;
}

/** Runs the TCK (or the cases `filter` selects) and returns the report. */
export async function runTck(options: TckOptions = {}): Promise<TckReport> {
  const tck = options.tck ?? DEFAULT_TCK;
  const started = performance.now();
  const filter = options.filter;
  const cases = loadTck(tck).cases.filter((c) => filter === undefined || c.feature.includes(filter) || c.scenario.includes(filter));
  const root = options.tmp ?? defaultTmp();
  const reused = options.reuse === true ? await reusedDatabase(root) : null;
  const dbs = reused ?? freshDatabases(root);
  const results: CaseResult[] = new Array(cases.length);
  const runOne = async (at: number) => {
    const c = cases[at]!;
    const scope = classify(c);
    const t0 = performance.now();
    const verdict = await runCase(c, { tck, ...dbs });
    results[at] = {
      feature: c.feature,
      scenario: c.scenario,
      index: c.index,
      inScope: scope.inScope,
      outOfScope: scope.rules,
      status: verdict.status,
      reason: verdict.reason,
      ms: Math.round((performance.now() - t0) * 100) / 100,
    };
  };
  try {
    // One case at a time: running several at once was no faster (opening a database is I/O-bound).
    for (let at = 0; at < cases.length; at++) await runOne(at);
  } finally {
    await reused?.close();
  }
  return summarise(tck, results, options.grouping ?? 'folder', performance.now() - started);
}

async function main(args: string[]): Promise<void> {
  const option = (name: string) => {
    const at = args.indexOf(name);
    return at >= 0 ? args[at + 1] : undefined;
  };
  const group = option('--group') ?? 'folder';
  if (group !== 'top' && group !== 'folder' && group !== 'feature') throw new Error(`--group must be top, folder or feature, not ${group}`);
  const report = await runTck({
    tck: option('--tck'),
    filter: option('--filter'),
    grouping: args.includes('--folder') ? 'folder' : group,
    reuse: args.includes('--reuse'),
    tmp: option('--tmp'),
  });
  const json = option('--json');
  if (json !== undefined) writeFileSync(json, JSON.stringify(report, null, 2) + '\n');
  console.log(formatReport(report, args.includes('--verbose') ? Infinity : 50));
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(process.argv[1]).href)
  main(process.argv.slice(2)).catch((err: unknown) => {
    console.error(err);
    process.exitCode = 1;
  });
