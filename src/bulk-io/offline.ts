/**
 * The offline import: runImport (load.ts) into a BulkBuild (src/store/bulk-build.ts) of the
 * target folder, then the indexes, built once over the loaded data. On any error or Ctrl+C
 * the build is dropped and the folder stays as it was.
 */
import type { BulkBuild, Store } from '../store/index.js';
import type { ImportPlan } from './plan.js';
import type { Progress } from './progress.js';
import { ImportInterrupted, runImport, type Sink, type Summary } from './load.js';

/** How often index builds are polled. */
const POLL_MS = 20;

export async function importOffline(plan: ImportPlan, progress: Progress, interrupted: () => boolean): Promise<Summary> {
  let build: BulkBuild | undefined;
  // The store (lmdb-js and its own modules) loads while the CSV thread starts reading.
  const openSink = async (): Promise<Sink> => {
    const { BulkBuild } = await import('../store/index.js');
    const opened = await BulkBuild.open({ target: plan.data! });
    build = opened;
    return {
      addNodes: (label, count, columns) => {
        const first = opened.addNodes(label, count, columns);
        return Promise.resolve({ ids: Promise.resolve(idsFrom(first, count)) });
      },
      addEdges: (label, from, to, count, columns) => Promise.resolve(void opened.addEdges(label, from, to, count, columns)),
      flush: () => Promise.resolve(),
    };
  };
  try {
    const summary = await runImport(plan, openSink, progress, interrupted);
    const built = build!;
    const indexes = [...built.state.indexes, ...plan.indexes];
    progress.phase(indexes.length > 0 ? `adjacency, ${indexes.length} index${indexes.length === 1 ? '' : 'es'}` : 'adjacency', 0);
    await built.finish(plan.indexes, indexes.length === 0 ? undefined : (store) => waitForIndexes(store, interrupted));
    progress.done();
    return summary;
  } catch (err) {
    await build?.abort();
    throw err;
  }
}

/** The ids first, first + 1, ... of `count` rows. */
function idsFrom(first: number, count: number): Float64Array {
  const ids = new Float64Array(count);
  for (let i = 0; i < count; i++) ids[i] = first + i;
  return ids;
}

/** An index build that cannot finish (a unique key twice, a bad vector): the import fails. */
export class IndexBuildFailed extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'IndexBuildFailed';
  }
}

/** Waits until every index build of the store's catalogue has finished. */
async function waitForIndexes(store: Store, interrupted: () => boolean): Promise<void> {
  for (;;) {
    const pending = store.read((r) => {
      const open: string[] = [];
      for (const def of r.indexCatalog().defs) {
        if (def.state !== 'building') continue;
        const op = r.indexOperation(def.operation);
        if (op?.status === 'blocked') {
          const why = typeof op.message === 'string' ? op.message : 'blocked';
          throw new IndexBuildFailed(`the index ${def.spec.kind} on ${def.spec.label}.${def.spec.property} cannot be built: ${why}`);
        }
        open.push(def.spec.kind);
      }
      return open;
    });
    if (pending.length === 0) return;
    if (interrupted()) throw new ImportInterrupted();
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
}
