/**
 * The route table (DECISIONS D1): exact paths first, then the named-query fallback
 * `POST /<QueryName>`. Unknown paths are 404 and known paths with another method 405 with
 * an `Allow` header, both in the error envelope (the reference answers them with empty
 * bodies; D1 asks for the envelope).
 *
 * HEAD runs the GET handler; the transport sends the head of that response without its body.
 */
import type { Handler, HttpRequest, HttpResponse } from './http-types.js';
import { errorResponse } from './http-errors.js';
import { clip } from '../core/clip.js';

export type RouteMethod = 'GET' | 'POST';

export interface Route {
  method: RouteMethod;
  path: string;
  handler: Handler;
}

export interface NamedRouteFallback {
  method: 'POST';
  handler: (req: HttpRequest, name: string) => Promise<HttpResponse> | HttpResponse;
  /** Whether a query of this name exists: another method on it is 405, on an unknown name 404. */
  has(name: string): boolean;
}

/** A single path segment that can name a query. */
export const QUERY_NAME_PATH = /^\/([A-Za-z_][A-Za-z0-9_]*)$/;

export function notFound(req: Pick<HttpRequest, 'method' | 'path'>): HttpResponse {
  return errorResponse('not_found', `no route for ${clip(req.method)} ${clip(req.path)}`);
}

/** 405 with the `Allow` header (`allow`: the path's methods, as the header lists them). */
export function methodNotAllowed(req: Pick<HttpRequest, 'method' | 'path'>, allow: string): HttpResponse {
  return errorResponse('method_not_allowed', `${clip(req.method)} is not allowed for ${clip(req.path)}; allowed: ${allow}`, { allow });
}

interface PathEntry {
  get?: Handler;
  post?: Handler;
  allow: string;
}

function allowOf(entry: PathEntry): string {
  const methods: string[] = [];
  if (entry.get !== undefined) methods.push('GET', 'HEAD');
  if (entry.post !== undefined) methods.push('POST');
  return methods.join(', ');
}

/** The route label of a path no route serves (metrics and logs never carry the raw path: it is the client's to choose). */
const OTHER_ROUTE = 'other';
/** The route label of every path the named-query fallback serves. */
const NAMED_QUERY_ROUTE = '/<QueryName>';

/**
 * The route of a path, as metrics label it: a route's own path, `/<QueryName>` for a query
 * the fallback serves, `other` for the rest (unknown query names too); the method does not matter (a 405 on
 * `/v2/query` is a `/v2/query` answer). Made from the same table as the router, so the
 * two cannot disagree.
 */
export function routeLabels(routes: readonly Route[], fallback?: NamedRouteFallback): (path: string) => string {
  const known = new Set(routes.map((r) => r.path));
  return (path) => {
    if (known.has(path)) return path;
    const name = fallback === undefined ? null : QUERY_NAME_PATH.exec(path)?.[1];
    return name != null && fallback!.has(name) ? NAMED_QUERY_ROUTE : OTHER_ROUTE;
  };
}

export function createRouter(routes: readonly Route[], fallback?: NamedRouteFallback): Handler {
  const table = new Map<string, PathEntry>();
  for (const route of routes) {
    let entry = table.get(route.path);
    if (entry === undefined) {
      entry = { allow: '' };
      table.set(route.path, entry);
    }
    const key = route.method === 'GET' ? 'get' : 'post';
    if (entry[key] !== undefined) throw new Error(`duplicate route ${route.method} ${route.path}`);
    entry[key] = route.handler;
  }
  for (const entry of table.values()) entry.allow = allowOf(entry);

  return (req) => {
    const entry = table.get(req.path);
    if (entry !== undefined) {
      const handler = req.method === 'POST' ? entry.post : req.method === 'GET' || req.method === 'HEAD' ? entry.get : undefined;
      return handler !== undefined ? handler(req) : methodNotAllowed(req, entry.allow);
    }
    if (fallback !== undefined) {
      const match = QUERY_NAME_PATH.exec(req.path);
      if (match !== null && req.method === 'POST') return fallback.handler(req, match[1]!);
      if (match !== null && fallback.has(match[1]!)) return methodNotAllowed(req, 'POST');
    }
    return notFound(req);
  };
}
