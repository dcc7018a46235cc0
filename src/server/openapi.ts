/**
 * The OpenAPI 3.1 document of this server, served at `GET /openapi.json`: every route the
 * router serves (made from the router's own route table and the project's queries, so a
 * route cannot be served without being listed), with
 *
 * - request bodies from the decoders that check them: the wire combinators' schemas
 *   (src/wire), the Cypher body's schema beside its decoder (src/cypher/request.ts), a
 *   named query's parameters from its declared types (src/hql/json-schema.ts);
 * - response bodies as TypeBox schemas (openapi-schemas.ts; test/server/openapi.test.ts
 *   checks real answers against them);
 * - every error code of the registry (src/core/errors.ts), by status;
 * - the option headers (`X-Svc-*` and their `x-helix-*` aliases) and `x-request-id`.
 *
 * The gateway serves this document too, with its key scheme added (src/gateway/openapi.ts).
 */
import { ERROR_REGISTRY, type ErrorCode } from '../core/errors.js';
import { CYPHER_PARAMETER_SCHEMA, CYPHER_REQUEST_SCHEMA } from '../cypher/request.js';
import { parametersSchema } from '../hql/json-schema.js';
import { queryRequestSchema } from '../wire/request.js';
import { COMPONENTS, type JsonSchema } from '../wire/schema.js';
import { OPTION_HEADERS } from './headers.js';
import type { HttpResponse } from './http-types.js';
import type { CompiledQuery } from '../hql/compile.js';
import { RESPONSE_SCHEMAS } from './openapi-schemas.js';
import type { Route } from './routes.js';
import { QUERY_NAME_PATH } from './routes.js';

export const OPENAPI_PATH = '/openapi.json';

/** The hashed files of the explorer are one templated path. */
const ASSETS = '/assets/{file}';

type Operation = Record<string, unknown>;

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: JsonSchema) => ({ 'application/json': { schema } });

/** Error responses with the codes of the registry that have each status. */
function errorResponses(codes: readonly ErrorCode[]): Record<string, unknown> {
  const byStatus = new Map<number, ErrorCode[]>();
  for (const code of codes) {
    const status = ERROR_REGISTRY[code].status;
    byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
  }
  const out: Record<string, unknown> = {};
  for (const [status, list] of [...byStatus].sort(([a], [b]) => a - b)) {
    out[String(status)] = {
      description: `An error: ${list.map((c) => `\`${c}\``).join(', ')} (docs/errors.md).`,
      headers: { 'x-request-id': { $ref: '#/components/headers/RequestId' } },
      content: json({
        allOf: [ref('Error'), { type: 'object', properties: { error: { type: 'string', enum: list } } }],
      }),
    };
  }
  return out;
}

const ALL_CODES = Object.keys(ERROR_REGISTRY) as ErrorCode[];
/** What a route that runs queries can answer: every code but the gateway's own (the registry's "Gateway: ..." entries). */
const QUERY_CODES = ALL_CODES.filter((c) => !ERROR_REGISTRY[c].meaning.startsWith('Gateway'));
const ROUTING_CODES: ErrorCode[] = ['not_found', 'method_not_allowed'];

/** A replication route answering the bytes of a file from an offset: `{"<file>", "offset", "length"}`. */
function pieceOperation(operationId: string, summary: string, file: 'id' | 'name'): Operation {
  return {
    operationId,
    summary,
    tags: ['replication'],
    parameters: [{ $ref: '#/components/parameters/x-request-id' }],
    requestBody: {
      required: true,
      content: json({
        type: 'object',
        required: [file, 'offset'],
        properties: { [file]: { type: 'string' }, offset: { type: 'integer' }, length: { type: 'integer' } },
      }),
    },
    responses: {
      ...ok('The bytes', { type: 'string', format: 'binary' }, 'application/octet-stream'),
      ...errorResponses([...ROUTING_CODES, 'invalid_query_json']),
    },
  };
}

function ok(description: string, schema: JsonSchema, type = 'application/json'): Record<string, unknown> {
  return {
    '200': {
      description,
      headers: { 'x-request-id': { $ref: '#/components/headers/RequestId' } },
      content: { [type]: { schema } },
    },
  };
}

const OPTION_PARAMETERS = [
  ...OPTION_HEADERS.map((h) => ({ $ref: `#/components/parameters/${h.canonical}` })),
  { $ref: '#/components/parameters/x-request-id' },
];

function queryOperation(id: string, summary: string, description: string, body: JsonSchema, response: Record<string, unknown>): Operation {
  return {
    operationId: id,
    summary,
    description,
    tags: ['queries'],
    parameters: OPTION_PARAMETERS,
    requestBody: { required: true, content: json(body) },
    responses: { ...response, ...errorResponses([...QUERY_CODES]) },
  };
}

