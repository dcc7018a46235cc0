/**
 * What an operation yields. Row streams stay lazy (an iterable) while they flow from step
 * to step, so `limit` or `exists` over a label scan stops reading early; they are
 * materialised only when bound to a variable or returned.
 */
import type { Value } from '../core/value.js';
import type { Row } from './row.js';
import type { CypherValue } from '../core/cypher-value.js';

export interface RowFlow {
  readonly t: 'rows';
  readonly rows: Iterable<Row>;
  /** Made by fold: one value that most stream steps refuse until unfold. */
  readonly folded: boolean;
  /** After path(): rows print with their path. */
  readonly showPath: boolean;
  /** After sack_get(): rows print with their sack. */
  readonly showSack: boolean;
}
export interface ValuesFlow {
  readonly t: 'values';
  readonly items: readonly Value[];
  /** One object printed bare, not in an array: index receipts and statuses (reference §7.2). */
  readonly single?: true;
}
export interface CountFlow {
  readonly t: 'count';
  readonly n: number;
}
export interface BoolFlow {
  readonly t: 'bool';
  readonly v: boolean;
}
/** A Cypher statement's result (src/exec/table): named columns, rows of values. */
export interface TableFlow {
  readonly t: 'table';
  readonly columns: readonly string[];
  readonly rows: readonly (readonly CypherValue[])[];
}
export type Flow = RowFlow | ValuesFlow | CountFlow | BoolFlow | TableFlow;

export function rowFlow(rows: Iterable<Row>, from?: RowFlow): RowFlow {
  return { t: 'rows', rows, folded: false, showPath: from?.showPath ?? false, showSack: from?.showSack ?? false };
}

export const EMPTY_ROWS: RowFlow = { t: 'rows', rows: [], folded: false, showPath: false, showSack: false };

/** A flow safe to keep (variables, results): row iterables become arrays, within the row limit. */
export function materialize(flow: Flow, collect: (rows: Iterable<Row>) => Row[]): Flow {
  if (flow.t !== 'rows' || Array.isArray(flow.rows)) return flow;
  return { ...flow, rows: collect(flow.rows) };
}

/** The size conditions test (reference §3.2). */
export function sizeOf(flow: Flow): number {
  switch (flow.t) {
    case 'rows': {
      const rows = flow.rows as Row[];
      return flow.folded ? (rows.length > 0 ? 1 : 0) : rows.length;
    }
    case 'values':
      return flow.items.length;
    case 'count':
      return flow.n;
    case 'bool':
      return flow.v ? 1 : 0;
    case 'table':
      return flow.rows.length;
  }
}

/** The rows that pass `test`, lazily (a generator declared once: see docs/architecture.md). */
export function* kept(rows: Iterable<Row>, test: (row: Row) => boolean): Generator<Row> {
  for (const row of rows) if (test(row)) yield row;
}
