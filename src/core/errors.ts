/**
 * The error-code registry: every code the service can answer with, its HTTP status,
 * whether replaying the same request can succeed, and a one-line meaning.
 * docs/errors.md is generated from this table (scripts/gen-errors-doc.ts) and a test
 * checks the two agree, so a code cannot ship undocumented.
 *
 * Client mistakes are 4xx even when found during execution (DECISIONS D11); 500 is for
 * our own failures only.
 */
export interface ErrorSpec {
  readonly status: number;
  readonly retryable: boolean;
  readonly meaning: string;
  /** The status on `POST /<QueryName>`, where it differs (D16: an element addressed by id that does not exist is 404 there). */
  readonly namedQueryStatus?: number;
}

function spec(status: number, meaning: string, retryable = false): ErrorSpec {
  return { status, retryable, meaning };
}

export const ERROR_REGISTRY = {
  // Transport and envelope
  not_found: spec(404, 'No route matches the request path.'),
  method_not_allowed: spec(405, 'The route exists but not for this HTTP method.'),
  payload_too_large: spec(413, 'The body is larger than the limit (16 MiB local, 2 MiB gateway); rejected before parsing.'),
  invalid_request_framing: spec(
    400,
    'The body framing is ambiguous: Content-Length sent twice with different values, or a Transfer-Encoding other than chunked; the connection is closed after this answer.',
  ),
  invalid_query_json: spec(
    400,
    'The body is not valid query JSON: syntax, shape, unknown key or tag, parameter schema; the msg names the JSON path.',
  ),
  invalid_request_option: spec(400, 'A request header has a bad value or does not apply to this request type.'),
  invalid_request: spec(
    400,
    'The request is incompatible with the service mode; a /v2/import body that is not the documented map of columns; at the gateway, a missing or malformed Authorization header or a bad gateway header.',
  ),
  // Named queries of the query language (docs/query-language.md; DECISIONS D16)
  query_not_found: spec(404, 'POST /<QueryName>: the project has no query of that name.'),
  invalid_parameter: spec(
    400,
    'POST /<QueryName>: a parameter is missing, unknown, of the wrong type or out of range for its declared type; the msg names it.',
  ),
  invalid_connection: spec(400, 'POST /mcp/<QueryName>Mcp: the connection_id is missing or was not made by POST /mcp/init on this server.'),
  // The managed gateway (docs/gateway.md; DECISIONS D19, D20)
  unauthorized: spec(401, 'Gateway: the API key is not known (or was revoked).'),
  forbidden: spec(403, 'Gateway: the API key has no permission for this database or request type.'),
  database_id_required: spec(400, 'Gateway in shared mode: X-Svc-Database-Id (or X-Svc-Tenant-Id, X-Helix-Database-Id) is missing.'),
  database_id_not_allowed: spec(400, 'Gateway in cluster mode: a database id header was sent; this gateway serves one database.'),
  tenant_disabled: spec(402, "Gateway: the database's credit is exhausted, so its queries are disabled; not a rate limit."),
  rate_limited: spec(429, "Gateway: the database's token bucket is empty; retry after the Retry-After seconds.", true),
  rate_limit_unavailable: spec(
    503,
    'Gateway: the rate limiter (Redis) is unreachable or too slow, so the gateway fails closed; retry with backoff and jitter.',
    true,
  ),
  backend_unavailable: spec(503, 'Gateway: no database server of this database could take the request; retry with backoff.', true),
  // Planning (static validation, nothing has run)
  invalid_batch_arity: spec(400, 'A batch or for_each body has no entries.'),
  invalid_initial_batch_condition: spec(400, 'prev_not_empty is used on the first entry of a batch or for_each body.'),
  invalid_batch_condition_min_size: spec(400, 'var_min_size asks for a size of 0.'),
  invalid_empty_name: spec(400, 'An entry name, label, property, variable, parameter or return name is empty.'),
  duplicate_return_variable: spec(400, 'A name appears twice in returns.'),
  unknown_return_variable: spec(400, 'A name in returns is not bound by any entry of the batch.'),
  unknown_variable: spec(
    400,
    'A variable is referenced (var reference, select, inject, within, without, condition) but nothing in the batch binds it.',
  ),
  duplicate_element_id: spec(400, 'The same id appears twice in an ids reference.'),
  duplicate_property_assignment: spec(400, 'The same property is assigned twice in one mutation.'),
  duplicate_property_selection: spec(400, 'A property name repeats in values or value_map.'),
  duplicate_projection_alias: spec(400, 'An alias repeats in a projection.'),
  duplicate_order_key: spec(400, 'A sort key repeats in order_by_multiple.'),
  invalid_order_keys: spec(400, 'order_by_multiple has no keys.'),
  invalid_projection_arity: spec(400, 'A projection, values list or coalesce ref list is empty.'),
  invalid_predicate_arity: spec(400, 'and/or has no child predicates.'),
  invalid_branch_arity: spec(400, 'union has fewer than 2 branches, or coalesce fewer than 1.'),
  invalid_repeat_count: spec(400, 'repeat times or max_depth is 0.'),
  invalid_repeat_emit: spec(400, 'emit_predicate is given with an emit other than "after".'),
  invalid_shortest_path_count: spec(400, 'shortest_path max_depth is 0.'),
  invalid_rerank_parameter: spec(
    400,
    'A reranking parameter is out of range: the fusion constant k of fuse is not a positive number, or rerank_mmr lambda is not from 0 to 1.',
  ),
  invalid_stream_range: spec(400, 'A literal range has start greater than end.'),
  invalid_stream_bound_expression: spec(400, 'A bound expression is a constant other than a non-negative i64.'),
  unbound_context: spec(400, '"context" is used outside a sub-traversal.'),
  invalid_sub_traversal_operation: spec(
    400,
    'A source operation or project_bindings is used inside a branch or repeat body or a traversal expression, or a mutation inside a traversal expression.',
  ),
  invalid_after_bind_operation: spec(400, 'An operation that cannot follow bind is used after bind.'),
  read_only_traversal_in_write_batch: spec(400, 'bind or project_bindings is used in a write batch.'),
  mutation_in_read_batch: spec(400, 'A read batch contains a mutation (at any depth); send it as a write request.'),
  invalid_property_name: spec(
    400,
    'A mutation assigns or removes a reserved property ($label where not allowed, $id, $from, $to, $distance, $score, __proto__).',
  ),
  incompatible_comparison: spec(
    400,
    'An ordering or string predicate has an operand known before execution (constant or parameter) of a kind it cannot compare.',
  ),
  unsupported_edge_all_target: spec(400, '"all" is used as an edge mutation target.'),
  internal_planner_error: spec(400, 'The plan has a shape the planner does not support (for example a step after a terminal).'),
  limit_exceeded: spec(400, 'The request exceeds a documented limit (nesting depth, repeat depth, result size).'),
  // Execution: client mistakes found while running (D11: 400, not 500)
  invalid_query: spec(400, 'A runtime query error: unbound parameter or variable, wrong value shape, bad arithmetic operand.'),
  node_not_found: {
    ...spec(400, 'A node the query needs (for example an add_e endpoint) does not exist; 404 from POST /<QueryName> (D16).'),
    namedQueryStatus: 404,
  },
  edge_not_found: {
    ...spec(400, 'An edge the query needs does not exist; 404 from POST /<QueryName> (D16).'),
    namedQueryStatus: 404,
  },
  invalid_path_weight: spec(
    400,
    'weighted_shortest_path: an edge weight (or an A* heuristic) is missing, not a number, negative or not finite; the msg names the edge or node.',
  ),
  path_not_found: {
    ...spec(
      400,
      'POST /<QueryName>: a shortest path the query returns does not exist (within its depth limit); 404 there, as in HelixDB. /v2/query answers an empty result instead.',
    ),
    namedQueryStatus: 404,
  },
  embedding_provider_error: spec(
    502,
    "Embed(): the project's embedding provider could not turn the text into a vector (unreachable, too slow, an error status, or an answer that is not the expected embeddings); nothing of the query ran. The msg names the provider and the cause.",
    true,
  ),
  active_text_mutation_limit_exceeded: spec(
    400,
    'A write exceeds a per-document text bound; nothing commits; retrying the same write does not help.',
  ),
  index_operation_batch_too_large: spec(400, 'A write stages more than 8 MiB of queued work for one index; split the write.'),
  // Indexes: DDL, operations, search input (docs/queries.md, Indexes and search)
  invalid_index_operation_id: spec(400, 'An index operation id is not a canonical lowercase, non-nil UUID.'),
  index_not_found: spec(400, 'A search, or drop_index, names an index that does not exist or whose build has not succeeded.'),
  index_already_exists: spec(400, 'create_index without if_not_exists for an index that already exists.'),
  index_definition_conflict: spec(
    400,
    'create_index for an index that exists with another definition (unique, direction, dimension, metric, tenant property).',
  ),
  index_operation_not_found: spec(400, 'get/retry/abort_index_operation names no known operation.'),
  index_operation_not_abortable: spec(400, 'abort_index_operation on an operation that already succeeded or is a drop.'),
  index_busy: spec(409, 'The index is being dropped; retry once the drop operation has finished.', true),
  index_backpressure: spec(
    429,
    "A vector index's queued work is at its bound (entries or bytes); retry shortly, the writer drains it in the background.",
    true,
  ),
  unique_constraint_violation: spec(400, 'A write gives two elements the same value of a unique index; nothing of the batch commits.'),
  invalid_search_input: spec(
    400,
    'A search query vector or query text is not of the accepted kind (f32 array literal, numeric array parameter, non-empty string).',
  ),
  invalid_search_result_count: spec(400, 'A search k literal is 0.'),
  invalid_search_result_count_expression: spec(400, 'A search k is a constant other than a positive integer.'),
  invalid_search_tenant: spec(400, 'tenant_value is given for an index without a tenant property.'),
  invalid_search_tenant_value: spec(400, 'A tenant-scoped index is searched without a non-null tenant_value.'),
  invalid_vector_dimension: spec(400, "A vector's dimension differs from its index's declared dimension."),
  invalid_vector_component: spec(400, 'A vector component is not finite (NaN or infinite).'),
  vector_component_magnitude_exceeded: spec(400, "A vector component exceeds the metric's score-safe magnitude."),
  zero_norm_cosine_vector: spec(400, 'A zero vector is given for a cosine index.'),
  query_timeout: spec(
    408,
    "The query ran past its execution budget (--query-timeout-ms, 30 s by default) and was stopped; a write kept nothing. From the gateway: the answer did not come within the database's attempt budget; a write's outcome is unknown.",
  ),
  // Concurrency and availability
  // Cypher (/v2/cypher, reference/cypher.md): the body adds `details` {detail, phase, span}
  syntax_error: spec(
    400,
    'Cypher: the query is not valid openCypher, or fails semantic analysis (details.detail names the rule, e.g. UndefinedVariable).',
  ),
  type_error: spec(
    400,
    'Cypher: a value has the wrong type for an operator, function or property (details.detail, e.g. InvalidArgumentType).',
  ),
  unsupported_feature: spec(400, 'Cypher: the query uses a feature this server does not support; details.detail names it.'),
  parameter_missing: spec(400, 'Cypher: the query uses a parameter the request does not give.'),
  argument_error: spec(400, 'Cypher: a function argument is out of its range (details.detail, e.g. NumberOutOfRange).'),
  entity_not_found: spec(400, 'Cypher: the statement reads a node or relationship it deleted earlier.'),
  arithmetic_error: spec(400, 'Cypher: integer overflow or division by zero.'),
  constraint_verification_failed: spec(
    400,
    'Cypher: the statement would leave a relationship without its node (DELETE of a connected node).',
  ),
  semantic_error: spec(400, 'Cypher: a rule checked while running, e.g. MERGE reading a property it sets (details.detail).'),
  resource_limit: spec(429, 'Cypher: the statement outgrew a limit (rows held in memory, expression depth); narrow it.'),
  access_mode_error: spec(503, 'Cypher: a writing statement (or X-Svc-Require-Writer) reached a server in reader mode.'),
  writer_mode_required: spec(503, 'A write, or X-Svc-Require-Writer, reached a server in reader mode.'),
  not_ready: spec(503, 'The database is still opening; retry shortly.', true),
  // Replication (docs/replication.md)
  writer_fenced: spec(
    503,
    'This writer was fenced: its replication stream holds another history (a newer writer took over, or the histories disagree); it takes no more writes. Send writes to the current writer.',
  ),
  lsn_not_reached: spec(
    503,
    'X-Trellis-Min-Lsn: this replica had not applied that LSN within the wait bound; retry, or read from the writer.',
    true,
  ),
  // Our own failures
  internal_error: spec(500, 'An internal invariant failed; this is a bug in the service.'),
  storage_error: spec(500, 'The storage engine failed (disk full, I/O error, corrupt file).'),
  serialization_error: spec(500, 'A result could not be serialized to JSON.'),
} as const satisfies Record<string, ErrorSpec>;

