/**
 * Edge batches an online import holds back to send as one request. The reader hands over
 * batches of about a megabyte of CSV (65k edges of the benchmark's files); every request
 * rewrites each adjacency block its edges touch, which for random edges is nearly every
 * block of the label, so a request of --batch-rows edges costs the server far less per
 * edge than several small ones (docs/import-export.md, "Online imports").
 */
import type { Value } from '../core/value.js';
import type { BulkColumn } from '../store/index.js';

export interface EdgeBatch {
  readonly label: string;
  readonly from: Float64Array;
  readonly to: Float64Array;
  readonly count: number;
  readonly columns: readonly BulkColumn[];
}

/** Whether two batches can be one request: the same label and the same columns, in order. */
function joinable(a: EdgeBatch, b: EdgeBatch): boolean {
  return (
    a.label === b.label &&
    a.columns.length === b.columns.length &&
    a.columns.every((c, k) => c.name === b.columns[k]!.name && c.kind === b.columns[k]!.kind)
  );
}

/** The first `count` numbers of each batch's array, one after the other. */
function joinNumbers(batches: readonly EdgeBatch[], of: (b: EdgeBatch) => Float64Array, count: number): Float64Array {
  const out = new Float64Array(count);
  let at = 0;
  for (const b of batches) {
    out.set(of(b).subarray(0, b.count), at);
    at += b.count;
  }
  return out;
}

/** Column k of every batch, as one column. */
function joinColumn(batches: readonly EdgeBatch[], k: number, count: number): BulkColumn {
  const first = batches[0]!.columns[k]!;
  if (first.kind === 'value') {
    const values: (Value | undefined)[] = [];
    for (const b of batches) {
      const c = b.columns[k] as BulkColumn & { kind: 'value' };
      for (let i = 0; i < b.count; i++) values.push(c.values[i]);
    }
    return { name: first.name, kind: 'value', values };
  }
  const values = joinNumbers(batches, (b) => (b.columns[k] as BulkColumn & { kind: 'i64' | 'f64' }).values, count);
  let present: Uint8Array | null = null;
  let at = 0;
  for (const b of batches) {
    const c = b.columns[k] as BulkColumn & { kind: 'i64' | 'f64' };
    const n = b.count;
    if (c.present !== null || present !== null) {
      // A column with no presence list has every cell; one with a list makes the join need one.
      if (present === null) present = new Uint8Array(count).fill(1, 0, at);
      if (c.present === null) present.fill(1, at, at + n);
      else present.set(c.present.subarray(0, n), at);
    }
    at += n;
  }
  return { name: first.name, kind: first.kind, values, present };
}

/** Consecutive joinable batches; `take` empties it into one batch. */
export class HeldEdges {
  private batches: EdgeBatch[] = [];
  private rows = 0;

  get count(): number {
    return this.rows;
  }

  /** False when the batch cannot join those held (take them first). */
  accepts(batch: EdgeBatch): boolean {
    return this.batches.length === 0 || joinable(this.batches[0]!, batch);
  }

  add(batch: EdgeBatch): void {
    this.batches.push(batch);
    this.rows += batch.count;
  }

  /** Every batch held, as one (null when none is). */
  take(): EdgeBatch | null {
    const batches = this.batches;
    const count = this.rows;
    this.batches = [];
    this.rows = 0;
    if (batches.length === 0) return null;
    if (batches.length === 1) return batches[0]!;
    return {
      label: batches[0]!.label,
      from: joinNumbers(batches, (b) => b.from, count),
      to: joinNumbers(batches, (b) => b.to, count),
      count,
      columns: batches[0]!.columns.map((_, k) => joinColumn(batches, k, count)),
    };
  }
}
