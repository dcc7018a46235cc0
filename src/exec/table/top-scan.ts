/**
 * `MATCH (n:L) [WHERE ...] RETURN ... ORDER BY n.a, n.b LIMIT k` answered on the property
 * columns, as /v2/query's order_by + limit over a scan is (scan.ts scanTopRows), instead of
 * a row per node whose record is read for its keys: only the k winners become rows.
 *
 * Taken only where it gives exactly the generic sort's answer:
 *  - a read statement (a write reads its own changes, which the columns do not show yet);
 *  - the plan is a node scan (from_traversal over unit), optionally one projection of
 *    property reads of that node, literals or slots (none of which can fail on a node), then
 *    ORDER BY whose keys are each a property of the node, directly or through that projection;
 *  - every node of the scan's label that holds a key holds it as a number other than NaN,
 *    or each as a string (scan.ts scanKeysOfOneKind): numbers, and strings, order the same
 *    in Cypher and in order_by, a node without the key has null there, which the column
 *    path sorts above every value as Cypher does (scanTopRows' missingHigh), and ties keep
 *    the scan's id order in both (Cypher's sort is stable over a scan in id order).
 * Anything else (NaN, numbers and strings under one key, other kinds, expressions) takes
 * the generic sort.
 */
import { NodeRef, type CypherValue } from '../../core/cypher-value.js';
import type { Order } from '../../plan/expr.js';
import type { RowExpr, TableNode } from '../../plan/table.js';
import { scanKeysOfOneKind } from '../scan/column-facts.js';
import { scanOf } from '../scan/recognise.js';
import { scanTopRows } from '../scan/top-k.js';
import { evaluate } from './eval.js';
import type { TableRow, TableRun } from './rows.js';

type Node<K extends TableNode['t']> = Extract<TableNode, { t: K }>;

/** What the column path needs from a sort's plan. */
export interface ScanSort {
  readonly traversal: Node<'from_traversal'>;
  readonly project: Node<'project'> | null;
  /** order_by's keys; one array per sort node, as scanTopRows caches by its identity. */
  readonly keys: readonly (readonly [string, Order])[];
  /** The keys' property names. */
  readonly names: readonly string[];
}

const SHAPES = new WeakMap<Node<'sort'>, ScanSort | null>();

/** The sort's plan as the column path reads it, or null when it has another shape (found once per plan). */
export function shapeOf(sort: Node<'sort'>): ScanSort | null {
  let shape = SHAPES.get(sort);
  if (shape === undefined) {
    shape = findShape(sort);
    SHAPES.set(sort, shape);
  }
  return shape;
}

function findShape(sort: Node<'sort'>): ScanSort | null {
  let input = sort.input;
  let project: Node<'project'> | null = null;
  if (input.t === 'project') {
    if (input.only || input.distinct) return null;
    project = input;
    input = input.input;
  }
  if (input.t !== 'from_traversal' || input.kind !== 'node' || input.input.t !== 'unit') return null;
  const slot = input.slot;
  const propertyName = (e: RowExpr): string | null =>
    e.k === 'property' && e.object.k === 'slot' && e.object.slot === slot && !e.key.startsWith('$') ? e.key : null;
  const cannotFail = (e: RowExpr) => e.k === 'literal' || e.k === 'slot' || propertyName(e) !== null;
  // An item may write the node's own slot only with the node itself (`RETURN u, ...`).
  const keepsNode = (target: number, e: RowExpr) => target !== slot || (e.k === 'slot' && e.slot === slot);
  if (project !== null && !project.items.every(([target, e]) => keepsNode(target, e) && cannotFail(e))) return null;
  const keys: (readonly [string, Order])[] = [];
  for (const { expr, descending } of sort.keys) {
    let name = propertyName(expr);
    if (name === null && expr.k === 'slot' && project !== null) {
      const item = project.items.find(([target]) => target === expr.slot);
      name = item === undefined ? null : propertyName(item[1]);
    }
    if (name === null) return null;
    keys.push([name, descending ? 'desc' : 'asc']);
  }
  return { traversal: input, project, keys, names: keys.map(([name]) => name) };
}

/** LIMITs above this take the generic sort: the column path keeps its winners in a heap. */
const MAX_COUNT = 10_000;

/**
 * The first `count()` rows of the sort, or null when the column path does not apply (the
 * caller sorts every row then). `count` is asked only once the plan's shape is known to
 * have keys that cannot fail, so a LIMIT's error never comes before a key's.
 */
export function topOfScan(sort: Node<'sort'>, count: () => number, run: TableRun): TableRow[] | null {
  const x = run.x;
  if (x.writer !== null) return null;
  const shape = shapeOf(sort);
  if (shape === null) return null;
  const n = count();
  if (n > MAX_COUNT) return null;
  const spec = scanOf(x, shape.traversal.root);
  if (spec === null || !scanKeysOfOneKind(x, spec, shape.names)) return null;
  const winners = scanTopRows(x, spec, shape.keys, 0, n, '$', true);
  if (winners === null) return null;
  return winners.map(({ id }) => {
    const row = new Array<CypherValue>(run.slotCount);
    row[shape.traversal.slot] = new NodeRef(id);
    if (shape.project === null) return row;
    // As the projection does: every item against the input row, then written.
    const values = shape.project.items.map(([, expr]) => evaluate(expr, row, run));
    shape.project.items.forEach(([target], i) => (row[target] = values[i]!));
    return row;
  });
}