export type ErrorCode = keyof typeof ERROR_REGISTRY;

/**
 * The one error class. It crosses threads as data (`toErrorData`), never as a thrown
 * object, because structured clone drops subclass identity.
 */
export class GraphError extends Error {
  constructor(
    readonly code: ErrorCode,
    readonly msg: string,
  ) {
    super(`${code}: ${msg}`);
    this.name = 'GraphError';
  }

  get status(): number {
    return ERROR_REGISTRY[this.code].status;
  }
}

export interface ErrorBody {
  error: ErrorCode;
  msg: string;
  /** Cypher errors only (reference/cypher.md): the openCypher detail code, the phase and the byte span. */
  details?: CypherErrorDetails;
}

export interface CypherErrorDetails {
  readonly detail: string;
  readonly phase: 'compile' | 'runtime';
  readonly span: { readonly start: number; readonly end: number } | null;
}

/** An error of a Cypher statement: a registry code plus openCypher's detail, phase and span. */
export class CypherError extends GraphError {
  constructor(
    code: ErrorCode,
    msg: string,
    readonly details: CypherErrorDetails,
  ) {
    super(code, msg);
    this.name = 'CypherError';
  }
}

export function isErrorCode(code: string): code is ErrorCode {
  return Object.hasOwn(ERROR_REGISTRY, code);
}

