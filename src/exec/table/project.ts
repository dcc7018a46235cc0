/**
 * The row-shaping operators: filter, OPTIONAL MATCH, projection (with DISTINCT),
 * aggregation, sort, SKIP/LIMIT, UNWIND and UNION.
 */
import { typeName, type CypherValue } from '../../core/cypher-value.js';
import type { TableNode } from '../../plan/table.js';
import { runtimeError } from './env.js';
import { evaluate } from './eval.js';
import { groupKey, logical, orderValues } from './operators.js';
import { makeAggregator, type Aggregator } from './aggregates.js';
import type { TableRow, TableRun } from './rows.js';
import { countOf } from '../terminal.js';
import type { ScanSpec } from '../scan/recognise.js';
import { scanCount } from '../scan/rows.js';
import { topOfScan } from './top-scan.js';

type Node<K extends TableNode['t']> = Extract<TableNode, { t: K }>;

export function filter(node: Node<'filter'>, run: TableRun, argument: TableRow | null): TableRow[] {
  return run.rows(node.input, argument).filter((row) => logical(evaluate(node.predicate, row, run), null) === true);
}

export function optional(node: Node<'optional'>, run: TableRun, argument: TableRow | null): TableRow[] {
  const out: TableRow[] = [];
  for (const row of run.rows(node.input, argument)) {
    const found = run.rows(node.body, row);
    if (found.length > 0) for (const r of found) out.push(r);
    else {
      const empty = row.slice();
      for (const slot of node.slots) empty[slot] = null;
      out.push(empty);
    }
    run.check(out.length);
  }
  return out;
}

export function project(node: Node<'project'>, run: TableRun, argument: TableRow | null): TableRow[] {
  const input = run.rows(node.input, argument);
  const out: TableRow[] = [];
  const seen = node.distinct ? new Set<string>() : null;
  for (const row of input) {
    const next = node.only ? new Array<CypherValue>(run.slotCount) : row.slice();
    // Evaluate every item against the input row before writing any (an item may read a slot another writes).
    const values = node.items.map(([, expr]) => evaluate(expr, row, run));
    node.items.forEach(([slot], i) => (next[slot] = values[i]!));
    if (seen !== null) {
      const key = node.items.map(([slot]) => groupKey(next[slot] ?? null)).join('\u0000');
      if (seen.has(key)) continue;
      seen.add(key);
    }
    out.push(next);
  }
  return out;
}

export function aggregate(node: Node<'aggregate'>, run: TableRun, argument: TableRow | null): TableRow[] {
  if (node.keys.length === 0) {
    const counted = countedSource(node);
    if (counted !== null) return [countSource(node, counted, run, argument)];
  }
  const input = run.rows(node.input, argument);
  if (node.keys.length === 0) return [aggregateAll(node, run, input)];
  const groups = new Map<string, { row: TableRow; aggregators: Aggregator[] }>();
  for (const row of input) {
    const keys = node.keys.map(([, expr]) => evaluate(expr, row, run));
    const id = keys.map(groupKey).join('\u0000');
    let group = groups.get(id);
    if (group === undefined) {
      const first = new Array<CypherValue>(run.slotCount);
      node.keys.forEach(([slot], i) => (first[slot] = keys[i]!));
      group = { row: first, aggregators: node.aggregations.map((a) => makeAggregator(a.fn, a.distinct, a.at)) };
      groups.set(id, group);
    }
    node.aggregations.forEach((a, i) => group.aggregators[i]!.add(aggregationArgs(a, row, run)));
    run.check(0);
  }
  const out: TableRow[] = [];
  for (const { row, aggregators } of groups.values()) {
    node.aggregations.forEach((a, i) => (row[a.slot] = aggregators[i]!.result()));
    out.push(row);
  }
  return out;
}

/**
 * A node source whose rows a count can count without making them: a traversal (`MATCH
 * (n:L) WHERE n.x > 1`, lower-pattern.ts makes every labelled first node one) or the scan
 * of every node (`MATCH (n)`).
 */