function getOperation(id: string, summary: string, response: Record<string, unknown>, codes: ErrorCode[] = []): Operation {
  return {
    operationId: id,
    summary,
    tags: ['operations'],
    parameters: [{ $ref: '#/components/parameters/x-request-id' }],
    responses: { ...response, ...errorResponses([...ROUTING_CODES, ...codes]) },
  };
}

/** The fixed routes' operations, by path and method. */
const FIXED: Readonly<Record<string, Readonly<Record<string, Operation>>>> = {
  '/v2/query': {
    post: queryOperation(
      'query',
      'Run one read or write batch of operation trees',
      "HelixDB's v2 query contract (docs/queries.md): a batch of operation trees, answered with one array per returned name. Index DDL, index operations and vector and text search are operations too.",
      ref('QueryRequest'),
      ok('The returned names, each with its array of values', ref('QueryResponse')),
    ),
  },
  '/v2/cypher': {
    post: queryOperation(
      'cypher',
      'Run one openCypher statement',
      'One statement, one transaction (docs/cypher.md). Errors of the statement carry `details` with the openCypher detail code, phase and byte span.',
      ref('CypherRequest'),
      ok('The columns and rows of the statement', ref('CypherResponse')),
    ),
  },
  '/v2/cypher/explain': {
    post: queryOperation(
      'cypherExplain',
      'Explain one openCypher statement without running it',
      'The plan of the statement: its effect, bindings, result columns and operator tree (README, Cypher).',
      ref('CypherRequest'),
      ok('The plan', ref('ExplainResponse')),
    ),
  },
  '/v2/import': {
    post: {
      operationId: 'import',
      summary: "Store one label's nodes or edges, given as columns (a Trellis extension)",
      description:
        'The rows of one label as msgpack columns (docs/import-export.md, "The import route"; how `trellis import --url` sends its batches): one transaction, the elements\' ids consecutive from `first_id`. Numbers travel as typed arrays; date-times, bytes, NaN, the infinities and -0.0 as the store keeps them.',
      tags: ['queries'],
      parameters: OPTION_PARAMETERS,
      requestBody: {
        required: true,
        content: {
          'application/msgpack': {
            schema: {
              type: 'object',
              required: ['label', 'element', 'columns'],
              properties: {
                label: { type: 'string' },
                element: { enum: ['node', 'edge'] },
                from: { type: 'array', items: { type: 'integer' }, description: 'edges: the start node of each row' },
                to: { type: 'array', items: { type: 'integer' }, description: 'edges: the end node of each row' },
                columns: {
                  type: 'array',
                  items: {
                    type: 'object',
                    required: ['name', 'kind', 'values'],
                    properties: { name: { type: 'string' }, kind: { enum: ['int', 'float', 'any'] }, values: { type: 'array' } },
                  },
                },
              },
            },
          },
        },
      },
      responses: {
        ...ok('The batch stored: its elements have the ids first_id to first_id + count - 1', {
          type: 'object',
          required: ['element', 'label', 'count', 'first_id'],
          properties: {
            element: { enum: ['node', 'edge'] },
            label: { type: 'string' },
            count: { type: 'integer' },
            first_id: { type: 'integer' },
          },
        }),
        ...errorResponses([...QUERY_CODES]),
      },
    },
  },
  // A writer's snapshots for its replicas and backups (docs/replication.md).
  '/v2/replication/snapshot': {
    post: {
      operationId: 'replicationSnapshot',
      summary: 'Make a snapshot of the database for a replica or a backup (writers only)',
      description:
        'An LMDB copy taken in one read transaction, announced once every commit it holds is flushed; fetched by pieces from /v2/replication/snapshot/piece, checked against /v2/replication/snapshot/digest and kept 15 minutes (docs/replication.md).',
      tags: ['replication'],
      parameters: [{ $ref: '#/components/parameters/x-request-id' }],
      responses: {
        ...ok('The snapshot', {
          type: 'object',
          required: ['id', 'bytes', 'lsn', 'hash', 'epoch'],
          properties: {
            id: { type: 'string' },
            bytes: { type: 'integer' },
            lsn: { type: 'integer' },
            hash: { type: 'string' },
            epoch: { type: 'integer' },
          },
        }),
        ...errorResponses([...ROUTING_CODES, 'internal_error']),
      },
    },
  },
  '/v2/replication/snapshot/piece': {
    post: pieceOperation(
      'replicationSnapshotPiece',
      'Bytes of a snapshot from an offset (at most 8 MiB), so a download that broke resumes (writers only)',
      'id',
    ),
  },
  '/v2/replication/snapshot/digest': {
    post: {
      operationId: 'replicationSnapshotDigest',
      summary: 'The SHA-256 of a snapshot, answered once the writer has computed it (writers only)',
      description:
        'Computed from when the snapshot is announced, while its pieces travel; a replica checks the file it downloaded against it (docs/replication.md).',
      tags: ['replication'],
      parameters: [{ $ref: '#/components/parameters/x-request-id' }],
      requestBody: { required: true, content: json({ type: 'object', required: ['id'], properties: { id: { type: 'string' } } }) },
      responses: {
        ...ok('The digest', { type: 'object', required: ['sha256'], properties: { sha256: { type: 'string' } } }),
        ...errorResponses([...ROUTING_CODES, 'invalid_query_json']),
      },
    },
  },
  '/v2/replication/segment': {
    post: pieceOperation(
      'replicationSegmentPiece',
      'Bytes of a vector segment file from an offset (at most 8 MiB): a replica fetches the files its replicated pointers name (writers only)',
      'name',
    ),
  },
  '/healthz': { get: getOperation('health', 'Liveness: 200 whenever the process is alive', ok('Health', ref('Health'))) },
  '/readyz': {
    get: getOperation('ready', 'Readiness: 200 once the database and workers are ready, else 503', ok('Ready', ref('Health')), [
      'not_ready',
    ]),
  },
  '/metrics': {
    get: getOperation(
      'metrics',
      'Prometheus metrics, text format (README, Observability)',
      ok('The metrics', { type: 'string' }, 'text/plain'),
    ),
  },
  [OPENAPI_PATH]: { get: getOperation('openapi', 'This document', ok('The OpenAPI 3.1 document', { type: 'object' })) },
  '/': {
    get: getOperation(
      'explorer',
      'The explorer: a graph workbench in the browser (docs/explorer.md)',
      ok('The page', { type: 'string' }, 'text/html'),
    ),
  },
  [ASSETS]: {
    get: {
      ...getOperation(
        'explorerAsset',
        "One of the explorer's files, named by its content hash (cached for a year)",
        ok('The file', { type: 'string' }, '*/*'),
      ),
      parameters: [
        { name: 'file', in: 'path', required: true, schema: { type: 'string' } },
        { $ref: '#/components/parameters/x-request-id' },
      ],
    },
  },
  '/mcp/init': {
    post: {
      operationId: 'mcpInit',
      summary: 'Open a connection for the contract\'s agent routes (with `"mcp": true`)',
      tags: ['agents'],
      responses: { ...ok('The connection', ref('McpConnection')), ...errorResponses(ROUTING_CODES) },
    },
  },
  '/mcp': {
    post: {
      operationId: 'mcp',
      summary: 'The Model Context Protocol endpoint (Streamable HTTP, stateless, JSON answers), with `"mcp": true`',
      description:
        'JSON-RPC 2.0 messages of MCP; the tools are the #[mcp] queries and trellis_schema, trellis_indexes, trellis_counts (docs/query-language.md, Agents).',
      tags: ['agents'],
      requestBody: { required: true, content: json({ description: 'a JSON-RPC message or a batch of them' }) },
      responses: {
        ...ok('The JSON-RPC answer', { description: 'a JSON-RPC response or a batch of them' }),
        ...errorResponses(ROUTING_CODES),
      },
    },
  },
};

