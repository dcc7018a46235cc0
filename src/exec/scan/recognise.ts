/**
 * Recognising a node scan in a plan: a node source with filters on it (`nodes` all,
 * `nodes_where`, and `where`/`has`/`has_label`/`has_key` over a scan), read from what
 * each operation's catalogue entry says it keeps (plan/catalog.ts `keeps`). The scan's
 * predicates are then answered from property columns (rows.ts, top-k.ts).
 */
import type { Predicate } from '../../plan/expr.js';
import type { PlanNode } from '../../plan/ops.js';
import { CATALOG, inputOf, keptBy } from '../../plan/catalog.js';
import { Derived, type Exec } from '../context.js';

/** A node scan found in the plan: every node, filtered by all of `predicates`. */
export interface ScanSpec {
  readonly predicates: readonly Predicate[];
}

/** Scans found in plan nodes: a plan never changes, so a request finds each once. */
const SCANS = new Derived<PlanNode, ScanSpec | null>((node) => findScan(node));

/** Recognises a scan rooted at `node`, or null. */
export function scanOf(x: Exec, node: PlanNode): ScanSpec | null {
  return x.derive(SCANS, node);
}

/** A node source that keeps what a predicate allows, then filters that keep more of its rows. */
function findScan(node: PlanNode): ScanSpec | null {
  const keeps = keptBy(node);
  if (keeps === null) return null;
  const input = inputOf(node);
  if (input !== null) return keeps === 'all' ? findScan(input) : extend(input, keeps);
  if (CATALOG[node.op].elements !== 'node') return null;
  return { predicates: keeps === 'all' ? [] : [keeps] };
}

function extend(input: PlanNode, predicate: Predicate): ScanSpec | null {
  const inner = findScan(input);
  return inner === null ? null : { predicates: [...inner.predicates, predicate] };
}
