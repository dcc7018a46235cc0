/**
 * What the gateway checks from the head of a request, before it reads the body or spends
 * a token (contract, Authentication rules 2 and 3; DECISIONS D19), in this order:
 *  1. `Authorization: Bearer <key>`: missing or malformed 400 invalid_request, a key not
 *     in the configuration 401 unauthorized;
 *  2. the option headers (X-Svc-Warm, -Require-Writer, -Await-Durable and their X-Helix-*
 *     aliases), as the server parses them: 400 invalid_request_option;
 *  3. the database: in shared mode from X-Svc-Database-Id, its legacy alias
 *     X-Svc-Tenant-Id, or the HelixDB SDK's X-Helix-Database-Id / X-Helix-Tenant-Id
 *     (missing 400 database_id_required; two that differ 400 invalid_request); in cluster
 *     mode none of them may be sent (400 database_id_not_allowed);
 *  4. the key's grant on that database: none 403 forbidden. A database that does not
 *     exist is answered the same way, so a key cannot probe for other databases.
 * The body's size (413), its outer JSON and the request type's permission come next, in
 * the handler; then the token.
 */
import { clip } from '../core/clip.js';
import { GraphError } from '../core/errors.js';
import type { RequestOptions } from '../core/request-options.js';
import { REQUEST_ID_HEADER, requestIdOf } from '../observe/log.js';
import { parseRequestOptions } from '../server/headers.js';
import type { HttpRequest, HttpResponse } from '../server/http-types.js';
import { errorResponse } from '../server/http-errors.js';
import type { DatabaseConfig, GatewayMode, KeyConfig, Permission } from './config.js';
import { bearerToken, type KeyRing } from './keys.js';

export interface Admitted {
  requestId: string;
  /** performance.now() when the head was read. */
  started: number;
  key: KeyConfig;
  database: DatabaseConfig;
  grants: ReadonlySet<Permission>;
  options: RequestOptions;
}

export class Admission {
  constructor(
    private readonly mode: GatewayMode,
    private readonly keys: KeyRing,
    private readonly databases: ReadonlyMap<string, DatabaseConfig>,
  ) {}

  /** The configured key of `Authorization: Bearer <key>`, or the 400/401 answer (also GET /metrics). */
  key(req: HttpRequest): KeyConfig | HttpResponse {
    const token = bearerToken(req.headers.get('authorization'));
    if (token === undefined) {
      const what = req.headers.has('authorization') ? 'is malformed' : 'is missing';
      return errorResponse('invalid_request', `the Authorization header ${what}; send "Authorization: Bearer <API key>"`);
    }
    return this.keys.find(token) ?? errorResponse('unauthorized', 'the API key is not valid');
  }

  /** The request's id, key and database, or the error answer. */
  check(req: HttpRequest): Admitted | HttpResponse {
    const started = performance.now();
    const requestId = req.id ?? requestIdOf(req.headers.get(REQUEST_ID_HEADER));
    const key = this.key(req);
    if ('status' in key) return key;
    let options: RequestOptions;
    try {
      options = parseRequestOptions(req.headers, req.repeated);
    } catch (err) {
      if (err instanceof GraphError) return errorResponse(err.code, err.msg);
      throw err;
    }
    const database = this.databaseOf(req, options);
    if (!('id' in database)) return database;
    const grants = key.databases.get(database.id);
    if (grants === undefined || grants.size === 0) {
      return errorResponse('forbidden', `this API key has no access to database "${clip(database.id)}"`);
    }
    return { requestId, started, key, database, grants, options };
  }

  private databaseOf(req: HttpRequest, options: RequestOptions): DatabaseConfig | HttpResponse {
    if (this.mode === 'cluster') {
      if (hasIdHeader(req)) {
        return errorResponse(
          'database_id_not_allowed',
          'X-Svc-Database-Id and X-Svc-Tenant-Id are not allowed by this gateway: it serves one database (cluster mode)',
        );
      }
      return this.databases.values().next().value!;
    }
    const { databaseId, tenantId } = options;
    if (databaseId !== undefined && tenantId !== undefined && databaseId !== tenantId) {
      return errorResponse(
        'invalid_request',
        `the database id header says "${clip(databaseId)}" and the tenant id header "${clip(tenantId)}"; send one, or the same id in both`,
      );
    }
    const id = databaseId ?? tenantId;
    if (id === undefined) {
      return errorResponse('database_id_required', 'X-Svc-Database-Id is required by this gateway (shared mode): name the database');
    }
    // An unknown database is answered like one the key may not use: no probing.
    return this.databases.get(id) ?? errorResponse('forbidden', `this API key has no access to database "${clip(id)}"`);
  }
}

const ID_HEADERS = ['x-svc-database-id', 'x-helix-database-id', 'x-svc-tenant-id', 'x-helix-tenant-id'];

/** Any database header at all, even an empty one (the parsed options drop an empty tenant id). */
function hasIdHeader(req: HttpRequest): boolean {
  return ID_HEADERS.some((h) => req.headers.has(h));
}
