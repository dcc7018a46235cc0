/**
 * Secondary indexes used by scans. A node scan (`nodes_where`, and `where`/`has` over it)
 * or an edge scan (`edges_where`) whose conjuncts pin a label with `$label == "X"` and
 * compare a stored property with a value known before the scan (a constant or a
 * parameter) reads the candidates from an active index of that label and property
 * instead of every element of the label: an equality index for `==`, a range index for
 * `==`, `<`, `<=`, `>`, `>=` (bounds on one property combine).
 *
 * The index answers candidates only; every conjunct is evaluated on each candidate, so
 * the rows are exactly those of the scan without an index, in the same order (ascending
 * id). When the index holds more candidates than a column scan would cost to beat (a
 * 64th of the elements, at least 1024), the scan goes on without it: reading records one
 * by one is slower than scanning column chunks for that many.
 */
import type { Predicate } from '../../plan/expr.js';
import type { Value } from '../../core/value.js';
import type { IndexDef, RangeBound } from '../../store/index.js';
import type { Exec } from '../context.js';
import { conjunctsOf, FLIP, isPlainProperty, known, labelPinnedBy, type CompareOp } from './conjuncts.js';

/** Candidates beyond this share of the elements are cheaper to find by scanning. */
const SHARE = 64;
const MIN_LIMIT = 1024;

interface Bounds {
  eq?: Value;
  low?: RangeBound;
  high?: RangeBound;
}

/** What the conjuncts require of each plain property, where the value is known. */
function boundsOf(x: Exec, conjuncts: readonly Predicate[]): Map<string, Bounds> {
  const out = new Map<string, Bounds>();
  for (const p of conjuncts) {
    if (p.p !== 'compare' || p.op === 'neq') continue;
    let op: CompareOp = p.op;
    let prop = p.left;
    let other = p.right;
    if (prop.e !== 'property') {
      [prop, other] = [p.right, p.left];
      op = FLIP[op];
    }
    if (prop.e !== 'property' || !isPlainProperty(prop.name)) continue;
    const value = known(x, other)?.value;
    if (value === undefined || value === null) continue;
    const b = out.get(prop.name) ?? {};
    if (op === 'eq') b.eq = value;
    else if (op === 'gt' || op === 'gte') b.low = { value, inclusive: op === 'gte' };
    else b.high = { value, inclusive: op === 'lte' };
    out.set(prop.name, b);
  }
  return out;
}

/** Whether two bounds are of one value kind (a range lookup reads one kind's keys). */
const sameKind = (a: Value, b: Value) =>
  (typeof a === 'bigint' || typeof a === 'number') === (typeof b === 'bigint' || typeof b === 'number') &&
  (typeof a === 'string') === (typeof b === 'string');

/**
 * The candidate ids (ascending) an active secondary index gives for these conjuncts, or
 * null when no index applies or it would not make the scan cheaper.
 */
export function indexedCandidates(x: Exec, element: 'node' | 'edge', predicates: readonly Predicate[]): number[] | null {
  const catalog = x.indexCatalog();
  if (catalog.empty) return null;
  const conjuncts = conjunctsOf(predicates);
  const label = labelPinnedBy(conjuncts);
  if (label === null) return null;
  const limit = Math.max(MIN_LIMIT, Math.floor((element === 'node' ? x.store.nodeCount() : x.store.edgeCount()) / SHARE));
  for (const [property, b] of boundsOf(x, conjuncts)) {
    let def: IndexDef | undefined;
    let ids: number[] | null = null;
    if (b.eq !== undefined) {
      def = catalog.active(`${element}_equality`, label, property);
      if (def !== undefined) ids = x.store.secondaryEqual(def.id, b.eq, limit);
      else {
        def = catalog.active(`${element}_range`, label, property);
        if (def !== undefined)
          ids = x.store.secondaryRange(def.id, { value: b.eq, inclusive: true }, { value: b.eq, inclusive: true }, limit);
      }
    } else if (b.low !== undefined || b.high !== undefined) {
      if (b.low !== undefined && b.high !== undefined && !sameKind(b.low.value, b.high.value)) continue;
      def = catalog.active(`${element}_range`, label, property);
      if (def !== undefined) ids = x.store.secondaryRange(def.id, b.low ?? null, b.high ?? null, limit);
    }
    if (def === undefined || ids === null) continue;
    return ids.sort((a, c) => a - c);
  }
  return null;
}
