/**
 * Request options carried in headers (DECISIONS D2). The contract's `x-svc-*` names are
 * canonical; the reference's `x-helix-*` names are aliases so HelixDB SDKs work unchanged.
 * When both spellings of one option are sent, the canonical header wins and the alias is
 * ignored, even if the alias alone would have been invalid.
 *
 * The tenant id is never an error (the reference uses it for attribution only): an empty
 * one is treated as absent. An empty database id is an error (the contract says min length 1).
 */
import { GraphError } from '../errors.js';

export interface RequestOptions {
  warm: boolean;
  requireWriter: boolean;
  /** Tri-state: absent, true or false; only `true` has an effect (and only on writes). */
  awaitDurable: boolean | undefined;
  databaseId: string | undefined;
  tenantId: string | undefined;
}

export type RequestType = 'read' | 'write';

interface HeaderName {
  readonly canonical: string;
  readonly alias: string;
  /** How messages spell it (the contract's casing). */
  readonly display: string;
}

function header(suffix: string, display: string): HeaderName {
  return { canonical: `x-svc-${suffix}`, alias: `x-helix-${suffix}`, display };
}

const WARM = header('warm', 'X-Svc-Warm');
const REQUIRE_WRITER = header('require-writer', 'X-Svc-Require-Writer');
const AWAIT_DURABLE = header('await-durable', 'X-Svc-Await-Durable');
const DATABASE_ID = header('database-id', 'X-Svc-Database-Id');
const TENANT_ID = header('tenant-id', 'X-Svc-Tenant-Id');

function lookup(headers: ReadonlyMap<string, string>, name: HeaderName): string | undefined {
  return headers.get(name.canonical) ?? headers.get(name.alias);
}

/** The spelling the client sent, for messages. */
function sentName(headers: ReadonlyMap<string, string>, name: HeaderName): string {
  return headers.has(name.canonical) ? name.canonical : name.alias;
}

function parseBoolean(headers: ReadonlyMap<string, string>, name: HeaderName): boolean | undefined {
  const raw = lookup(headers, name);
  if (raw === undefined) return undefined;
  switch (raw.trim().toLowerCase()) {
    case 'true':
    case '1':
      return true;
    case 'false':
    case '0':
      return false;
    default:
      throw new GraphError('invalid_request_option', `${sentName(headers, name)} must be true, false, 1 or 0, got "${raw}"`);
  }
}

function parseId(headers: ReadonlyMap<string, string>, name: HeaderName): string | undefined {
  const raw = lookup(headers, name);
  if (raw === undefined) return undefined;
  const id = raw.trim();
  if (id === '') throw new GraphError('invalid_request_option', `${sentName(headers, name)} must not be empty`);
  return id;
}

export function parseRequestOptions(headers: ReadonlyMap<string, string>): RequestOptions {
  return {
    warm: parseBoolean(headers, WARM) ?? false,
    requireWriter: parseBoolean(headers, REQUIRE_WRITER) ?? false,
    awaitDurable: parseBoolean(headers, AWAIT_DURABLE),
    databaseId: parseId(headers, DATABASE_ID),
    tenantId: lookup(headers, TENANT_ID)?.trim() || undefined,
  };
}

/** Options that only make sense for one request type; `X-Svc-Await-Durable: false` on a read is accepted. */
export function checkOptionsForRequestType(opts: RequestOptions, requestType: RequestType): void {
  if (opts.warm && requestType === 'write') {
    throw new GraphError('invalid_request_option', `${WARM.display} is only valid for read requests`);
  }
  if (opts.awaitDurable === true && requestType === 'read') {
    throw new GraphError('invalid_request_option', `${AWAIT_DURABLE.display} is only valid for write requests`);
  }
}
