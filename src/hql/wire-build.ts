/**
 * Small builders of /v2/query JSON (reference v2-wire.md §4, §5), so the lowering
 * (compile.ts) reads as the plan it makes. Values are plain objects; bigints stay bigints
 * and are printed exactly by core/json-stringify.
 */

export type Wire = { readonly [key: string]: unknown } | string;

export const CONTEXT: Wire = 'context';

export function op(name: string, fields: Record<string, unknown>): Wire {
  return { [name]: fields };
}

export const property = (name: string): Wire => ({ property: name });
export const param = (name: string): Wire => ({ param: name });
export const constant = (tagged: Wire): Wire => ({ constant: tagged });
export const ID_EXPR: Wire = 'id';

export function compare(opName: 'eq' | 'neq' | 'gt' | 'gte' | 'lt' | 'lte', left: Wire, right: Wire): Wire {
  return { [opName]: { left, right } };
}

export function labelIs(label: string): Wire {
  return compare('eq', property('$label'), constant({ string: label }));
}

export const and = (predicates: readonly Wire[]): Wire => (predicates.length === 1 ? predicates[0]! : { and: { predicates } });
export const or = (predicates: readonly Wire[]): Wire => (predicates.length === 1 ? predicates[0]! : { or: { predicates } });
export const not = (predicate: Wire): Wire => ({ not: { predicate } });

/** An expression item of `project`: always present in the output, null when missing. */
export function projectItem(alias: string, expr: Wire): Wire {
  return { expr: { alias, expr } };
}
