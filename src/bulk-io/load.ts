/**
 * The import itself, the same offline and online: every node group first (each node's
 * key goes into its id space with the id it got), then every edge group (ends looked up
 * by key), each batch handed to a Sink: the offline bulk build (offline.ts) or a running
 * server (online.ts). A key twice in a space, or an edge end that no node has, stops the
 * import at its row, or is a reject with --skip-bad-rows.
 */
import type { BulkColumn } from '../store/index.js';
import { ImportError, rowIndex, type Key, type ParsedBatch } from './convert.js';
import { GLOBAL_SPACE } from './header.js';
import { IdSpaces, normalKey } from './id-spaces.js';
import type { ImportPlan } from './plan.js';
import type { Progress } from './progress.js';
import { Rejects } from './rejects.js';
import { groupBytes, readGroup, type FileGroup } from './sources.js';
import { CsvThread } from './threaded-csv.js';

export interface Sink {
  /**
   * Loads nodes of one label. Resolves once the sink has taken the rows (they may still be
   * in flight), with `ids`: each row's id, once known. (Online, the next batch is sent
   * while the server stores this one; the edges wait for every id.)
   */
  addNodes(label: string, count: number, columns: BulkColumn[]): Promise<{ readonly ids: Promise<ArrayLike<number>> }>;
  /** Loads edges of one label between node ids (maybe still in flight when it resolves). */
  addEdges(label: string, from: Float64Array, to: Float64Array, count: number, columns: BulkColumn[]): Promise<void>;
  /** Loads what it holds back, waits for everything in flight; throws its first failure. */
  flush(): Promise<void>;
}

export interface Summary {
  nodes: number;
  edges: number;
  rejected: number;
  rejectsFile: string | null;
  ms: number;
}

/** Ctrl+C during an import: the caller undoes what it must. */
export class ImportInterrupted extends Error {
  constructor() {
    super('interrupted');
    this.name = 'ImportInterrupted';
  }
}

/** Rows [of indices] of a batch, as a batch of their own. */
export function selectRows(batch: ParsedBatch, rows: readonly number[]): ParsedBatch {
  if (rows.length === batch.count) return batch;
  const pick = <T>(values: ArrayLike<T> | null) => (values === null ? null : rows.map((r) => values[r]!));
  const columns = batch.columns.map((c): BulkColumn => {
    if (c.kind === 'value') return { name: c.name, kind: 'value', values: rows.map((r) => c.values[r]) };
    const values = new Float64Array(rows.length);
    const present = c.present === null ? null : new Uint8Array(rows.length);
    rows.forEach((r, i) => {
      values[i] = c.values[r]!;
      if (present !== null) present[i] = c.present![r]!;
    });
    return { name: c.name, kind: c.kind, values, present };
  });
  return {
    count: rows.length,
    columns,
    keys: pick(batch.keys),
    labels: pick(batch.labels),
    starts: pick(batch.starts),
    ends: pick(batch.ends),
    rowOf: rows.map((r) => rowIndex(batch, r)),
    spaces: batch.spaces,
    places: batch.places,
  };
}

/**
 * The batch's rows by label: the group's label, unless the row's :LABEL or :TYPE gives
 * one (null: every row, which is the common case and needs no list).
 */
function byLabel(batch: ParsedBatch, group: FileGroup, file: string): Map<string, number[] | null> {
  const out = new Map<string, number[] | null>();
  if (batch.labels === null) {
    if (group.label === undefined) {
      const what =
        group.element === 'node'
          ? 'label: give one (--nodes Label=FILE) or a :LABEL column'
          : 'type: give one (--edges Type=FILE) or a :TYPE column';
      throw new ImportError(file, 1, 1, `the rows have no ${what}`);
    }
    out.set(group.label, null);
    return out;
  }
  for (let i = 0; i < batch.count; i++) {
    const label = batch.labels[i] ?? group.label;
    if (label === undefined) {
      const { line } = batch.places.position(rowIndex(batch, i), -1);
      throw new ImportError(
        batch.places.file,
        line,
        1,
        `the row has no ${group.element === 'node' ? 'label (its :LABEL cell is empty)' : 'type (its :TYPE cell is empty)'}`,
      );
    }
    let rows = out.get(label);
    if (rows === undefined) out.set(label, (rows = []));
    rows!.push(i);
  }
  return out;
}

const showKey = (key: Key) => (typeof key === 'string' ? JSON.stringify(key) : String(key));
const spaceName = (space: string) => (space === GLOBAL_SPACE ? 'the global id space' : `id space ${space}`);

/** What reading a group needs of the import. */
interface Reading {
  readonly plan: ImportPlan;
  readonly rejects: Rejects;
  readonly progress: Progress;
  readonly interrupted: () => boolean;
  readonly csv: CsvThread;
}

/** The group's batches, each counted in the progress report once loaded; Ctrl+C stops between two. */
async function* batches(
  element: 'nodes' | 'edges',
  group: FileGroup,
  { plan, rejects, progress, interrupted, csv }: Reading,
): AsyncGenerator<ParsedBatch> {
  progress.phase(`${element} ${group.label ?? ''}`.trim(), groupBytes(group));
  let bytes = 0;
  const options = {
    delimiter: plan.delimiter,
    quote: plan.quote,
    arrayDelimiter: plan.arrayDelimiter,
    idType: plan.idType,
    reject: rejects.handler,
    onBytes: (n: number) => (bytes += n),
  };
  // CSV is read in a thread of its own, beside the load; JSON Lines and Parquet here.
  for await (const batch of group.format === 'csv' ? csv.read(group, options) : readGroup(group, options)) {
    if (interrupted()) throw new ImportInterrupted();
    yield batch;
    progress.advance(bytes, batch.count);
    bytes = 0;
  }
  progress.done();
}

