/**
 * The bulk-insert pattern of the v2 contract: a `for_each` whose body is one unnamed
 * `add_n`, or one unnamed `add_e` from `{param}` to `{param}`, with properties that are
 * literals or parameters. It is how clients load data, so it runs without the generic
 * per-row machinery (parameter scopes, flows, rows) for every element whose values are
 * plain; any other element (a missing field, an id list, a wrong type) goes through the
 * generic path, which gives the same result or the same error.
 */
import { GraphError } from '../core/errors.js';
import type { PropertyInput } from '../plan/expr.js';
import type { AddEOp, AddNOp, Assignments } from '../plan/ops.js';
import type { Entry } from '../plan/batch.js';
import { SAFE_I64, type Value, type ValueObject } from '../core/value.js';
import { cellValue, type Column, type RowTable } from '../core/row-table.js';
import type { BulkColumn } from '../store/index.js';
import { setOwn } from '../core/value.js';
import type { Exec } from './context.js';
import { EMPTY_ROWS, rowFlow, type Flow } from './flow.js';
import { EDGE, NODE, Row } from './row.js';

type ForEach = Extract<Entry, { kind: 'for_each' }>;

/** Looks a name up as the body would: the element's field, else an outer parameter. */
export type Lookup = (name: string) => Value | undefined;

/** What a bound insert did with one array element (ids are never negative). */
export const NOTHING = -1;
export const GENERIC = -2;

/** Reads one name of row i. */
type Reader<T> = (i: number) => T | undefined;

/**
 * Where a loop's rows come from, name by name: a reader of row i's value, and of row i's
 * value as a node id. Inserts look every name up once, then read row after row.
 */
export interface RowSource {
  value(name: string): Reader<Value>;
  id(name: string): Reader<number>;
}

/** A plain node id parameter value, or undefined. */
function plainId(v: Value | undefined): number | undefined {
  return typeof v === 'bigint' && v >= 0n && v <= SAFE_I64 ? Number(v) : undefined;
}

/** Rows that are objects: `lookup` reads the current element (the row index is not needed). */
export function objectRows(lookup: Lookup): RowSource {
  return {
    value: (name) => () => lookup(name),
    id: (name) => () => plainId(lookup(name)),
  };
}

/** Rows of a table (src/core/row-table.ts): columns by index; names that are not columns from `outer`. */
export function tableRows(table: RowTable, outer: Lookup): RowSource {
  const value = (name: string): Reader<Value> => {
    const c = table.keys.indexOf(name);
    if (c >= 0) return (i) => cellValue(table, c, i);
    const fixed = outer(name);
    return () => fixed;
  };
  return {
    value,
    id(name) {
      // An int column is read as numbers, without a bigint per row.
      const col = table.columns[table.keys.indexOf(name)];
      if (col?.kind !== 'int') {
        const cell = value(name);
        return (i) => plainId(cell(i));
      }
      const values = col.values;
      return (i) => (values[i]! >= 0 ? values[i]! : undefined);
    },
  };
}

export interface BulkInsert {
  /**
   * The insert for the rows of `rows`, with every name looked up once: for row i it
   * creates the element and returns its id, NOTHING when the body yields no element (a
   * missing source), or GENERIC when the generic path must run that row.
   */
  bind(rows: RowSource): (x: Exec, i: number) => number;
  /** The flow the body's last run yields (for_each's result), from what the insert returned last. */
  result(created: number): Flow;
  /**
   * Rows of a table many at a time, when each property is one of its columns (the
   * /v2/import plan): the insert of rows [start, end), returning the last one's id; null
   * when the rows must go one by one.
   */
  whole?(table: RowTable): ((x: Exec, start: number, end: number) => number) | null;
}

/** A table's column as the store's bulk writers take it (src/store/bulk-columns.ts). */
function bulkColumn(name: string, column: Column): BulkColumn {
  if (column.kind === 'any') return { name, kind: 'value', values: column.values };
  return { name, kind: column.kind === 'int' ? 'i64' : 'f64', values: column.values, present: null };
}

/** The assignments as columns of the table (each a parameter naming one), or null. */
function assignedColumns(assignments: Assignments, table: RowTable): BulkColumn[] | null {
  const out: BulkColumn[] = [];
  for (const [key, input] of assignments) {
    if (input.kind !== 'expr' || input.expr.e !== 'param') return null;
    const c = table.keys.indexOf(input.expr.name);
    if (c < 0) return null;
    out.push(bulkColumn(key, table.columns[c]!));
  }
  return out;
}

