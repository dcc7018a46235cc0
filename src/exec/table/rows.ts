/**
 * What the table operators share: the row type and the run they execute in (run.ts
 * implements it). A module of its own so that operators and the dispatch do not import
 * each other.
 */
import type { CypherValue } from '../../core/cypher-value.js';
import type { TableNode, Where } from '../../plan/table.js';
import type { Exec } from '../context.js';
import type { ElementAccess } from './env.js';

/** A row: one value per slot of the statement (unbound slots are undefined). */
export type TableRow = CypherValue[];

export interface TableRun {
  readonly x: Exec;
  readonly access: ElementAccess;
  readonly slotCount: number;
  /** The rows of an operator; `argument` is the row an argument plan runs for. */
  rows(node: TableNode, argument: TableRow | null): TableRow[];
  /** A statement parameter as a Cypher value. */
  param(name: string, at: Where): CypherValue;
  /** Counts work against the time budget, and the rows held against the memory limit. */
  check(rows: number): void;
}