/** The message of anything thrown: an Error's message, anything else as text. */
export function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** Any thrown value as an error body; foreign errors become internal_error without a stack. */
export function toErrorBody(err: unknown): ErrorBody {
  if (err instanceof CypherError) return { error: err.code, msg: err.msg, details: err.details };
  if (err instanceof GraphError) return { error: err.code, msg: err.msg };
  const name = err instanceof Error ? err.constructor.name : typeof err;
  if (err instanceof Error && /MDB_|lmdb/i.test(err.message)) {
    return { error: 'storage_error', msg: `storage failure: ${err.message}` };
  }
  return { error: 'internal_error', msg: `internal error (${name})` };
}

/** The response body of an error: `{"error", "msg"}`, plus `details` for a Cypher error (reference/cypher.md). */
export function errorJson(body: ErrorBody): string {
  if (body.details !== undefined) return JSON.stringify({ error: body.error, msg: body.msg, details: body.details });
  return JSON.stringify({ error: body.error, msg: body.msg });
}

/** Where an answer goes: most routes answer a code with its status, named queries some with another (D16). */
export type AnswerRoute = 'any' | 'named_query';

export function statusOf(code: ErrorCode, route: AnswerRoute = 'any'): number {
  const entry: ErrorSpec = ERROR_REGISTRY[code];
  return (route === 'named_query' ? entry.namedQueryStatus : undefined) ?? entry.status;
}

/** An error as an HTTP answer: its registry status (on `route`) and its `{"error", "msg"}` body. */
export function errorReply(body: ErrorBody, route: AnswerRoute = 'any'): { status: number; body: string } {
  return { status: statusOf(body.error, route), body: errorJson(body) };
}