type CountedSource = Node<'from_traversal'> | Node<'scan'>;

/**
 * The source under an aggregation that only counts its rows: no grouping keys, and every
 * aggregation count(*) or count(n) of the source's own slot (never null there). Null for
 * any other aggregation or source.
 */
function countedSource(node: Node<'aggregate'>): CountedSource | null {
  const input = node.input;
  const everyNode = input.t === 'scan' && input.id === null && input.label === null;
  if (input.t !== 'from_traversal' && !everyNode) return null;
  const countsRows = (a: Node<'aggregate'>['aggregations'][number]) => {
    if (a.fn === 'count_star') return true;
    const arg = a.args[0];
    return a.fn === 'count' && !a.distinct && a.args.length === 1 && arg?.k === 'slot' && arg.slot === input.slot;
  };
  return node.aggregations.every(countsRows) ? input : null;
}

/** The column scan of every node (scans cache their work by spec, so one for all). */
const EVERY_NODE: ScanSpec = { predicates: [] };

/**
 * Those counts without a row per element: the rows of the source's input times what the
 * source yields, counted as /v2/query's `count` does (a column scan counts its masks).
 */
function countSource(node: Node<'aggregate'>, source: CountedSource, run: TableRun, argument: TableRow | null): TableRow {
  const inputRows = run.rows(source.input, argument).length;
  let perRow = 0;
  if (inputRows > 0) perRow = source.t === 'scan' ? scanCount(run.x, EVERY_NODE) : countOf(run.x, source.root, null, source.root);
  const out = new Array<CypherValue>(run.slotCount);
  for (const a of node.aggregations) out[a.slot] = BigInt(inputRows) * BigInt(perRow);
  return out;
}

/** No grouping keys: one group of every row, and one row even over no input (count(*) of nothing is 0). */
function aggregateAll(node: Node<'aggregate'>, run: TableRun, input: readonly TableRow[]): TableRow {
  const aggregators = node.aggregations.map((a) => makeAggregator(a.fn, a.distinct, a.at));
  const n = node.aggregations.length;
  for (const row of input) {
    for (let i = 0; i < n; i++) aggregators[i]!.add(aggregationArgs(node.aggregations[i]!, row, run));
  }
  run.check(0);
  const out = new Array<CypherValue>(run.slotCount);
  node.aggregations.forEach((a, i) => (out[a.slot] = aggregators[i]!.result()));
  return out;
}

/** An aggregation's arguments for one row; count(*) has none, and allocates nothing. */
function aggregationArgs(a: Node<'aggregate'>['aggregations'][number], row: TableRow, run: TableRun): readonly CypherValue[] {
  return a.args.length === 0 ? NO_ARGS : a.args.map((arg) => evaluate(arg, row, run));
}

const NO_ARGS: readonly CypherValue[] = [];

export function sort(node: Node<'sort'>, run: TableRun, argument: TableRow | null): TableRow[] {
  const keyed = sortKeys(node, run, argument);
  return keyed.sort(byKeys(node)).map((k) => k.row);
}

/** Rows with their ORDER BY values, each evaluated once. */
type Keyed = { readonly row: TableRow; readonly keys: CypherValue[] };

function sortKeys(node: Node<'sort'>, run: TableRun, argument: TableRow | null): Keyed[] {
  return run.rows(node.input, argument).map((row) => ({ row, keys: node.keys.map((k) => evaluate(k.expr, row, run)) }));
}

function byKeys(node: Node<'sort'>): (a: Keyed, b: Keyed) => number {
  const n = node.keys.length;
  return (a, b) => {
    for (let i = 0; i < n; i++) {
      const c = orderValues(a.keys[i]!, b.keys[i]!);
      if (c !== 0) return node.keys[i]!.descending ? -c : c;
    }
    return 0;
  };
}

/**
 * The first `n` rows of a stable sort without sorting them all (ORDER BY ... LIMIT n):
 * a sorted array of at most n rows, a row entering after the rows it ties with, so the
 * answer is the one the full sort gives. Worth it while n is small against the input.
 */
