/**
 * Reading a filter's conjuncts, shared by the column scans (scan.ts), the secondary-index
 * scans (index-scan.ts) and edge sources (source.ts): the `and`s flattened, the label a
 * conjunct pins, which names are stored properties, and which operands are known before
 * the scan runs.
 */
import type { Expr, Predicate } from '../../plan/expr.js';
import type { Value } from '../../core/value.js';
import type { Exec } from '../context.js';
import { variableValue } from '../eval.js';

/** A stored property name: not `$`-prefixed (virtual) and not a dotted path. */
export const isPlainProperty = (name: string) => name.length > 0 && name.charCodeAt(0) !== 36 /* $ */ && !name.includes('.');

/** A value the predicate compares with, known before the scan; null when it is not. */
export function known(x: Exec, e: Expr): { readonly value: Value } | null {
  if (e.e === 'constant') return { value: e.value };
  if (e.e === 'param') {
    const value = x.params.get(e.name);
    return value === undefined ? null : { value };
  }
  // Earlier entries of the batch have run: the variable's value is fixed for this scan.
  if (e.e === 'variable') return { value: variableValue(x, e) };
  return null;
}

/** A comparison read with its operands swapped (`5 < age` is `age > 5`). */
export const FLIP = { eq: 'eq', neq: 'neq', gt: 'lt', gte: 'lte', lt: 'gt', lte: 'gte' } as const;
export type CompareOp = keyof typeof FLIP;

/** The predicates with nested `and`s flattened into one list. */
export function conjunctsOf(predicates: readonly Predicate[]): Predicate[] {
  const out: Predicate[] = [];
  const flatten = (p: Predicate) => (p.p === 'and' ? p.predicates.forEach(flatten) : out.push(p));
  predicates.forEach(flatten);
  return out;
}

/** `$label == "X"` with a constant string, either way round: the label it pins. */
export function pinnedLabel(p: Predicate): string | null {
  if (p.p !== 'compare' || p.op !== 'eq') return null;
  const [prop, other] = p.left.e === 'property' ? [p.left, p.right] : [p.right, p.left];
  if (prop.e !== 'property' || prop.name !== '$label' || other.e !== 'constant') return null;
  return typeof other.value === 'string' ? other.value : null;
}

/** The first label any of the conjuncts pins. */
export function labelPinnedBy(conjuncts: readonly Predicate[]): string | null {
  for (const p of conjuncts) {
    const label = pinnedLabel(p);
    if (label !== null) return label;
  }
  return null;
}
