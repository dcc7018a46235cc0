/**
 * `POST /<QueryName>` (contract; DECISIONS D15, D16): a named query of the project, called
 * with a JSON object of its parameters. The query was compiled at start-up (src/hql) and
 * every thread that answers requests holds it (the read workers, the main thread's inline
 * path; the writer gets the batch with a write). A call travels as the query's number and
 * the body's bytes, unread here: the thread that runs it checks the parameters, runs the
 * batch and writes the response in the named-query shape (database.ts answerNamed).
 */
import { GraphError, toErrorBody } from '../core/errors.js';
import { JsonSyntaxError, parseJsonBytes } from '../core/json.js';
import { encodeValue } from '../exec/encode.js';
import type { Value } from '../core/value.js';
import type { CompiledQuery } from '../hql/compile.js';
import { countsQuery, type CountsQuery } from '../hql/describe.js';
import { SCHEMA_TOOLS, type Project } from '../hql/project.js';
import { errorBodyResponse, errorResponse } from './http-errors.js';
import { parseRequestOptions } from './headers.js';
import type { HttpRequest, HttpResponse } from './http-types.js';
import type { NamedRouteFallback } from './routes.js';
import { utf8Text, type QueryService } from './service.js';
import { clip } from '../core/clip.js';
import { embedTexts, withScalarLoops } from '../hql/call.js';
import { sourcedMessage } from '../hql/statement-source.js';
import { checkParameters } from '../hql/params.js';
import { openAiEmbedder, type Embedder } from './embedding.js';

const JSON_TYPE = { 'content-type': 'application/json' };

/**
 * The queries the threads are started with, numbered: the project's, then, when MCP is on,
 * the MCP endpoint's counts query (a compiled query like the others).
 */
export interface NamedQueries {
  readonly list: readonly CompiledQuery[];
  /** The project's queries by name (not the counts query: no route reaches it). */
  readonly byName: ReadonlyMap<string, number>;
  readonly counts: { readonly id: number; readonly query: CountsQuery } | null;
  /** The project's embedding provider (Embed()), if it configures one. */
  readonly embedder: Embedder | null;
}

export function namedQueries(project: Project | undefined): NamedQueries {
  const list = [...(project?.queries.values() ?? [])];
  const byName = new Map(list.map((q, i) => [q.name, i]));
  const made = project?.config.mcp ? countsQuery(project.schema, SCHEMA_TOOLS.counts) : null;
  const counts = made === null || made === undefined ? null : { id: list.push(made.query) - 1, query: made };
  const embedding = project?.config.embedding;
  return { list, byName, counts, embedder: embedding === undefined ? null : openAiEmbedder(embedding) };
}

/**
 * A call's body as the thread that runs it takes it: as it is, or, for a query that
 * embeds texts, `{"params", "vectors"}` with the vectors made here (database.ts answerNamed).
 */
async function callBody(queries: NamedQueries, id: number, body: Uint8Array): Promise<Uint8Array> {
  const query = queries.list[id];
  if (query === undefined || query.needs.embeds.length === 0) return body;
  if (queries.embedder === null)
    throw new GraphError('embedding_provider_error', `query ${query.name} uses Embed() and the project has no embedding provider`);
  const params = checkParameters(query.params, parseBody(body));
  // A text in a FOR over scalars is a field of that loop's hidden objects: walk those.
  const texts = embedTexts(query, withScalarLoops(query, params));
  const vectors = texts.length === 0 ? [] : await queries.embedder.embed(texts, query.model);
  return parameterBytes({ params, vectors });
}

/** An error body whose msg names the query's statement rather than the batch path (statement-source.ts). */
function sourcedErrorBody(query: CompiledQuery | undefined, body: string | Uint8Array): string | Uint8Array {
  if (query === undefined) return body;
  const error = JSON.parse(utf8Text(body)) as { error: string; msg: string };
  const msg = sourcedMessage(query, error.msg);
  return msg === error.msg ? body : JSON.stringify({ error: error.error, msg });
}

/** An error of a call, with its status on this route (D16: an element addressed by id that does not exist is 404). */
function namedError(err: unknown): HttpResponse {
  return errorBodyResponse(toErrorBody(err), undefined, 'named_query');
}

export function parseBody(body: Uint8Array): unknown {
  if (body.length === 0) return {};
  try {
    return parseJsonBytes(body);
  } catch (err) {
    if (err instanceof JsonSyntaxError) throw new GraphError('invalid_query_json', `the body is not valid JSON: ${err.message}`);
    throw err;
  }
}

/**
 * A call's parameters as the bytes a thread reads: an MCP call's `data` or arguments (as
 * src/core/json.ts read them), printed exactly: integers with every digit, floats as floats.
 */
export function parameterBytes(values: unknown): Uint8Array {
  return Buffer.from(encodeValue(values as Value));
}

/**
 * Calls named query number `id` with `body`, the JSON object of its parameters, and the
 * request's option headers; errors are answered, never thrown.
 */
export async function runNamedQuery(
  service: QueryService,
  queries: NamedQueries,
  id: number,
  req: HttpRequest,
  body: Uint8Array,
): Promise<HttpResponse> {
  try {
    const options = parseRequestOptions(req.headers, req.repeated);
    if (service.health().index_runtime !== 'ready') return errorResponse('not_ready', 'the database is still opening; retry shortly');
    if (service.named === undefined) throw new GraphError('internal_error', 'this service does not serve named queries');
    const reply = await service.named(id, await callBody(queries, id, body), options);
    const answered = reply.status < 400 ? reply.body : sourcedErrorBody(queries.list[id], reply.body);
    return { status: reply.status, headers: JSON_TYPE, body: answered };
  } catch (err) {
    return namedError(err);
  }
}

/** The router's fallback serving the project's queries. */
export function namedQueryRoutes(service: QueryService, project: Project | undefined, queries: NamedQueries): NamedRouteFallback {
  return {
    method: 'POST',
    has: (name) => queries.byName.has(name),
    handler: (req, name) => {
      const id = queries.byName.get(name);
      if (id === undefined) {
        const known =
          project === undefined
            ? 'the server has no project (start it with --project DIR)'
            : queries.byName.size === 0
              ? 'the project has no queries'
              : `the project's queries: ${[...queries.byName.keys()].sort().slice(0, 20).join(', ')}`;
        return errorResponse('query_not_found', `no query named "${clip(name)}"; ${known}`);
      }
      return runNamedQuery(service, queries, id, req, req.body);
    },
  };
}