function namedOperation(q: CompiledQuery): Operation {
  const params = parametersSchema(q.params);
  return {
    operationId: `query_${q.name}`,
    summary: `The named query ${q.name}${q.write ? ' (may write)' : ''}`,
    description:
      'A query of the project (docs/query-language.md), called with a JSON object of its parameters; the answer is shaped by its RETURN.',
    tags: ['named queries'],
    parameters: OPTION_PARAMETERS,
    requestBody: { required: q.params.some((p) => !p.optional), content: json(params) },
    responses: { ...ok('The values of RETURN', ref('NamedQueryResponse')), ...errorResponses([...QUERY_CODES]) },
    'x-trellis-query': { name: q.name, write: q.write, mcp: q.mcp },
  };
}

function mcpCallOperation(q: CompiledQuery): Operation {
  return {
    operationId: `mcp_${q.name}`,
    summary: `The named query ${q.name} through the contract's agent route`,
    tags: ['agents'],
    requestBody: {
      required: true,
      content: json({
        type: 'object',
        properties: { connection_id: { type: 'string' }, data: parametersSchema(q.params) },
        required: ['connection_id', 'data'],
        additionalProperties: false,
      }),
    },
    responses: { ...ok('What POST /<QueryName> answers', ref('NamedQueryResponse')), ...errorResponses([...QUERY_CODES]) },
  };
}

const OPTION_MEANINGS: Readonly<Record<string, string>> = {
  'x-svc-warm': 'read requests only: warm-read execution (runs the read normally); on a write 400 invalid_request_option',
  'x-svc-require-writer': '503 writer_mode_required unless this server is a writer',
  'x-svc-await-durable': 'write requests only: answer after the commit is flushed to disk',
  'x-svc-database-id': 'accepted and ignored by the standalone server (an empty value is 400); the gateway routes by it',
  'x-svc-tenant-id': 'accepted and ignored by the standalone server',
};

