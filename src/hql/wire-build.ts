/**
 * Small builders of /v2/query JSON (reference v2-wire.md §4, §5), so the lowering
 * (compile.ts) reads as the plan it makes. Values are plain objects; bigints stay bigints
 * and are printed exactly by core/json-stringify.
 */

import { parseJson } from '../core/json.js';
import { stringifyJson } from '../core/json-stringify.js';
import type { Value } from '../core/value.js';
import type { QueryPlan } from '../plan/batch.js';
import { validatePlanNoting } from '../plan/validate.js';
import { decodeRequest } from '../wire/request.js';

export type Wire = { readonly [key: string]: unknown } | string;

/**
 * A lowered request decoded through the wire schema and validated as /v2/query would, with
 * `params` standing for the call's: through the text the wire would carry, so numbers read
 * as a client's JSON reads (integers exact, floats floats). Throws the GraphError a client
 * would get: for the lowering, a bug of its own.
 */
export function checkedRequest(request: Wire, params: ReadonlyMap<string, Value>): { plan: QueryPlan; readParamValues: boolean } {
  const plan = decodeRequest(parseJson(stringifyJson(request)));
  const { readParamValues } = validatePlanNoting({ ...plan, params });
  return { plan, readParamValues };
}

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