/**
 * Runs the import into the sink `openSink` makes. The CSV thread starts first, so it reads
 * the first batch while the sink opens (offline: the store's modules load and the build
 * opens, about 0.1 s).
 */
export async function runImport(
  plan: ImportPlan,
  openSink: () => Promise<Sink>,
  progress: Progress,
  interrupted: () => boolean,
): Promise<Summary> {
  const started = performance.now();
  const spaces = new IdSpaces();
  const rejects = new Rejects(plan.rejects, plan.skipBadRows);
  const summary: Summary = { nodes: 0, edges: 0, rejected: 0, rejectsFile: null, ms: 0 };
  const { delimiter, quote, arrayDelimiter, idType } = plan;
  const csvGroups = [...plan.nodes, ...plan.edges].filter((g) => g.format === 'csv');
  const csv = new CsvThread(csvGroups, { delimiter, quote, arrayDelimiter, idType, skipping: rejects.handler !== undefined });
  const reading: Reading = { plan, rejects, progress, interrupted, csv };
  const rowFailed = (batch: ParsedBatch, i: number, reason: string): void => {
    const r = rowIndex(batch, i);
    const { line } = batch.places.position(r, -1);
    const reject = { file: batch.places.file, line, column: 1, reason, row: batch.places.raw(r) };
    if (rejects.handler === undefined) throw new ImportError(reject.file, line, 1, reason);
    rejects.add(reject);
  };
  // Node batches whose ids are still to come: their keys are in the space (so a duplicate is
  // found at once), with the id set when the sink answers.
  const assigning: Promise<void>[] = [];
  try {
    const sink = await openSink();
    for (const group of plan.nodes) {
      for await (const batch of batches('nodes', group, reading)) {
        const ids = batch.keys === null ? null : spaces.of(batch.spaces.id);
        // Duplicate keys leave the batch before anything of it is loaded.
        let kept = batch;
        if (ids !== null) {
          const seen = new Set<Key>();
          const keep: number[] = [];
          for (let i = 0; i < batch.count; i++) {
            const key = batch.keys![i];
            if (key === undefined) {
              rowFailed(batch, i, 'the row has no key (:ID)');
              continue;
            }
            const k = normalKey(key);
            if (ids.get(k) !== undefined || seen.has(k)) {
              rowFailed(batch, i, `duplicate key ${showKey(key)} in ${spaceName(batch.spaces.id)}`);
              continue;
            }
            seen.add(k);
            keep.push(i);
          }
          kept = selectRows(batch, keep);
        }
        for (const [label, rows] of byLabel(kept, group, group.files[0]!)) {
          const part = rows === null ? kept : selectRows(kept, rows);
          const { ids: created } = await sink.addNodes(label, part.count, part.columns);
          if (ids !== null) {
            const keys = part.keys!;
            for (let i = 0; i < part.count; i++) ids.add(keys[i]!, NaN);
            const assigned = created.then((id) => {
              for (let i = 0; i < part.count; i++) ids.set(keys[i]!, id[i]!);
            });
            // Its failure is the sink's too, thrown by its next call or by the wait below.
            assigned.catch(() => undefined);
            assigning.push(assigned);
          }
          summary.nodes += part.count;
        }
      }
    }
    // Edges name their ends by key: every node id must be known.
    await sink.flush();
    await Promise.all(assigning);
    for (const group of plan.edges) {
      for await (const batch of batches('edges', group, reading)) {
        const startSpace = spaces.of(batch.spaces.start);
        const endSpace = spaces.of(batch.spaces.end);
        const from = new Float64Array(batch.count);
        const to = new Float64Array(batch.count);
        // The rows kept, listed only once one is not.
        let keep: number[] | null = null;
        let n = 0;
        const starts = batch.starts ?? [];
        const ends = batch.ends ?? [];
        for (let i = 0; i < batch.count; i++) {
          const a = starts[i];
          const b = ends[i];
          const x = a === undefined ? undefined : startSpace.get(a);
          const y = b === undefined ? undefined : endSpace.get(b);
          if (x === undefined || y === undefined) {
            keep ??= Array.from({ length: i }, (_, k) => k);
            if (a === undefined || b === undefined) rowFailed(batch, i, `the row has no ${a === undefined ? ':START_ID' : ':END_ID'}`);
            else {
              const [which, key, s] = x === undefined ? ['start', a, batch.spaces.start] : ['end', b, batch.spaces.end];
              rowFailed(batch, i, `the edge's ${which} ${showKey(key)} is no node's key in ${spaceName(s)}`);
            }
            continue;
          }
          from[n] = x;
          to[n++] = y;
          keep?.push(i);
        }
        const kept = keep === null ? batch : selectRows(batch, keep);
        const labels = byLabel(kept, group, group.files[0]!);
        for (const [label, rows] of labels) {
          const part = rows === null ? kept : selectRows(kept, rows);
          const f = rows === null ? from.subarray(0, part.count) : Float64Array.from(rows, (r) => from[r]!);
          const t = rows === null ? to.subarray(0, part.count) : Float64Array.from(rows, (r) => to[r]!);
          await sink.addEdges(label, f, t, part.count, part.columns);
          summary.edges += part.count;
        }
      }
    }
    await sink.flush();
  } finally {
    await csv.close();
    rejects.close();
  }
  summary.rejected = rejects.count;
  summary.rejectsFile = rejects.count > 0 ? rejects.path : null;
  summary.ms = performance.now() - started;
  return summary;
}
