/**
 * Decodes a parsed QueryRequest body into a QueryPlan (contract "QueryRequest", D3, D5-D7).
 * Shape errors are 400 invalid_query_json with the JSON path; static plan rules run after,
 * in src/plan/validate.ts.
 */
import type { Batch, Condition, Entry, QueryPlan, RequestType } from '../plan/batch.js';
import { isObject } from '../core/json.js';
import type { Value } from '../core/value.js';
import {
  component,
  described,
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
  taggedSchema,
  tuple,
  u64,
  withDefault,
  type Field,
  type JsonSchema,
} from './schema.js';
import { planNode } from './ops.js';
import { paramType, typedValue, untypedValue, type ParamType } from './values.js';
import { clip } from '../core/clip.js';

const condition: Field<Condition> = described(
  (json, path) => {
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
  },
  taggedSchema(['prev_not_empty'], { var_not_empty: name, var_empty: name, var_min_size: tuple(name, u64) }),
);

const namedQuery = struct({ name: optional(name), root: required(planNode), condition: optional(condition) });

const ENTRY = component('BatchEntry', () => taggedSchema([], { query: namedQuery, for_each: forEach }));
const entry: Field<Entry> = described((json, path) => {
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
}, ENTRY);
const forEach = struct({ param: required(name), body: required(list(entry)) });

const batch: Field<Batch> = struct({ entries: required(list(entry)), returns: withDefault(list(str), []) });
const BATCH = component('Batch', () => batch.schema!);

const jsonObject = (what: JsonSchema) =>
  described((json, path) => (isObject(json) ? json : fail(path, `expected an object, got ${describe(json)}`)), { type: 'object', ...what });

const envelope = struct({
  request_type: required(oneOf(['read', 'write'] as const)),
  query_name: optional(str),
  query: required(described((json) => json, taggedSchema([], { read: BATCH, write: BATCH }))),
  parameters: optional(jsonObject({ description: 'the values of the parameters: untyped JSON, or as parameter_types declares them' })),
  parameter_types: optional(jsonObject({ additionalProperties: { $ref: '#/components/schemas/ParameterType' } })),
});

/**
 * The schema of a /v2/query body: the envelope's, with `query` holding a batch under the
 * key that `request_type` names (decodeRequest refuses the two disagreeing).
 */
export function queryRequestSchema(): JsonSchema {
  const base = envelope.schema as { properties: Record<string, JsonSchema> };
  return {
    anyOf: (['read', 'write'] as const).map((type) => ({
      ...envelope.schema,
      properties: {
        ...base.properties,
        request_type: { const: type },
        query: { type: 'object', properties: { [type]: BATCH }, required: [type], additionalProperties: false },
      },
    })),
  };
}

export function decodeRequest(json: unknown): QueryPlan {
  const env = envelope(json, 'request');
  return { ...decodeQuery(env), params: decodeParameters(env.parameters, env.parameter_types) };
}

/**
 * A request to prepare once and run with other parameters each time (Database.prepare):
 * as decodeRequest, without `parameters`, which each run gives; its `parameter_types`
 * decode them (decodeParameters).
 */
export function decodePreparedRequest(json: unknown): { readonly plan: QueryPlan; readonly types: Record<string, unknown> | null } {
  const env = envelope(json, 'request');
  if (env.parameters !== null) fail('parameters', 'a prepared request is given its parameters at each run, not in the request');
  return { plan: { ...decodeQuery(env), params: new Map() }, types: env.parameter_types };
}

function decodeQuery(env: ReturnType<typeof envelope>): Omit<QueryPlan, 'params'> {
  const q = tagged(env.query, 'query', 'a query ({"read": batch} or {"write": batch})');
  if (q.tag !== 'read' && q.tag !== 'write') fail('query', `expected "read" or "write", got "${clip(q.tag)}"`);
  if (q.tag !== env.request_type)
    fail('query', `request_type is "${env.request_type}" but the query holds a "${q.tag}" batch; they must match`);
  return { type: env.request_type as RequestType, queryName: env.query_name, batch: batch(q.body, q.bodyPath) };
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