function firstSorted(keyed: readonly Keyed[], n: number, cmp: (a: Keyed, b: Keyed) => number): Keyed[] {
  const best: Keyed[] = [];
  if (n === 0) return best;
  for (const k of keyed) {
    if (best.length === n && cmp(k, best[n - 1]!) >= 0) continue;
    let lo = 0;
    let hi = best.length;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (cmp(k, best[mid]!) < 0) hi = mid;
      else lo = mid + 1;
    }
    best.splice(lo, 0, k);
    if (best.length > n) best.pop();
  }
  return best;
}

/** Below this LIMIT to input ratio, LIMIT over ORDER BY keeps the first rows (firstSorted) instead of sorting all. */
const TOP_N_SHARE = 1 / 16;

export function skipOrLimit(node: Node<'skip' | 'limit'>, run: TableRun, argument: TableRow | null): TableRow[] {
  if (node.t === 'limit' && node.input.t === 'sort') return limitSorted(node, node.input, run, argument);
  const rows = run.rows(node.input, argument);
  const n = skipOrLimitCount(node, rows.length, run);
  return node.t === 'skip' ? rows.slice(n) : rows.slice(0, n);
}

/**
 * ORDER BY ... LIMIT n: on the property columns where that is exact (top-scan.ts); else
 * the keys first (their errors come before the count's, as in a full sort), then the first n rows.
 */
function limitSorted(node: Node<'skip' | 'limit'>, sorted: Node<'sort'>, run: TableRun, argument: TableRow | null): TableRow[] {
  const onColumns = topOfScan(sorted, () => skipOrLimitCount(node, Number.MAX_SAFE_INTEGER, run), run);
  if (onColumns !== null) return onColumns;
  const keyed = sortKeys(sorted, run, argument);
  const n = skipOrLimitCount(node, keyed.length, run);
  const cmp = byKeys(sorted);
  const first = n < keyed.length * TOP_N_SHARE ? firstSorted(keyed, n, cmp) : keyed.sort(cmp).slice(0, n);
  return first.map((k) => k.row);
}

/** SKIP's or LIMIT's count, at most `total`: a non-negative integer, else the error the TCK expects. */
function skipOrLimitCount(node: Node<'skip' | 'limit'>, total: number, run: TableRun): number {
  const v = evaluate(node.count, new Array<CypherValue>(run.slotCount), run);
  const what = node.t === 'skip' ? 'SKIP' : 'LIMIT';
  if (typeof v !== 'bigint')
    throw runtimeError('syntax_error', 'InvalidArgumentType', `${what} needs a non-negative integer, not a ${typeName(v)}`, node.at);
  if (v < 0n) throw runtimeError('syntax_error', 'NegativeIntegerArgument', `${what} needs a non-negative integer, not ${v}`, node.at);
  return v > BigInt(total) ? total : Number(v);
}

export function unwind(node: Node<'unwind'>, run: TableRun, argument: TableRow | null): TableRow[] {
  const out: TableRow[] = [];
  for (const row of run.rows(node.input, argument)) {
    const list = evaluate(node.list, row, run);
    // UNWIND of null is no row; of a non-list value, that one value.
    const items = list === null ? [] : Array.isArray(list) ? list : [list];
    for (const item of items) {
      const next = row.slice();
      next[node.slot] = item;
      out.push(next);
    }
    run.check(out.length);
  }
  return out;
}

export function union(node: Node<'union'>, run: TableRun, argument: TableRow | null): TableRow[] {
  const out: TableRow[] = [];
  const seen = node.all ? null : new Set<string>();
  for (const branch of node.branches) {
    for (const row of run.rows(branch, argument)) {
      if (seen !== null) {
        const key = row.map((v) => groupKey(v ?? null)).join('\u0000');
        if (seen.has(key)) continue;
        seen.add(key);
      }
      out.push(row);
    }
  }
  return out;
}
