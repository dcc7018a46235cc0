/**
 * Decodes a parsed QueryRequest body into a QueryPlan (contract "QueryRequest", D3, D5-D7).
 * Shape errors are 400 invalid_query_json with the JSON path; static plan rules run after,
 * in src/plan/validate.ts.
 */
import type { Batch, Condition, Entry, QueryPlan, RequestType } from '../plan/batch.js';
import { isObject } from '../core/json.js';
import type { Value } from '../core/value.js';
import {
  describe,
  fail,
  list,
  name,
  oneOf,
  optional,
  required,
  str,
  struct,
  tagged,
  tuple,
  u64,
  withDefault,
  type Field,
} from './schema.js';
import { planNode } from './ops.js';
import { paramType, typedValue, untypedValue, type ParamType } from './values.js';
import { clip } from '../core/clip.js';

const condition: Field<Condition> = (json, path) => {
  const { tag, body, bodyPath } = tagged(json, path, 'a batch condition');
  switch (tag) {
    case 'prev_not_empty':
      return body === undefined ? { kind: 'prev_not_empty' } : fail(path, '"prev_not_empty" is a bare string, not an object key');
    case 'var_not_empty':
    case 'var_empty':
      return { kind: tag, name: name(body, bodyPath) };
    case 'var_min_size': {
      const [varName, size] = tuple(name, u64)(body, bodyPath);
      return { kind: 'var_min_size', name: varName, size };
    }
    default:
      return fail(path, `unknown batch condition "${clip(tag)}" (expected prev_not_empty, var_not_empty, var_empty or var_min_size)`);
  }
};

const namedQuery = struct({ name: optional(name), root: required(planNode), condition: optional(condition) });

const entry: Field<Entry> = (json, path) => {
  const { tag, body, bodyPath } = tagged(json, path, 'a batch entry ({"query": ...} or {"for_each": ...})');
  if (tag === 'query') {
    const q = namedQuery(body, bodyPath);
    return { kind: 'query', name: q.name, root: q.root, condition: q.condition, path: bodyPath };
  }
  if (tag === 'for_each') {
    const f = forEach(body, bodyPath);
    return { kind: 'for_each', param: f.param, body: f.body, path: bodyPath };
  }
  return fail(path, `unknown batch entry "${clip(tag)}" (expected "query" or "for_each")`);
};
const forEach = struct({ param: required(name), body: required(list(entry)) });

const batch: Field<Batch> = struct({ entries: required(list(entry)), returns: withDefault(list(str), []) });

const envelope = struct({
  request_type: required(oneOf(['read', 'write'] as const)),
  query_name: optional(str),
  query: required((json) => json),
  parameters: optional((json, path) => (isObject(json) ? json : fail(path, `expected an object, got ${describe(json)}`))),
  parameter_types: optional((json, path) => (isObject(json) ? json : fail(path, `expected an object, got ${describe(json)}`))),
});

export function decodeRequest(json: unknown): QueryPlan {
  const env = envelope(json, 'request');
  const q = tagged(env.query, 'query', 'a query ({"read": batch} or {"write": batch})');
  if (q.tag !== 'read' && q.tag !== 'write') fail('query', `expected "read" or "write", got "${clip(q.tag)}"`);
  if (q.tag !== env.request_type)
    fail('query', `request_type is "${env.request_type}" but the query holds a "${q.tag}" batch; they must match`);
  const decoded = batch(q.body, q.bodyPath);
  return {
    type: env.request_type as RequestType,
    queryName: env.query_name,
    batch: decoded,
    params: decodeParameters(env.parameters, env.parameter_types),
  };
}

/** A request's `parameters` and `parameter_types` (JSON objects or null) as Values. */
export function decodeParameters(values: Record<string, unknown> | null, types: Record<string, unknown> | null): Map<string, Value> {
  const params = new Map<string, Value>();
  if (types !== null) {
    if (values === null) fail('parameter_types', 'parameter_types is only allowed together with parameters');
    const missing = Object.keys(types).filter((k) => !Object.hasOwn(values, k));
    const extra = Object.keys(values).filter((k) => !Object.hasOwn(types, k));
    if (missing.length || extra.length) {
      const parts = [];
      if (missing.length) parts.push(`declared but not sent: ${clip(missing.join(', '))}`);
      if (extra.length) parts.push(`sent but not declared: ${clip(extra.join(', '))}`);
      fail('parameter_types', `keys must equal the keys of parameters (typed and untyped parameters cannot be mixed); ${parts.join('; ')}`);
    }
  }
  if (values === null) return params;
  for (const key in values) {
    const path = `parameters.${clip(key)}`;
    if (key.length === 0) fail('parameters', 'parameter names must not be empty');
    if (types !== null) {
      const type: ParamType = paramType(types[key], `parameter_types.${clip(key)}`);
      params.set(key, typedValue(type, values[key], path));
    } else {
      params.set(key, untypedValue(values[key], path));
    }
  }
  return params;
}
