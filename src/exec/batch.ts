/**
 * Runs a batch (reference §3): entries in order in one transaction, conditions, for_each
 * loops with parameter shadowing, variable binding, and the response of the returned
 * names. Returns the response JSON text.
 */
import { GraphError } from '../core/errors.js';
import type { Condition, Entry, QueryPlan } from '../plan/batch.js';
import { importMessage, type ImportAnswer, type ImportFormat } from '../plan/import-format.js';
import { LIMITS } from '../plan/limits.js';
import type { GraphReader, GraphWriter } from '../store/index.js';
import { isValueObject, type Value, type ValueObject } from '../core/value.js';
import { bulkInsertOf, GENERIC, objectRows, tableRows } from './bulk.js';
import { cellValue, tableOf, type RowTable } from '../core/row-table.js';
import { Exec, type Params } from './context.js';
import { encodeResponse } from './encode.js';
import { materialize, sizeOf, type Flow } from './flow.js';
import type { Row } from './row.js';
import { EXECUTORS } from './registry.js';
import { needsPaths } from '../plan/features.js';
import { GuardedReader } from './guarded-reader.js';
import { clip } from '../core/clip.js';
import { encodeStatementResult } from './table/statement.js';
import { encodeHqlResponse } from './hql-encode.js';

/** The result of the previous sibling: a flow, or null when it was skipped. */
type Previous = Flow | null;

function conditionHolds(x: Exec, cond: Condition, previous: Previous): boolean {
  if (cond.kind === 'prev_not_empty') return previous !== null && sizeOf(previous) > 0;
  const flow = x.vars.get(cond.name);
  // A variable whose entry was skipped (or never ran) counts as empty, not as an error.
  const size = flow === undefined ? 0 : sizeOf(flow);
  if (cond.kind === 'var_not_empty') return size > 0;
  if (cond.kind === 'var_empty') return size === 0;
  return cond.kind === 'var_min_size' && size >= cond.size;
}

function runEntries(x: Exec, entries: readonly Entry[]): Previous {
  let previous: Previous = null;
  let first = true;
  for (const entry of entries) {
    previous = entry.kind === 'for_each' ? runForEach(x, entry) : runQuery(x, entry, first ? null : previous);
    first = false;
  }
  return previous;
}

function runQuery(x: Exec, entry: Extract<Entry, { kind: 'query' }>, previous: Previous): Previous {
  if (entry.condition !== null && !conditionHolds(x, entry.condition, previous)) return null;
  const flow = materialize(x.run(entry.root, null), (rows) => x.collect(rows, entry.path));
  if (entry.name !== null) x.vars.set(entry.name, flow);
  return flow;
}

function runForEach(x: Exec, entry: Extract<Entry, { kind: 'for_each' }>): Previous {
  const path = `${entry.path}.param`;
  const list = x.param(entry.param, path);
  if (!Array.isArray(list)) throw new GraphError('invalid_query', `${path}: parameter "${clip(entry.param)}" must be an array of objects`);
  let last: Previous = null;
  const outer = x.params;
  const bulk = bulkInsertOf(entry, x.trackPath);
  // Rows that came as a table are read from its columns; the array is never built.
  const table = tableOf(list);
  let element: ValueObject = {};
  let row = 0;
  // Each element's fields shadow same-named parameters; the array itself is hidden. The
  // body reads them through this scope, so an iteration copies nothing.
  const outerLookup = (name: string): Value | undefined => (name === entry.param ? undefined : outer.get(name));
  const lookup = (name: string): Value | undefined => (Object.hasOwn(element, name) ? element[name] : outerLookup(name));
  const scope: Params = { get: table === undefined ? lookup : tableLookup(table, () => row, outerLookup) };
  const bulkRow = bulk === null ? null : bulk.bind(table === undefined ? objectRows(lookup) : tableRows(table, outerLookup));
  const length = table === undefined ? list.length : table.length;
  // What the fast path did with the last element, or GENERIC when the generic path ran it.
  let bulkLast = GENERIC;
  // A table whose columns are the properties: stored WHOLE_ROWS at a time.
  const whole = bulk !== null && table !== undefined ? (bulk.whole?.(table) ?? null) : null;
  const counted = (n: number): void => {
    x.loopIterations += n;
    if (x.loopIterations > LIMITS.maxLoopIterations) {
      throw new GraphError('limit_exceeded', `${path}: for_each loops may run at most ${LIMITS.maxLoopIterations} iterations per request`);
    }
  };
  /** Runs element i through the fast path or the body. */
  const one = (i: number): void => {
    if (table === undefined) {
      const item: Value = list[i]!;
      if (!isValueObject(item)) throw new GraphError('invalid_query', `${path}: element ${i} of "${clip(entry.param)}" is not an object`);
      element = item;
    }
    row = i;
    counted(1);
    x.tick();
    bulkLast = bulkRow === null ? GENERIC : bulkRow(x, i);
    if (bulkLast === GENERIC) last = runEntries(x, entry.body);
  };
  x.params = scope;
  try {
    for (let i = 0; i < length;) {
      if (whole === null) {
        one(i++);
        continue;
      }
      const end = Math.min(length, i + WHOLE_ROWS);
      row = i;
      x.tick();
      const stored = whole(x, i, end);
      if (stored === GENERIC) {
        // Rows the table insert leaves to the row path (an end that is no node): one by one.
        while (i < end) one(i++);
        continue;
      }
      // Counted once stored: past the limit the request fails, and nothing of it is kept.
      counted(end - i);
      bulkLast = stored;
      i = end;
    }
  } catch (err) {
    // The innermost loop's element, for answers that name rows (/v2/import).
    if (err instanceof GraphError && !FAILED_ELEMENT.has(err)) FAILED_ELEMENT.set(err, row);
    throw err;
  } finally {
    x.params = outer;
  }
  if (length === 0) return { t: 'rows', rows: [], folded: false, showPath: false, showSack: false };
  return bulk !== null && bulkLast !== GENERIC ? bulk.result(bulkLast) : last;
}

