/**
 * `GET /openapi.json` through the gateway: the database server's own document
 * (src/server/openapi.ts, fetched from the database's servers like a read, so it lists
 * that database's named queries), restated for the gateway: its key scheme (`Authorization:
 * Bearer`), the database header in shared mode, the gateway's own refusals (docs/gateway.md,
 * Statuses), and only the routes the gateway serves. It needs a key with any grant on the
 * database, and costs no token (it runs no query).
 */
import { ERROR_REGISTRY, type ErrorCode } from '../core/errors.js';
import type { GatewayMode } from './config.js';
import { GET_ROUTES, routeOf } from './handler.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

/** Paths the gateway answers without a key. */
const PUBLIC = new Set(['/healthz', '/readyz', '/', '/assets/{file}']);
/** Keyed GET paths that name no database: the gateway's own metrics. */
const NO_DATABASE = new Set(['/metrics']);

/** Refusals of the head checks (docs/gateway.md, order of checks 2 to 5), by mode. */
function headCodes(mode: GatewayMode): ErrorCode[] {
  return [
    'invalid_request',
    'invalid_request_option',
    'unauthorized',
    'forbidden',
    mode === 'shared' ? 'database_id_required' : 'database_id_not_allowed',
  ];
}
/** What a request that spends a token can meet besides (steps 5 to 8). */
const TOKEN_CODES: ErrorCode[] = [
  'payload_too_large',
  'tenant_disabled',
  'rate_limited',
  'rate_limit_unavailable',
  'backend_unavailable',
  'query_timeout',
];

/** Adds `codes` to an operation's error responses, merging with the codes it already lists under each status. */
function addErrors(op: Json, codes: readonly ErrorCode[]): void {
  op.responses ??= {};
  for (const code of codes) {
    const status = String(ERROR_REGISTRY[code].status);
    const response = (op.responses[status] ??= {
      description: 'A refusal (docs/gateway.md, Statuses).',
      content: {
        'application/json': {
          schema: {
            allOf: [{ $ref: '#/components/schemas/Error' }, { type: 'object', properties: { error: { type: 'string', enum: [] } } }],
          },
        },
      },
    }) as Json;
    const enumList = response.content?.['application/json']?.schema?.allOf?.[1]?.properties?.error?.enum as string[] | undefined;
    if (enumList !== undefined && !enumList.includes(code)) enumList.push(code);
    if (code === 'rate_limited') response.headers = { ...response.headers, 'retry-after': { $ref: '#/components/headers/RetryAfter' } };
  }
}

/** Whether the gateway serves `method path` (for the explorer's files: when it serves them). */
function served(path: string, method: string, explorer: boolean): boolean {
  if (method === 'post') return routeOf(path) !== undefined && !GET_ROUTES.has(path);
  if (method !== 'get') return false;
  if (path === '/' || path === '/assets/{file}') return explorer;
  return GET_ROUTES.has(path) || path === '/openapi.json';
}

/** The server's document as the gateway serves it. */
export function gatewayDocument(server: Json, mode: GatewayMode, explorer: boolean): Json {
  const doc = structuredClone(server) as Json;
  const paths: Json = {};
  for (const [path, item] of Object.entries(doc.paths as Json)) {
    for (const [method, op] of Object.entries(item as Json)) {
      if (!served(path, method, explorer)) continue;
      const operation = op as Json;
      if (PUBLIC.has(path)) {
        operation.security = [];
      } else {
        const params = ((operation.parameters ?? []) as Json[]).filter(
          // In cluster mode a database header is refused; in shared mode the required one below replaces the optional one.
          (p) => !/x-svc-(database|tenant)-id$/.test(String(p.$ref ?? '')),
        );
        if (mode === 'shared' && !NO_DATABASE.has(path)) params.unshift({ $ref: '#/components/parameters/gateway-database-id' });
        operation.parameters = params;
        addErrors(operation, headCodes(mode));
        if (method === 'post' && path !== '/mcp/init') addErrors(operation, TOKEN_CODES);
      }
      (paths[path] ??= {})[method] = operation;
    }
  }
  doc.paths = paths;
  doc.info = {
    ...doc.info,
    description: `${String(doc.info?.description ?? '')} Served through the managed gateway (docs/gateway.md, ${mode} mode): send "Authorization: Bearer <API key>"${mode === 'shared' ? ' and X-Svc-Database-Id' : ''}; every request but /mcp/init spends one token of the database's bucket.`,
  };
  doc.security = [{ apiKey: [] }];
  doc.components.securitySchemes = {
    apiKey: {
      type: 'http',
      scheme: 'bearer',
      description: 'An API key of the gateway; the gateway keeps only its SHA-256 digest (`trellis gateway key` makes one).',
    },
  };
  doc.components.parameters['gateway-database-id'] = {
    name: 'X-Svc-Database-Id',
    in: 'header',
    required: true,
    description:
      'The database to use (shared mode). Also accepted as X-Svc-Tenant-Id, X-Helix-Database-Id or X-Helix-Tenant-Id; two that differ are 400 invalid_request.',
    schema: { type: 'string', minLength: 1 },
  };
  doc.components.headers.RetryAfter = {
    description: 'Whole seconds until the bucket holds a token again',
    schema: { type: 'integer', minimum: 1 },
  };
  return doc;
}
