/**
 * The standard Model Context Protocol endpoint (issue 11; docs/query-language.md,
 * "Agents"): with `"mcp": true`, `POST /mcp` speaks MCP's Streamable HTTP transport, so
 * off-the-shelf agent clients can call the project's `#[mcp]` queries as tools, and read
 * the schema through three read-only tools (SCHEMA_TOOLS). The SDK's `Server` does the
 * JSON-RPC work (initialize, tools/list, tools/call, errors) over its web-standard
 * transport; this file adapts our request to a `Request` and the `Response` back.
 *
 * Stateless: every HTTP request gets its own Server and transport, in JSON-response mode,
 * and nothing outlives it (no sessions), so any server of a database can answer any
 * request. GET (an SSE stream) and DELETE (ending a session) are 405: there are no streams
 * and no sessions to end.
 *
 * A tool call runs exactly as `POST /<QueryName>` (named-queries.ts runNamedQuery, with
 * this request's headers). Its arguments keep this server's exact JSON numbers: the body is
 * read by src/core/json.ts, as the named route reads it, and only the JSON-RPC envelope is
 * turned into what JSON.parse would give the SDK. A query's error is a tool result with
 * `isError` and the `{"error", "msg"}` body as its text; an unknown tool is a JSON-RPC error.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import {
  CallToolRequestSchema,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  type CallToolResult,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { clip } from '../core/clip.js';
import { toErrorBody } from '../core/errors.js';
import { JsonSyntaxError, parseJson, parseJsonBytes } from '../core/json.js';
import { isSafeI64 } from '../core/value.js';
import { isObject } from '../core/json.js';
import { describeIndexes, describeSchema } from '../hql/describe.js';
import type { CompiledQuery } from '../hql/compile.js';
import { parametersSchema } from '../hql/json-schema.js';
import { checkParameters } from '../hql/params.js';
import { SCHEMA_TOOLS, type Project } from '../hql/project.js';
import { typeText } from '../hql/types.js';
import type { HttpRequest, HttpResponse } from './http-types.js';
import { parameterBytes, runNamedQuery, type NamedQueries } from './named-queries.js';
import type { Route } from './routes.js';
import { utf8Text, type QueryService } from './service.js';
import { VERSION } from './version.js';

const MCP_PATH = '/mcp';

/** The request headers the transport reads; the others stay with our request (options for the query). */
const TRANSPORT_HEADERS = ['accept', 'content-type', 'mcp-protocol-version', 'mcp-session-id'];

interface ToolEntry {
  readonly tool: Tool;
  call(req: HttpRequest, args: Record<string, unknown>): Promise<CallToolResult>;
}

/** The `POST /mcp` route of `project`, or none when it has MCP off. */
export function mcpEndpointRoutes(service: QueryService, project: Project | undefined, queries: NamedQueries): Route[] {
  if (project === undefined || !project.config.mcp) return [];
  const tools = toolEntries(service, project, queries);
  const list = [...tools.values()].map((t) => t.tool);
  // Used by the SDK only to check answers to elicitation requests, which this server never sends.
  const validator = new AjvJsonSchemaValidator();
  const instructions =
    `The tools are the #[mcp] queries of a Trellis graph database project (each answers the JSON body of POST /<QueryName>), ` +
    `and ${SCHEMA_TOOLS.schema}, ${SCHEMA_TOOLS.indexes} and ${SCHEMA_TOOLS.counts}, which read the schema, its indexed fields and the number of elements of each type.`;

  const handler = async (req: HttpRequest): Promise<HttpResponse> => {
    let parsedBody: unknown;
    try {
      parsedBody = forSdk(parseJsonBytes(req.body));
    } catch (err) {
      if (!(err instanceof JsonSyntaxError)) throw err;
      return {
        status: 400,
        body: JSON.stringify({ jsonrpc: '2.0', error: { code: ErrorCode.ParseError, message: `Parse error: ${err.message}` }, id: null }),
      };
    }
    const server = new Server(
      { name: 'trellis', version: VERSION },
      { capabilities: { tools: {} }, instructions, jsonSchemaValidator: validator },
    );
    server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: list }));
    server.setRequestHandler(CallToolRequestSchema, (request) => {
      const entry = tools.get(request.params.name);
      if (entry === undefined) {
        throw new McpError(
          ErrorCode.InvalidParams,
          `no tool named "${clip(request.params.name)}"; the tools: ${[...tools.keys()].slice(0, 20).join(', ')}`,
        );
      }
      return entry.call(req, request.params.arguments ?? {});
    });
    const transport = new WebStandardStreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    try {
      await server.connect(transport);
      const response = await transport.handleRequest(webRequest(req), { parsedBody });
      const headers: Record<string, string> = {};
      response.headers.forEach((value, name) => (headers[name] = value));
      return { status: response.status, headers, body: await response.text() };
    } finally {
      await server.close();
    }
  };
  return [{ method: 'POST', path: MCP_PATH, handler }];
}

