/**
 * The body of POST /v2/cypher and /v2/cypher/explain (reference/cypher.md, "Request"):
 * `{"query", "parameters"?, "query_name"?}`, unknown keys rejected, parameters as plain JSON
 * or the lossless `$type` envelopes.
 */
import { GraphError } from '../core/errors.js';
import type { Value } from '../core/value.js';
import { isValueObject } from '../core/value.js';

export interface CypherRequest {
  readonly query: string;
  readonly parameters: ReadonlyMap<string, Value>;
  readonly queryName: string | null;
}

/** A parsed JSON body (integers as bigint, as core/json.ts parses them) to a request. */
export function decodeCypherRequest(json: unknown): CypherRequest {
  if (!isValueObject(json as Value)) throw new GraphError('invalid_request', 'the body must be a JSON object with a "query" string');
  const body = json as Record<string, Value>;
  for (const key of Object.keys(body))
    if (key !== 'query' && key !== 'parameters' && key !== 'query_name')
      throw new GraphError('invalid_request', `unknown key "${key}": the body may have only "query", "parameters" and "query_name"`);
  if (typeof body.query !== 'string') throw new GraphError('invalid_request', '"query" must be a string');
  const params = new Map<string, Value>();
  const given = body.parameters ?? null;
  if (given !== null) {
    if (!isValueObject(given)) throw new GraphError('invalid_request', '"parameters" must be an object');
    for (const [name, value] of Object.entries(given)) params.set(name, value);
  }
  const name = body.query_name ?? null;
  if (name !== null && typeof name !== 'string') throw new GraphError('invalid_request', '"query_name" must be a string or null');
  return { query: body.query, parameters: params, queryName: name };
}