/** Rows a table insert stores between two checks of the request's deadline. */
const WHOLE_ROWS = 4096;

/** Parameters of row `row()` of a table: its columns by name, other names from `outer`. */
function tableLookup(table: RowTable, row: () => number, outer: (name: string) => Value | undefined): (name: string) => Value | undefined {
  const columns = new Map(table.keys.map((key, c) => [key, c]));
  return (name) => {
    const c = columns.get(name);
    return c === undefined ? outer(name) : cellValue(table, c, row());
  };
}

export interface ExecOptions {
  /** Wall-clock budget of the execution (408 query_timeout past it). */
  readonly timeoutMs: number;
  /** Execution time the request already had in earlier, preempted attempts (ms). */
  readonly spentMs?: number;
  /** Reads only: stop with `Preempted` after this long (ms); absent or 0: never. */
  readonly sliceMs?: number;
}

/** Executes the plan against one transaction and returns the response body. */
export function executePlan(plan: QueryPlan, reader: GraphReader, writer: GraphWriter | null, options: ExecOptions): string {
  const start = performance.now();
  const slice = writer === null && options.sliceMs ? start + options.sliceMs : Number.POSITIVE_INFINITY;
  const guarded = new GuardedReader(reader, start + options.timeoutMs - (options.spentMs ?? 0), options.timeoutMs, slice);
  const x = new Exec(guarded, writer, plan.params, EXECUTORS, needsPaths(plan), () => guarded.tick());
  const format = plan.batch.format;
  try {
    runEntries(x, plan.batch.entries);
  } catch (err) {
    throw typeof format === 'object' && format.kind === 'import' ? importFailure(err) : err;
  }
  if (format === 'cypher') return encodeStatementResult(x, x.vars.get(plan.batch.returns[0]!));
  if (format?.kind === 'import') return importAnswer(format, x.vars.get(plan.batch.returns[0]!));
  if (format !== undefined) return encodeHqlResponse(x, format, (name) => x.vars.get(name));
  return encodeResponse(plan.batch.returns, (name) => x.vars.get(name));
}

/** The element of its for_each a GraphError was thrown at (the innermost loop's). */
const FAILED_ELEMENT = new WeakMap<GraphError, number>();

/**
 * A /v2/import batch's error in the body's terms, with the row it failed at (row 0 is the
 * batch's named first entry, row r > 0 the loop's element r - 1).
 */
function importFailure(err: unknown): unknown {
  if (!(err instanceof GraphError)) return err;
  const element = FAILED_ELEMENT.get(err);
  return new GraphError(err.code, importMessage(err.msg, element === undefined ? 0 : element + 1));
}

/** A /v2/import answer: the batch's first element's id; the others follow it one by one. */
function importAnswer(format: ImportFormat, first: Flow | undefined): string {
  const row = first?.t === 'rows' ? (first.rows as readonly Row[])[0] : undefined;
  if (row === undefined) throw new Error('an import batch made no first element');
  const { element, label, count } = format;
  const answer: ImportAnswer = { element, label, count, first_id: row.id };
  return JSON.stringify(answer);
}
