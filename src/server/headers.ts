/**
 * Request options carried in headers (DECISIONS D2). The contract's `x-svc-*` names are
 * canonical; the reference's `x-helix-*` names are aliases so HelixDB SDKs work unchanged.
 * When both spellings of one option are sent, the canonical header wins and the alias is
 * ignored, even if the alias alone would have been invalid: that precedence is fixed and
 * documented, so every reader of the request agrees on it (and a proxy can override an
 * SDK's alias by setting the canonical header).
 *
 * One name sent more than once with different values is 400 (the reference silently uses
 * the first): a proxy that reads the last value would see a different request than we do.
 * Repeating the same value is harmless and accepted. This holds for every option header,
 * the alias too when the canonical one is also present.
 *
 * The tenant id is never an error (the reference uses it for attribution only): an empty
 * one is treated as absent. An empty database id is an error (the contract says min length 1).
 */
import { GraphError } from '../core/errors.js';
import type { RequestOptions } from '../core/request-options.js';
import { clip } from '../core/clip.js';

export { checkOptionsForRequestType, type RequestOptions } from '../core/request-options.js';

interface HeaderName {
  readonly canonical: string;
  readonly alias: string;
}

function header(suffix: string): HeaderName {
  return { canonical: `x-svc-${suffix}`, alias: `x-helix-${suffix}` };
}

const WARM = header('warm');
const REQUIRE_WRITER = header('require-writer');
const AWAIT_DURABLE = header('await-durable');
const DATABASE_ID = header('database-id');
const TENANT_ID = header('tenant-id');
const OPTION_NAMES = [WARM, REQUIRE_WRITER, AWAIT_DURABLE, DATABASE_ID, TENANT_ID].flatMap((h) => [h.canonical, h.alias]);

/** Every option header with its alias and the kind of value it takes (the OpenAPI document lists them). */
export const OPTION_HEADERS: readonly (HeaderName & { readonly value: 'boolean' | 'id' | 'tenant' })[] = [
  { ...WARM, value: 'boolean' },
  { ...REQUIRE_WRITER, value: 'boolean' },
  { ...AWAIT_DURABLE, value: 'boolean' },
  { ...DATABASE_ID, value: 'id' },
  { ...TENANT_ID, value: 'tenant' },
];

function checkRepeats(repeated: ReadonlyMap<string, readonly string[]>): void {
  for (const name of OPTION_NAMES) {
    const values = repeated.get(name);
    if (values === undefined) continue;
    const other = values.find((v) => v !== values[0]);
    if (other !== undefined) {
      throw new GraphError(
        'invalid_request_option',
        `${name} is sent ${values.length} times with different values ("${clip(values[0]!)}" and "${clip(other)}"); send it once`,
      );
    }
  }
}

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
      throw new GraphError('invalid_request_option', `${sentName(headers, name)} must be true, false, 1 or 0, got "${clip(raw)}"`);
  }
}

function parseId(headers: ReadonlyMap<string, string>, name: HeaderName): string | undefined {
  const raw = lookup(headers, name);
  if (raw === undefined) return undefined;
  const id = raw.trim();
  if (id === '') throw new GraphError('invalid_request_option', `${sentName(headers, name)} must not be empty`);
  return id;
}

/** `repeated`: the header names sent more than once, with all their values (HttpRequest.repeated). */
export function parseRequestOptions(
  headers: ReadonlyMap<string, string>,
  repeated?: ReadonlyMap<string, readonly string[]>,
): RequestOptions {
  if (repeated !== undefined) checkRepeats(repeated);
  return {
    warm: parseBoolean(headers, WARM) ?? false,
    requireWriter: parseBoolean(headers, REQUIRE_WRITER) ?? false,
    awaitDurable: parseBoolean(headers, AWAIT_DURABLE),
    databaseId: parseId(headers, DATABASE_ID),
    tenantId: lookup(headers, TENANT_ID)?.trim() || undefined,
  };
}
