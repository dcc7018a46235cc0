/**
 * `trellis import` and `trellis export` (docs/import-export.md): flags to a plan, the work,
 * a summary line; any failure is one line on stderr naming the file, line and column (or
 * the folder) and what to do, with exit status 1 (2 for a usage mistake, 130 after Ctrl+C).
 */
import { messageOf } from '../core/errors.js';
import { DataFolderError } from '../store/index.js';
import { ImportError } from './convert.js';
import { HeaderError } from './header.js';
import { ImportInterrupted, type Summary } from './load.js';
import { importOffline, IndexBuildFailed } from './offline.js';
import { IMPORT_USAGE, importPlan, UsageError, type ImportPlan } from './plan.js';
import { progressReport, seconds } from './progress.js';

const count = (n: number) => n.toLocaleString('en-US');

function summaryLine(s: Summary): string {
  const rate = s.ms > 0 ? Math.round(((s.nodes + s.edges) * 1000) / s.ms) : 0;
  const rejected = s.rejected === 0 ? 'no row rejected' : `${count(s.rejected)} rows rejected (in ${s.rejectsFile})`;
  return `trellis import: ${count(s.nodes)} nodes and ${count(s.edges)} edges in ${seconds(s.ms)} (${count(rate)} rows/s), ${rejected}`;
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
    const summary = plan.data !== undefined ? await importOffline(plan, progress, () => stop) : await importOnline(plan, progress, () => stop);
    progress.done();
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
