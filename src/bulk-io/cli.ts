/**
 * `trellis import` and `trellis export` (docs/import-export.md): flags to a plan, the work,
 * a summary line; any failure is one line on stderr naming the file, line and column (or
 * the folder) and what to do, with exit status 1 (2 for a usage mistake, 130 after Ctrl+C).
 */
import { resolve } from 'node:path';
import { messageOf } from '../core/errors.js';
// folder.ts alone: the store's other modules (and lmdb-js) load only once the import has
// started its CSV thread (offline.ts).
import { DataFolderError } from '../store/folder.js';
import { ImportError } from './convert.js';
import { HeaderError } from './header.js';
import { ImportInterrupted, type Summary } from './load.js';
import { importOffline, IndexBuildFailed } from './offline.js';
import { IMPORT_USAGE, importPlan, parseFlags, progressMode, UsageError, type ImportPlan } from './plan.js';
import { count, progressReport, seconds, type Mode } from './progress.js';

function summaryLine(s: Summary): string {
  const rate = s.ms > 0 ? Math.round(((s.nodes + s.edges) * 1000) / s.ms) : 0;
  const rejected = s.rejected === 0 ? 'no row rejected' : `${count(s.rejected)} rows rejected (in ${s.rejectsFile})`;
  const rss = Math.round(process.resourceUsage().maxRSS / 1024);
  return `trellis import: ${count(s.nodes)} nodes and ${count(s.edges)} edges in ${seconds(s.ms)} (${count(rate)} rows/s, peak RSS ${rss} MiB), ${rejected}`;
}

/** What a failure says, in one line. */
export function failureMessage(err: unknown): string {
  if (err instanceof ImportError || err instanceof DataFolderError || err instanceof HeaderError || err instanceof IndexBuildFailed) {
    return err.message;
  }
  return messageOf(err).replace(/\s+/g, ' ').trim();
}

/** Runs `trellis import <argv>`; resolves with the exit status. */
export async function importMain(argv: readonly string[], cwd = process.cwd()): Promise<number> {
  const started = performance.now();
  let plan: ImportPlan & { help: boolean };
  try {
    plan = importPlan(argv, cwd);
  } catch (err) {
    if (err instanceof UsageError || err instanceof HeaderError) {
      console.error(`trellis import: ${err.message}\n\n${IMPORT_USAGE}`);
      return 2;
    }
    throw err;
  }
  if (plan.help) {
    console.log(IMPORT_USAGE);
    return 0;
  }
  let stop = false;
  const onSignal = () => {
    if (stop) process.exit(130);
    stop = true;
    console.error('trellis import: stopping (Ctrl+C again to quit at once)');
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const progress = progressReport(plan.progress);
  try {
    const summary =
      plan.data !== undefined ? await importOffline(plan, progress, () => stop) : await importOnline(plan, progress, () => stop);
    progress.done();
    // From the command's start to a database ready to query (the index builds and the flush included).
    summary.ms = performance.now() - started;
    console.log(summaryLine(summary));
    return 0;
  } catch (err) {
    progress.done();
    if (err instanceof ImportInterrupted) {
      console.error(
        plan.data !== undefined
          ? `trellis import: interrupted; ${plan.data} is as it was before the import`
          : 'trellis import: interrupted; the batches the server acknowledged are kept, none is half-applied',
      );
      return 130;
    }
    const undo =
      plan.data !== undefined
        ? `nothing was imported (${plan.data} is as it was)`
        : 'batches acknowledged before this one are kept; see docs/import-export.md, "Online imports"';
    console.error(`trellis import: ${failureMessage(err)}; ${undo}`);
    return 1;
  } finally {
    process.off('SIGINT', onSignal);
    process.off('SIGTERM', onSignal);
  }
}

async function importOnline(plan: ImportPlan, progress: ReturnType<typeof progressReport>, interrupted: () => boolean): Promise<Summary> {
  const { importOnline: run } = await import('./online.js');
  return run(plan, progress, interrupted);
}

export const EXPORT_USAGE = `Usage: trellis export --data DIR --out DIR [options]

Writes the database (or chosen labels) as files that trellis import loads back, from one
read snapshot; works while a server runs on the folder.

  --data DIR               the database folder
  --out DIR                where the files go (created; files of the same names are replaced)
  --format F               csv (neo4j-admin headers), jsonl, parquet, or cypher (CREATE
                           statements for another Cypher database) (csv)
  --labels A,B             only nodes of these labels (and edges between them)
  --types T,U              only edges of these types
  --array-delimiter C      separator of array items in a CSV cell (;)
  --progress auto|bars|lines|none   (auto)
  --help                   print this text`;

/** Runs `trellis export <argv>`; resolves with the exit status. */
export async function exportMain(argv: readonly string[], cwd = process.cwd()): Promise<number> {
  let raw: ExportFlags;
  let mode: Mode;
  try {
    raw = parseFlags<ExportFlags>(argv, EXPORT_FLAGS, { help: false });
    mode = progressMode(raw.progress);
  } catch (err) {
    if (!(err instanceof UsageError)) throw err;
    console.error(`trellis export: ${err.message}\n\n${EXPORT_USAGE}`);
    return 2;
  }
  if (raw.help) {
    console.log(EXPORT_USAGE);
    return 0;
  }
  const usage = (msg: string) => {
    console.error(`trellis export: ${msg}\n\n${EXPORT_USAGE}`);
    return 2;
  };
  if (raw.data === undefined || raw.out === undefined) return usage('give --data DIR and --out DIR');
  const format = raw.format ?? 'csv';
  if (!['csv', 'jsonl', 'parquet', 'cypher'].includes(format))
    return usage(`--format must be csv, jsonl, parquet or cypher, got "${format}"`);
  const arrayDelimiter = raw.arrayDelimiter ?? ';';
  if (arrayDelimiter.length !== 1) return usage('--array-delimiter must be one character');
  const list = (text: string | undefined) =>
    text === undefined
      ? null
      : text
          .split(',')
          .map((s) => s.trim())
          .filter((s) => s !== '');
  const { exportDatabase } = await import('./export.js');
  const progress = progressReport(mode);
  try {
    const summary = await exportDatabase(
      {
        data: resolve(cwd, raw.data),
        out: resolve(cwd, raw.out),
        format: format as 'csv',
        labels: list(raw.labels),
        types: list(raw.types),
        arrayDelimiter,
      },
      progress,
    );
    console.log(
      `trellis export: ${count(summary.nodes)} nodes and ${count(summary.edges)} edges in ${seconds(summary.ms)} to ${resolve(cwd, raw.out)} (${summary.files.join(', ')})`,
    );
    return 0;
  } catch (err) {
    progress.done();
    console.error(`trellis export: ${failureMessage(err)}`);
    return 1;
  }
}

interface ExportFlags {
  data?: string;
  out?: string;
  format?: string;
  labels?: string;
  types?: string;
  arrayDelimiter?: string;
  progress?: string;
  help: boolean;
}

const EXPORT_FLAGS: Record<string, keyof ExportFlags> = {
  '--data': 'data',
  '--out': 'out',
  '--format': 'format',
  '--labels': 'labels',
  '--types': 'types',
  '--array-delimiter': 'arrayDelimiter',
  '--progress': 'progress',
};