function components(): Record<string, unknown> {
  const schemas: Record<string, unknown> = {};
  for (const [name, full] of [...COMPONENTS].sort(([a], [b]) => a.localeCompare(b))) schemas[name] = full();
  schemas.QueryRequest = queryRequestSchema();
  schemas.CypherRequest = CYPHER_REQUEST_SCHEMA;
  schemas.CypherParameter = CYPHER_PARAMETER_SCHEMA;
  Object.assign(schemas, RESPONSE_SCHEMAS);
  schemas.ErrorCode = {
    type: 'string',
    enum: ALL_CODES,
    description: ALL_CODES.map((c) => `${c} (${ERROR_REGISTRY[c].status}): ${ERROR_REGISTRY[c].meaning}`).join('\n'),
  };
  const parameters: Record<string, unknown> = {};
  for (const h of OPTION_HEADERS) {
    parameters[h.canonical] = {
      name: h.canonical,
      in: 'header',
      required: false,
      description: `${OPTION_MEANINGS[h.canonical] ?? ''}. Alias: ${h.alias} (the x-svc-* spelling wins when both are sent).`,
      schema:
        h.value === 'boolean'
          ? { type: 'string', enum: ['true', 'false', '1', '0'], description: 'any case' }
          : { type: 'string', minLength: h.value === 'id' ? 1 : 0 },
    };
  }
  parameters['x-request-id'] = {
    name: 'x-request-id',
    in: 'header',
    required: false,
    description: 'A request id for logs; kept when it is 1 to 128 of A-Z a-z 0-9 . _ : @ / + = -, else a new UUID is made',
    schema: { type: 'string' },
  };
  return {
    schemas,
    parameters,
    headers: {
      RequestId: {
        description: "The request's id: the client's x-request-id when acceptable, else a new UUID",
        schema: { type: 'string' },
      },
    },
  };
}

export interface OpenApiInput {
  readonly version: string;
  /** The router's routes (every one is listed). */
  readonly routes: readonly Route[];
  /** The project's queries, served by the router's fallback at POST /<QueryName>. */
  readonly queries: ReadonlyMap<string, CompiledQuery>;
}

/**
 * The document. A route with no description here is listed with `x-undocumented: true`
 * (test/server/openapi.test.ts fails on it), never left out.
 */
export function openApiDocument(input: OpenApiInput): Record<string, unknown> {
  const paths: Record<string, Record<string, unknown>> = {};
  const mcpCall = /^\/mcp\/([A-Za-z_][A-Za-z0-9_]*)Mcp$/;
  const byName = new Map([...input.queries.values()].map((q) => [q.name, q]));
  for (const route of input.routes) {
    const path = route.path.startsWith('/assets/') ? ASSETS : route.path;
    const method = route.method.toLowerCase();
    const call = mcpCall.exec(path);
    const fixed = FIXED[path]?.[method];
    const q = call === null ? undefined : byName.get(call[1]!);
    const operation =
      fixed ??
      (q !== undefined
        ? mcpCallOperation(q)
        : { summary: `${route.method} ${path}`, 'x-undocumented': true, responses: { default: { description: 'undocumented' } } });
    (paths[path] ??= {})[method] = operation;
  }
  for (const q of input.queries.values()) {
    if (QUERY_NAME_PATH.test(`/${q.name}`)) (paths[`/${q.name}`] ??= {}).post = namedOperation(q);
  }
  const sorted = Object.fromEntries(Object.entries(paths).sort(([a], [b]) => a.localeCompare(b)));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Trellis',
      version: input.version,
      description:
        'A graph database served over HTTP, speaking HelixDB\'s v2 query contract: JSON operation trees at /v2/query, openCypher at /v2/cypher, the project\'s named queries at /<QueryName>. Every error body is {"error", "msg"} with a code of docs/errors.md.',
    },
    servers: [{ url: '/' }],
    tags: [
      { name: 'queries', description: 'Reading and writing the graph' },
      { name: 'named queries', description: "The project's queries (.hx files)" },
      { name: 'agents', description: 'The Model Context Protocol routes' },
      { name: 'operations', description: 'Health, readiness, metrics, this document and the explorer' },
    ],
    paths: sorted,
    components: components(),
  };
}

/** `GET /openapi.json`: the document of `input()`, made on the first request and kept. */
export function openApiRoute(input: () => OpenApiInput): Route {
  let body: string | undefined;
  return {
    method: 'GET',
    path: OPENAPI_PATH,
    handler: (): HttpResponse => {
      body ??= JSON.stringify(openApiDocument(input()));
      return { status: 200, headers: { 'content-type': 'application/json', 'cache-control': 'no-cache' }, body };
    },
  };
}
