/**
 * The bulk-insert pattern of the v2 contract: a `for_each` whose body is one unnamed
 * `add_n`, or one unnamed `add_e` from `{param}` to `{param}`, with properties that are
 * literals or parameters. It is how clients load data, so it runs without the generic
 * per-row machinery (parameter scopes, flows, rows) for every element whose values are
 * plain; any other element (a missing field, an id list, a wrong type) goes through the
 * generic path, which gives the same result or the same error.
 */
import { GraphError } from '../errors.js';
import type { PropertyInput } from '../plan/expr.js';
import type { AddEOp, AddNOp, Assignments } from '../plan/ops.js';
import type { Entry } from '../plan/batch.js';
import { SAFE_I64, type Value, type ValueObject } from '../value.js';
import { cellValue, type RowTable } from '../row-table.js';
import { setOwn } from '../wire/values.js';
import type { Exec } from './context.js';
import { EMPTY_ROWS, rowFlow, type Flow } from './flow.js';
import { EDGE, NODE, Row } from './row.js';

type ForEach = Extract<Entry, { kind: 'for_each' }>;

/** Looks a name up as the body would: the element's field, else an outer parameter. */
export type Lookup = (name: string) => Value | undefined;

/** What `run` did with one array element (ids are never negative). */
export const NOTHING = -1;
export const GENERIC = -2;

export interface BulkInsert {
  /**
   * Creates the element for one array element and returns its id, NOTHING when the body
   * yields no element (a missing source), or GENERIC when the generic path must run it.
   */
  run(x: Exec, lookup: Lookup): number;
  /**
   * `run` for the rows of a table (src/row-table.ts), with the columns looked up once:
   * returns what `run` would for row i. Names that are not columns come from `outer`.
   */
  bindTable(table: RowTable, outer: Lookup): (x: Exec, i: number) => number;
  /** The flow the body's last run yields (for_each's result), from what `run` returned last. */
  result(created: number): Flow;
}

/** Reads a name of a table row: its column, else the outer lookup. */
type CellReader = (i: number) => Value | undefined;

function cellReader(table: RowTable, name: string, outer: Lookup): CellReader {
  const c = table.keys.indexOf(name);
  if (c < 0) {
    const value = outer(name);
    return () => value;
  }
  return (i) => cellValue(table, c, i);
}

/** A node id of a table row: an int column is read as numbers, without a bigint per row. */
function idReader(table: RowTable, name: string, outer: Lookup): (i: number) => number | undefined {
  const col = table.columns[table.keys.indexOf(name)];
  if (col?.kind === 'int') {
    const values = col.values;
    return (i) => (values[i]! >= 0 ? values[i]! : undefined);
  }
  const cell = cellReader(table, name, outer);
  return (i) => plainId(cell(i));
}

/** Property inputs read from a table row (literals and constants fixed). */
function tableProperties(assignments: Assignments, table: RowTable, outer: Lookup): (i: number, props: ValueObject) => ValueObject | undefined {
  const readers = assignments.map(([key, input]): [string, CellReader] => {
    if (input.kind === 'value') return [key, () => input.value];
    if (input.expr.e === 'constant') {
      const value = input.expr.value;
      return [key, () => value];
    }
    return [key, cellReader(table, (input.expr as { name: string }).name, outer)];
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

const simple = (input: PropertyInput) => input.kind === 'value' || input.expr.e === 'param' || input.expr.e === 'constant';

/**
 * The properties, written into `props` (one object reused for every element: the store
 * encodes it before create returns), or undefined when a parameter is missing (the generic
 * path reports it). Every assignment writes its key, so nothing of an earlier element stays.
 */
function properties(assignments: Assignments, lookup: Lookup, props: ValueObject): ValueObject | undefined {
  for (const [key, input] of assignments) {
    let value: Value | undefined;
    if (input.kind === 'value') value = input.value;
    else if (input.expr.e === 'constant') value = input.expr.value;
    else if (input.expr.e === 'param') value = lookup(input.expr.name);
    if (value === undefined) return undefined;
    setOwn(props, key, value);
  }
  return props;
}

/** A plain node id parameter value, or undefined. */
function plainId(v: Value | undefined): number | undefined {
  return typeof v === 'bigint' && v >= 0n && v <= SAFE_I64 ? Number(v) : undefined;
}

function addNodes(node: AddNOp): BulkInsert {
  const reused: ValueObject = {};
  return {
    run(x, lookup) {
      const props = properties(node.properties, lookup, reused);
      if (props === undefined) return GENERIC;
      return x.writable.createNode(node.label, props);
    },
    bindTable(table, outer) {
      const read = tableProperties(node.properties, table, outer);
      return (x, i) => {
        const props = read(i, reused);
        return props === undefined ? GENERIC : x.writable.createNode(node.label, props);
      };
    },
    result: (id) => (id < 0 ? EMPTY_ROWS : rowFlow([new Row(NODE, id)])),
  };
}

function addEdges(node: AddEOp, fromParam: string, toParam: string): BulkInsert {
  const reused: ValueObject = {};
  const create = (x: Exec, from: number | undefined, to: number | undefined, props: ValueObject | undefined): number => {
    if (from === undefined || to === undefined || props === undefined) return GENERIC;
    // As in the generic path: a missing source yields nothing, a missing target is an error.
    if (!x.store.hasNode(from)) return NOTHING;
    if (!x.store.hasNode(to)) throw new GraphError('node_not_found', `${node.path}.to: node ${to} does not exist`);
    return x.writable.createEdge(node.label, from, to, props);
  };
  return {
    run: (x, lookup) => create(x, plainId(lookup(fromParam)), plainId(lookup(toParam)), properties(node.properties, lookup, reused)),
    bindTable(table, outer) {
      const from = idReader(table, fromParam, outer);
      const to = idReader(table, toParam, outer);
      const read = tableProperties(node.properties, table, outer);
      return (x, i) => create(x, from(i), to(i), read(i, reused));
    },
    result: (id) => (id < 0 ? EMPTY_ROWS : rowFlow([new Row(EDGE, id)])),
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
    return addEdges(root, root.input.reference.name, root.to.name);
  }
  return null;
}
