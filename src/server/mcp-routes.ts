/**
 * The contract's agent-protocol routes (DECISIONS D18), served when the project's
 * trellis.json says `"mcp": true`: `POST /mcp/init` makes a connection, and
 * `POST /mcp/<QueryName>Mcp` with `{connection_id, data}` runs an `#[mcp]` query with
 * `data` as its parameters and answers what `POST /<QueryName>` answers. With MCP off
 * these paths are not routes at all (404).
 *
 * Connections live in this server's memory (at most MAX_CONNECTIONS, the oldest dropped
 * first, so memory stays flat): a connection made on one server is unknown to another
 * server of the same database and to this one after a restart. Connections shared between
 * servers are still to come (issue 11); the standard MCP endpoint, which needs none, is
 * mcp-endpoint.ts.
 */
import { randomUUID } from 'node:crypto';
import { GraphError, toErrorBody } from '../core/errors.js';
import type { Project } from '../hql/project.js';
import { errorBodyResponse } from './http-errors.js';
import type { HttpRequest } from './http-types.js';
import { parameterBytes, parseBody, runNamedQuery, type NamedQueries } from './named-queries.js';
import type { Route } from './routes.js';
import type { QueryService } from './service.js';

const MAX_CONNECTIONS = 10_000;

/** The MCP routes of `project`, or none when it has MCP off. */
export function mcpRoutes(service: QueryService, project: Project | undefined, queries: NamedQueries): Route[] {
  if (project === undefined || !project.config.mcp) return [];
  const connections = new Set<string>();
  const routes: Route[] = [
    {
      method: 'POST',
      path: '/mcp/init',
      handler: () => {
        const id = randomUUID();
        connections.add(id);
        // A Set iterates in insertion order: the first entry is the oldest connection.
        if (connections.size > MAX_CONNECTIONS) connections.delete(connections.values().next().value!);
        return { status: 200, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ connection_id: id }) };
      },
    },
  ];
  for (const [name, id] of queries.byName) {
    if (!queries.list[id]!.mcp) continue;
    routes.push({
      method: 'POST',
      path: `/mcp/${name}Mcp`,
      handler: (req: HttpRequest) => {
        let data: unknown;
        try {
          data = mcpData(parseBody(req.body), connections);
        } catch (err) {
          return errorBodyResponse(toErrorBody(err));
        }
        return runNamedQuery(service, queries, id, req, parameterBytes(data));
      },
    });
  }
  return routes;
}

/** The `data` of an MCP call, after checking its shape and its connection. */
function mcpData(body: unknown, connections: ReadonlySet<string>): unknown {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new GraphError('invalid_query_json', 'the body must be {"connection_id": "...", "data": {...}}');
  }
  const extra = Object.keys(body).find((k) => k !== 'connection_id' && k !== 'data');
  if (extra !== undefined)
    throw new GraphError('invalid_query_json', `unknown key "${extra}"; the body is {"connection_id": "...", "data": {...}}`);
  const { connection_id: id, data } = body as { connection_id?: unknown; data?: unknown };
  if (typeof id !== 'string') throw new GraphError('invalid_connection', 'connection_id is missing; get one from POST /mcp/init');
  if (!connections.has(id))
    throw new GraphError('invalid_connection', `connection "${id.slice(0, 64)}" is not known here; get one from POST /mcp/init`);
  if (data === undefined) throw new GraphError('invalid_query_json', '"data" is missing: the query\'s parameters, {} when there are none');
  return data;
}