/** The tools by name: each #[mcp] query, then the schema tools. */
function toolEntries(service: QueryService, project: Project, queries: NamedQueries): Map<string, ToolEntry> {
  const tools = new Map<string, ToolEntry>();
  for (const [name, id] of queries.byName) {
    const q = queries.list[id]!;
    if (!q.mcp) continue;
    tools.set(name, {
      tool: queryTool(q),
      call: async (req, args) => toolResult(await runNamedQuery(service, queries, id, req, parameterBytes(args))),
    });
  }
  const noArguments = { type: 'object' as const, properties: {}, additionalProperties: false };
  const readOnly = { readOnlyHint: true, openWorldHint: false };
  /** A schema tool's answer: no arguments taken (checked as a query without parameters is), then `answer()`. */
  const schemaTool = async (args: unknown, answer: () => Promise<CallToolResult> | CallToolResult): Promise<CallToolResult> => {
    try {
      checkParameters([], args);
    } catch (err) {
      return errorResult(err);
    }
    return answer();
  };
  const schema = describeSchema(project.schema);
  tools.set(SCHEMA_TOOLS.schema, {
    tool: {
      name: SCHEMA_TOOLS.schema,
      description:
        'The schema of the database: node types and their fields, edge types with the node types they go from and to and their properties, ' +
        'vector types, each field with its type (String, Boolean, I8..I64, U8..U128, F32, F64, Date, ID, [T]), INDEX marks and defaults. ' +
        'Every node also has id and label, every edge id, label, from_node and to_node.',
      inputSchema: noArguments,
      annotations: readOnly,
    },
    call: (_req, args) => schemaTool(args, () => jsonResult(schema)),
  });
  const indexes = { indexes: describeIndexes(project.schema) };
  tools.set(SCHEMA_TOOLS.indexes, {
    tool: {
      name: SCHEMA_TOOLS.indexes,
      description:
        'The fields the schema declares INDEX or UNIQUE INDEX: a query may look a node up by such a field. ' +
        'The declarations only, for now: the database does not build secondary, text or vector indexes yet, so a lookup reads every node of the type, ' +
        'and UNIQUE is not enforced.',
      inputSchema: noArguments,
      annotations: readOnly,
    },
    call: (_req, args) => schemaTool(args, () => jsonResult(indexes)),
  });
  const counts = queries.counts;
  tools.set(SCHEMA_TOOLS.counts, {
    tool: {
      name: SCHEMA_TOOLS.counts,
      description:
        'The number of nodes of each node type and of edges of each edge type, now: {"nodes": {"<Type>": n, ...}, "edges": {"<Type>": n, ...}}. ' +
        'Vector types are not counted (vectors are not stored yet).',
      inputSchema: noArguments,
      annotations: readOnly,
    },
    call: (req, args) =>
      schemaTool(args, async () => {
        const out = { nodes: {} as Record<string, number>, edges: {} as Record<string, number> };
        if (counts === null) return jsonResult(out);
        const response = await runNamedQuery(service, queries, counts.id, req, parameterBytes({}));
        if (response.status !== 200) return toolResult(response);
        const values = JSON.parse(bodyText(response)) as Record<string, number>;
        for (const { key, kind, type } of counts.query.keys) out[kind][type] = values[key]!;
        return jsonResult(out);
      }),
  });
  return tools;
}

function queryTool(q: CompiledQuery): Tool {
  const { name, params, write } = q;
  const signature = `${name}(${params.map((p) => `${p.name.text}${p.optional ? '?' : ''}: ${typeText(p.type)}`).join(', ')})`;
  return {
    name,
    description:
      `The query ${signature} of the project: it ${write ? 'writes (all of it or nothing)' : 'reads only'}, ` +
      `and answers the JSON body that POST /${name} answers for these parameters.`,
    inputSchema: parametersSchema(params) as Tool['inputSchema'],
    annotations: { readOnlyHint: !write, openWorldHint: false },
  };
}

const bodyText = (response: HttpResponse): string => utf8Text(response.body);

/** A named query's answer as a tool result: the body as text, and as structured content when it is an object. */
function toolResult(response: HttpResponse): CallToolResult {
  const text = bodyText(response);
  if (response.status !== 200) return { content: [{ type: 'text', text }], isError: true };
  const value = parseJson(text);
  const structured = isObject(value) && exactInDoubles(value) ? (plain(value) as Record<string, unknown>) : undefined;
  return { content: [{ type: 'text', text }], ...(structured === undefined ? {} : { structuredContent: structured }) };
}

function jsonResult(value: object): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value as Record<string, unknown> };
}

function errorResult(err: unknown): CallToolResult {
  return toolResult({ status: 400, body: JSON.stringify(toErrorBody(err)) });
}

/** The request the SDK's transport reads: the method and the headers it checks (a header a `Headers` cannot hold is left out). */
function webRequest(req: HttpRequest): Request {
  const headers = new Headers();
  for (const name of TRANSPORT_HEADERS) {
    const value = req.headers.get(name);
    if (value === undefined) continue;
    try {
      headers.set(name, value);
    } catch {
      // Not a valid header value: as if it were not sent, which the transport answers.
    }
  }
  return new Request(`http://localhost${MCP_PATH}`, { method: req.method, headers });
}

/**
 * A JSON-RPC message (or batch) from json.ts as JSON.parse would give it to the SDK
 * (integers as numbers), except that a tools/call's arguments stay as json.ts read them,
 * for runNamedQuery (the SDK passes them through unread).
 */
function forSdk(message: unknown): unknown {
  if (Array.isArray(message)) return message.map(forSdk);
  if (!isObject(message) || message.method !== 'tools/call' || !isObject(message.params) || !('arguments' in message.params))
    return plain(message);
  const { params: _params, ...envelope } = message;
  const { arguments: args, ...params } = message.params;
  return { ...(plain(envelope) as object), params: { ...(plain(params) as object), arguments: args } };
}

/** `v` with every bigint a number. */
function plain(v: unknown): unknown {
  if (typeof v === 'bigint') return Number(v);
  if (Array.isArray(v)) return v.map(plain);
  if (isObject(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]));
  return v;
}

/** Whether every integer in `v` is a number a double holds exactly. */
function exactInDoubles(v: unknown): boolean {
  if (typeof v === 'bigint') return isSafeI64(v);
  if (Array.isArray(v)) return v.every(exactInDoubles);
  if (isObject(v)) return Object.values(v).every(exactInDoubles);
  return true;
}
