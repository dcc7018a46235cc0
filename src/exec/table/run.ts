/**
 * One run of a table plan: the request's execution state (transaction, parameters, time
 * budget) and the dispatch from operator kind to its executor. Operators take the rows of
 * their input as an array and return theirs: every clause is materialised before the next
 * reads it (lower.ts), and `argument` plans (OPTIONAL MATCH, MERGE, FOREACH, pattern
 * subqueries) run per row of their caller.
 */
import { fromStored, type CypherValue } from '../../core/cypher-value.js';
import type { TableKind, TableNode, Where } from '../../plan/table.js';
import type { Exec } from '../context.js';
import { runtimeError, type ElementAccess } from './env.js';
import * as match from './match.js';
import * as project from './project.js';
import * as write from './write.js';
import type { TableRow, TableRun } from './rows.js';

type Operator<K extends TableKind> = (node: Extract<TableNode, { t: K }>, run: TableRun, argument: TableRow | null) => TableRow[];
const OPERATORS: { readonly [K in TableKind]: Operator<K> } = {
  unit: (_n, run) => [new Array<CypherValue>(run.slotCount)],
  argument: (_n, run, argument) => [argument ?? new Array<CypherValue>(run.slotCount)],
  from_traversal: match.fromTraversal,
  scan: match.scan,
  expand: match.expand,
  check_node: match.checkNode,
  shortest_path: match.shortestPath,
  bind_path: match.bindPath,
  filter: project.filter,
  optional: project.optional,
  project: project.project,
  aggregate: project.aggregate,
  sort: project.sort,
  skip: project.skipOrLimit,
  limit: project.skipOrLimit,
  unwind: project.unwind,
  union: project.union,
  eager: (node, run, argument) => run.rows(node.input, argument),
  create: write.create,
  merge: write.merge,
  set: write.set,
  delete: write.remove,
  foreach: write.foreach,
};

/** The run of one statement: operators dispatched by kind. */
export class StatementRun implements TableRun {
  private readonly params = new Map<string, CypherValue>();

  constructor(
    readonly x: Exec,
    readonly access: ElementAccess,
    readonly slotCount: number,
  ) {}

  rows(node: TableNode, argument: TableRow | null): TableRow[] {
    return (OPERATORS[node.t] as Operator<TableKind>)(node, this, argument);
  }

  param(name: string, at: Where): CypherValue {
    let v = this.params.get(name);
    if (v === undefined) {
      const given = this.x.params.get(name);
      if (given === undefined) throw runtimeError('parameter_missing', 'MissingParameter', `parameter $${name} is not given`, at);
      v = fromStored(given);
      this.params.set(name, v);
    }
    return v;
  }

  check(rows: number): void {
    this.x.tick();
    // Every call: operators add rows several at a time, so a count that steps past a
    // multiple of some stride would rarely land on it.
    this.x.checkSize(rows, '$');
  }
}