const simple = (input: PropertyInput) => input.kind === 'value' || input.expr.e === 'param' || input.expr.e === 'constant';

/**
 * The properties of row i, written into `props` (one object reused for every row: the
 * store encodes it before create returns), or undefined when a parameter is missing (the
 * generic path reports it). Every assignment writes its key, so nothing of an earlier row
 * stays.
 */
function properties(assignments: Assignments, rows: RowSource): (i: number, props: ValueObject) => ValueObject | undefined {
  const readers = assignments.map(([key, input]): [string, Reader<Value>] => {
    if (input.kind === 'value') return [key, () => input.value];
    const expr = input.expr;
    if (expr.e === 'param') return [key, rows.value(expr.name)];
    const value = expr.e === 'constant' ? expr.value : undefined; // `simple` admits nothing else
    return [key, () => value];
  });
  return (i, props) => {
    for (const [key, read] of readers) {
      const value = read(i);
      if (value === undefined) return undefined;
      setOwn(props, key, value);
    }
    return props;
  };
}

function addNodes(node: AddNOp): BulkInsert {
  const reused: ValueObject = {};
  return {
    bind(rows) {
      const read = properties(node.properties, rows);
      return (x, i) => {
        const props = read(i, reused);
        return props === undefined ? GENERIC : x.writable.createNode(node.label, props);
      };
    },
    result: (id) => (id < 0 ? EMPTY_ROWS : rowFlow([new Row(NODE, id)])),
    whole(table) {
      const columns = assignedColumns(node.properties, table);
      if (columns === null) return null;
      return (x, start, end) => x.writable.createNodes(node.label, columns, start, end) + (end - start - 1);
    },
  };
}

/** `sourcesMustExist`: the source is `missing: "error"`, so a missing source is an error too. */
function addEdges(node: AddEOp, fromParam: string, toParam: string, sourcesMustExist: boolean): BulkInsert {
  const reused: ValueObject = {};
  return {
    bind(rows) {
      const fromOf = rows.id(fromParam);
      const toOf = rows.id(toParam);
      const read = properties(node.properties, rows);
      return (x, i) => {
        const from = fromOf(i);
        const to = toOf(i);
        const props = read(i, reused);
        if (from === undefined || to === undefined || props === undefined) return GENERIC;
        // As in the generic path: a missing source yields nothing (or is an error when the
        // source says so), a missing target is an error.
        if (!x.store.hasNode(from)) {
          if (!sourcesMustExist) return NOTHING;
          throw new GraphError('node_not_found', `${node.input.path}.reference: node ${from} does not exist`);
        }
        if (!x.store.hasNode(to)) throw new GraphError('node_not_found', `${node.path}.to: node ${to} does not exist`);
        return x.writable.createEdge(node.label, from, to, props);
      };
    },
    result: (id) => (id < 0 ? EMPTY_ROWS : rowFlow([new Row(EDGE, id)])),
    whole(table) {
      const columns = assignedColumns(node.properties, table);
      const fromColumn = table.columns[table.keys.indexOf(fromParam)];
      const toColumn = table.columns[table.keys.indexOf(toParam)];
      if (columns === null || fromColumn?.kind !== 'int' || toColumn?.kind !== 'int') return null;
      const from = fromColumn.values;
      const to = toColumn.values;
      return (x, start, end) => {
        // Every end an existing node, else the rows go one by one (and answer as they do).
        for (let i = start; i < end; i++) if (!x.store.hasNode(from[i]!) || !x.store.hasNode(to[i]!)) return GENERIC;
        return x.writable.createEdges(node.label, from, to, columns, start, end) + (end - start - 1);
      };
    },
  };
}

/** The fast form of a for_each body, or null when the body is not the bulk pattern. */
export function bulkInsertOf(entry: ForEach, trackPath: boolean): BulkInsert | null {
  const only = entry.body[0];
  if (trackPath || entry.body.length !== 1 || only?.kind !== 'query' || only.name !== null || only.condition !== null) return null;
  const root = only.root;
  if (root.op === 'add_n' && root.input === null && root.properties.every(([, v]) => simple(v))) return addNodes(root);
  if (
    root.op === 'add_e' &&
    root.input.op === 'nodes' &&
    root.input.reference.kind === 'param' &&
    root.to.kind === 'param' &&
    root.properties.every(([, v]) => simple(v))
  ) {
    return addEdges(root, root.input.reference.name, root.to.name, root.input.missing === 'error');
  }
  return null;
}
