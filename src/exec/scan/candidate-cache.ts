/**
 * The candidates of a `_within` search over a node scan (`nodes_where ...`), kept per
 * columns generation. A search filtered by the same predicate again and again (a
 * category, a tenant's documents, a date range) would otherwise scan the label's columns
 * at every request, which costs more than the search itself (docs/benchmarks.md,
 * "Filtered search"). A reader keeps each set until a commit changes the columns
 * (GraphReader.columnsFact); a write batch makes it afresh every time, as it sees its own
 * writes.
 *
 * Only a scan whose result is fixed by the stored nodes and the request's parameters is
 * kept: every conjunct compiles to a column test (no residual evaluated on records, which
 * could read anything), and no expression reads the clock, a batch variable, an outer row
 * or a traversal (FIXED_BY_NODES). The key holds the conjuncts and the values of the
 * parameters they read, so another value is another set.
 */
import { DateTime } from '../../core/value.js';
import type { Expr } from '../../plan/expr.js';
import { walkExprs } from '../../plan/expr-walk.js';
import type { Exec } from '../context.js';
import type { IdSet } from './id-set.js';
import type { ScanSpec } from './recognise.js';
import { prepare, scanIds } from './rows.js';

/** Per expression kind: whether its value for a node is fixed by that node and the request's parameters. */
const FIXED_BY_NODES: Record<Expr['e'], boolean> = {
  property: true,
  id: true,
  constant: true,
  param: true,
  add: true,
  sub: true,
  mul: true,
  div: true,
  mod: true,
  neg: true,
  cast: true,
  math: true,
  case: true,
  timestamp: false, // the clock
  date_time_now: false, // the clock
  variable: false, // what an earlier entry of the batch bound
  outer: false, // the row a traversal expression started from
  traversal: false, // edges and other nodes
};

/** The scan's candidate ids: a reader's kept set when the scan's result can be kept, else made now. */
export function candidateIds(x: Exec, spec: ScanSpec): IdSet {
  const key = candidateKey(x, spec);
  if (key === null) return scanIds(x, spec);
  return x.store.columnsFact(
    key,
    () => scanIds(x, spec),
    (ids) => ids.bytes,
  );
}

/** The key of a scan's candidate set, or null when its result is not fixed by the nodes and parameters. */
function candidateKey(x: Exec, spec: ScanSpec): string | null {
  if (prepare(x, spec).residual.length > 0) return null;
  let fixed = true;
  const params = new Set<string>();
  const onExpr = (e: Expr) => {
    if (!FIXED_BY_NODES[e.e]) fixed = false;
    else if (e.e === 'param') params.add(e.name);
  };
  for (const p of spec.predicates) walkExprs(p, onExpr, () => {});
  if (!fixed) return null;
  const values: [string, unknown][] = [];
  for (const name of [...params].sort()) {
    const v = x.params.get(name);
    if (v === undefined) return null; // unbound: the scan itself says so, where
    values.push([name, v]);
  }
  return `within:${keyOf(spec.predicates, true)}:${keyOf(values)}`;
}

/**
 * A text that tells apart every plan predicate and value: each scalar carries its type
 * (5, 5.0 and "5" differ; so do -0, NaN and a date-time), typed arrays their kind. Of a
 * plan node (`plan`), the JSON path it carries for messages is left out: it names where
 * the request wrote a predicate, not what it keeps (the same filter written in another
 * request, or deeper in one, is the same set). A constant's value is a value again, whose
 * entries (a "path" too) are all its own.
 */
function keyOf(v: unknown, plan = false): string {
  switch (typeof v) {
    case 'undefined':
      return 'u';
    case 'boolean':
      return v ? 't' : 'f';
    case 'number':
      return Object.is(v, -0) ? 'd-0' : `d${v}`;
    case 'bigint':
      return `i${v}`;
    case 'string':
      return JSON.stringify(v);
  }
  if (v === null) return 'n';
  if (v instanceof DateTime) return `T${v.ms}`;
  if (ArrayBuffer.isView(v))
    return `${v.constructor.name}[${Array.from(v as unknown as ArrayLike<number | bigint>, (x) => keyOf(x)).join(',')}]`;
  if (Array.isArray(v)) return `[${v.map((x) => keyOf(x, plan)).join(',')}]`;
  const constant = plan && (v as { e?: unknown }).e === 'constant';
  let out = '{';
  for (const [k, x] of Object.entries(v as object)) {
    if (plan && k === 'path') continue;
    out += `${out.length > 1 ? ',' : ''}${JSON.stringify(k)}:${keyOf(x, plan && !(constant && k === 'value'))}`;
  }
  return `${out}}`;
}
